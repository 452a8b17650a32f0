/**
 * The Reconciliation API 0.2 routes (issue #37, API.md 12): the manifest, query batches and data
 * extension on `/reconcile`, suggest and proposed properties, and the preview card. What OpenRefine
 * 3.6 needs of them, beyond the spec:
 * - CORS for any origin whatever `CORS_ORIGINS` says (they are read-only and take no credentials), on
 *   refusals too, and JSONP (`callback`, the `_` cache buster ignored) with a JavaScript media type;
 * - parameters they do not know are ignored, never refused (its suggest widget adds `spell`, `exact`,
 *   `prefixed`, `scoring`, `type`, `callback`, `_`): the list's "unknown parameter is 400" rule does
 *   not apply here;
 * - a batch that is valid never fails: a query about another type, or with nothing to look up, answers
 *   no candidates; only a batch that is not JSON, or not the spec's shape, is 400 problem+json.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { PersonNotFound } from '../domain/errors';
import type { ReconcileReader } from '../domain/ports/lists';
import {
  ExtendQuery,
  extensionOf,
  isCallbackName,
  jsonpOf,
  manifestOf,
  matchRequestOf,
  PERSON_ENTITY_TYPE,
  personIdOfEntity,
  previewHtml,
  proposedProperties,
  publicPropertiesFrom,
  RECONCILE_LIMITS,
  type ReconcileQuery,
  ReconcileQueryBatch,
  rankCandidates,
  resultOf,
  suggestTerms,
  type Visibility,
} from '../domain/reconcile';
import { personUrl } from '../domain/representation';
import { LIMITS, wireErrors } from '../domain/schemas';
import { logger } from '../logger';
import { readHandler } from './handler';
import { HttpProblem } from './problems';
import { fieldErrors, headerOf } from './request';
import { type ApiResponse, ok, rawOk } from './responses';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type HttpFunction = (event: Event, context: Context) => Promise<Result>;

export interface ReconcileDeps {
  reader: ReconcileReader;
  visibility: Visibility;
}

/**
 * What the reconciliation routes show (API.md 12): everything, unless the public-read option is on
 * (`RECONCILE_PUBLIC_READ=on`, which the deploy option that opens these routes sets); then only
 * `fullname` and what `RECONCILE_PUBLIC_PROPERTIES` lists (`fullname,email`).
 */
export const reconcileVisibilityFromEnv = (env: NodeJS.ProcessEnv = process.env): Visibility => ({
  publicRead: env.RECONCILE_PUBLIC_READ === 'on',
  publicProperties: publicPropertiesFrom(env.RECONCILE_PUBLIC_PROPERTIES),
});

const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * The request's parameters: the query string's, and on a POST the form-encoded body's over them (the
 * spec lets a client send `queries` either way; OpenRefine POSTs the form). A body of another media
 * type is 415; one past the body limit 413.
 */
export const parametersOf = (event: Event): Map<string, string> => {
  const parameters = new Map(Object.entries(event.queryStringParameters ?? {}).map(([k, v]) => [k, v ?? '']));
  if (event.body === undefined || event.body === '') return parameters;
  const mediaType = headerOf(event, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== undefined && mediaType !== FORM_TYPE)
    throw new HttpProblem(
      'unsupported-media-type',
      `This route takes its parameters form-encoded (Content-Type: ${FORM_TYPE}), not as ${mediaType}: send queries=<the JSON batch> (or extend=...) as a form`,
    );
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (bytes.byteLength > LIMITS.bodyBytes)
    throw new HttpProblem('payload-too-large', `The body may be at most ${LIMITS.bodyBytes} bytes`);
  for (const [name, value] of new URLSearchParams(bytes.toString('utf8'))) parameters.set(name, value);
  return parameters;
};

/** A JSON parameter read with its schema; bad JSON or the wrong shape is 400 naming the parameter. */
const jsonParameter = <S extends z.ZodType>(name: string, text: string, schema: S): z.output<S> => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HttpProblem('validation-error', `The parameter ${name} is not valid JSON`);
  }
  const parsed = schema.safeParse(json, { error: wireErrors });
  if (parsed.success) return parsed.data;
  const errors = fieldErrors(parsed.error.issues).map((error) => ({
    ...error,
    path: `/${name}${error.path}`,
  }));
  const [first] = errors;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more in errors)` : '';
  throw new HttpProblem(
    'validation-error',
    `The parameter ${name} does not have the shape the Reconciliation API 0.2 gives it: ${first?.path}: ${first?.message}${more}`,
    errors,
  );
};

/** `callback`, when sent, must name a function: anything else could inject script. */
const checkCallback = (parameters: Map<string, string>) => {
  const callback = parameters.get('callback');
  if (callback !== undefined && !isCallbackName(callback))
    throw new HttpProblem(
      'validation-error',
      'callback must be a JavaScript function name (letters, digits, _ $ .)',
    );
};

/**
 * What every reconciliation answer gets on its way out, refusals included: `Access-Control-Allow-Origin:
 * *` (no credentials are ever allowed with it), and, with a valid `callback`, its JSON as a JSONP
 * script. The local server and API Gateway without `corsOrigins` pass these headers on as they are.
 */
export const openToAnyOrigin =
  (inner: HttpFunction): HttpFunction =>
  async (event, context) => {
    const result = await inner(event, context);
    const headers: Record<string, string | number | boolean> = {
      ...(result.headers ?? {}),
      'Access-Control-Allow-Origin': '*',
    };
    // JSONP is a script element's GET: its callback is in the query string.
    const callback = event.queryStringParameters?.callback;
    const contentType = String(headers['Content-Type'] ?? '');
    if (
      callback === undefined ||
      !isCallbackName(callback) ||
      result.body === undefined ||
      !/json/.test(contentType)
    )
      return { ...result, headers };
    return {
      ...result,
      headers: {
        ...headers,
        'Content-Type': 'application/javascript; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
      },
      body: jsonpOf(callback, result.body),
    };
  };

/** The answers of a batch: each distinct query looked up once, all at once. */
const answerBatch = async (batch: Record<string, ReconcileQuery>, { reader, visibility }: ReconcileDeps) => {
  const distinct = new Map<string, Promise<ReturnType<typeof resultOf>>>();
  const answerOf = (query: ReconcileQuery) => {
    const key = JSON.stringify(query);
    let answer = distinct.get(key);
    if (!answer) {
      const request = matchRequestOf(query, visibility);
      answer = reader.candidates(request).then(({ candidates, cost, detail }) => {
        logger.info('reconcile cost', { ...cost, ...detail });
        return resultOf(rankCandidates(request, candidates), visibility);
      });
      distinct.set(key, answer);
    }
    return answer;
  };
  const keys = Object.keys(batch);
  const answers = await Promise.all(keys.map((key) => answerOf(batch[key] as ReconcileQuery)));
  return Object.fromEntries(keys.map((key, index) => [key, answers[index]]));
};

/** GET|POST /reconcile: the manifest, a batch of queries (`queries`), or data extension (`extend`). */
export const reconcileHandler = (deps: ReconcileDeps) =>
  openToAnyOrigin(
    readHandler().handler(async ({ event, links }): Promise<ApiResponse> => {
      const parameters = parametersOf(event);
      checkCallback(parameters);
      const queries = parameters.get('queries');
      if (queries !== undefined)
        return ok(await answerBatch(jsonParameter('queries', queries, ReconcileQueryBatch), deps));
      const extend = parameters.get('extend');
      if (extend !== undefined) {
        const query = jsonParameter('extend', extend, ExtendQuery);
        const ids = query.ids.flatMap((id) => {
          const personId = personIdOfEntity(id);
          return personId === undefined ? [] : [personId];
        });
        return ok(extensionOf(query, await deps.reader.persons(ids), deps.visibility));
      }
      return ok(manifestOf(links));
    }),
  );

const limitOf = (parameters: Map<string, string>): number | undefined => {
  const value = Number(parameters.get('limit'));
  return Number.isInteger(value) && value > 0 ? value : undefined;
};

/**
 * GET /reconcile/suggest/{kind} (entity, property, type: the prefix in `prefix`) and GET
 * /reconcile/properties (the properties proposed for data extension).
 */
export const suggestHandler = ({ reader, visibility }: ReconcileDeps) =>
  openToAnyOrigin(
    readHandler().handler(async ({ event }) => {
      const parameters = parametersOf(event);
      checkCallback(parameters);
      const kind = event.pathParameters?.kind;
      if (kind === undefined) return ok(proposedProperties(visibility, limitOf(parameters)));
      const prefix = parameters.get('prefix') ?? '';
      if (kind === 'property' || kind === 'type') return ok(suggestTerms(kind, prefix, visibility));
      if (kind !== 'entity')
        throw new HttpProblem('not-found', `No suggest service ${kind}: entity, property or type`);
      const limit = Math.min(limitOf(parameters) ?? RECONCILE_LIMITS.suggest, RECONCILE_LIMITS.maxLimit);
      const persons = await reader.suggest(prefix, limit);
      return ok({
        result: persons.map(({ id, fullname }) => ({
          id: String(id),
          name: fullname,
          notable: [{ ...PERSON_ENTITY_TYPE }],
        })),
      });
    }),
  );

/**
 * The preview's own policy: no script, no outside resources, and no `frame-ancestors`: OpenRefine shows
 * the card in an iframe of its own page, so it must stay frameable (no `X-Frame-Options` either).
 */
const PREVIEW_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/** GET /reconcile/preview?id=...: the small HTML card of a person. */
export const previewHandler = ({ reader, visibility }: ReconcileDeps) =>
  openToAnyOrigin(
    readHandler().handler(async ({ event, links }) => {
      const parameters = parametersOf(event);
      const id = parameters.get('id') ?? '';
      const personId = personIdOfEntity(id);
      const person = personId === undefined ? undefined : (await reader.persons([personId])).get(personId);
      if (!person) throw new PersonNotFound(id);
      return rawOk(
        {
          contentType: 'text/html; charset=utf-8',
          content: previewHtml(person, visibility, personUrl(links.baseUrl, person.id)),
        },
        {
          'Content-Security-Policy': PREVIEW_POLICY,
          'X-Content-Type-Options': 'nosniff',
          'Cache-Control': 'no-store',
        },
      );
    }),
  );
