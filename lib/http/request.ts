/**
 * Reading an API Gateway HTTP API (payload 2.0) event: links, requester, body and path id. Each
 * function either returns a well-typed value or throws the problem the client should see.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { z } from 'zod';
import { callersOf, type RequesterRule } from '../api/requester';
import type { RequestOrigin } from '../domain/change-history';
import { DelegateRequired, type FieldError, NotFound, PersonNotFound, Unauthorized } from '../domain/errors';
import { listPageUrl } from '../domain/listing';
import {
  type AuthorizerContext,
  callerOf,
  type Principal,
  type RequesterRuling,
  requesterRuling,
} from '../domain/principal';
import type { Links } from '../domain/representation';
import { LIMITS, wireErrors } from '../domain/schemas';
import type { HttpConfig } from './config';
import { HttpProblem } from './problems';
import { withoutTrailingSlash } from './routes';

export const JSON_MEDIA_TYPES = ['application/json', 'application/ld+json'];

export const headerOf = (event: APIGatewayProxyEventV2, name: string): string | undefined => {
  const headers = event.headers ?? {};
  const lowerCase = name.toLowerCase();
  return headers[lowerCase] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === lowerCase)?.[1];
};

/** Absolute URLs come from `PUBLIC_BASE_URL`, else the request's scheme, host and stage (API.md 1). */
export const linksFor = (event: APIGatewayProxyEventV2, config: HttpConfig): Links => {
  const { domainName, stage } = event.requestContext;
  const host = domainName || headerOf(event, 'host') || 'localhost';
  // Only a scheme a link may have: anything else a client puts in the header (`javascript`) is ignored.
  const forwarded = headerOf(event, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  const scheme = forwarded === 'http' ? 'http' : 'https';
  const stagePath = stage && stage !== '$default' ? `/${stage}` : '';
  const baseUrl = config.publicBaseUrl ?? `${scheme}://${host}${stagePath}`;
  return { baseUrl, contextUrl: config.schemaContextUrl ?? `${baseUrl}/context.jsonld` };
};

export const requesterOf = (event: APIGatewayProxyEventV2, rule: RequesterRule): number => {
  const raw = headerOf(event, 'x-requester-person');
  if (raw === undefined) throw new HttpProblem('missing-requester', 'Send the id of the requesting person');
  const value = raw.trim();
  const id = Number(value);
  if (!/^\d{1,16}$/.test(value) || !Number.isSafeInteger(id))
    throw new HttpProblem('invalid-requester', 'x-requester-person must be a non-negative integer');
  if (id === 0 && rule !== 'create')
    throw new HttpProblem(
      'invalid-requester',
      'x-requester-person 0 is only for self-registration on create',
    );
  return id;
};

/** A user agent is kept to this many characters: enough to tell clients apart, bounded in storage. */
const MAX_USER_AGENT = 512;

/** What API Gateway's authorizer put in the request context: the JWT's claims, or the IAM caller. */
export const authorizerOf = (event: APIGatewayProxyEventV2): AuthorizerContext | undefined =>
  (event.requestContext as typeof event.requestContext & { authorizer?: AuthorizerContext }).authorizer;

/**
 * A write's requester (`requesterOf`) and what it must prove about it (API.md 9.1), from the caller
 * the authorizer authenticated: with binding on, none is 401 (`Unauthorized`), before the header is
 * looked at, and a write of the rule `delegate` by a caller that is no delegate is 403
 * (`DelegateRequired`).
 */
export const requesterRulingOf = (
  event: APIGatewayProxyEventV2,
  config: HttpConfig,
  rule: RequesterRule,
): { requester: number; ruling: RequesterRuling } => {
  const caller = callerOf(authorizerOf(event), config.delegates ?? []);
  const binding = config.requesterBinding === true;
  if (binding && !caller.principal) throw new Unauthorized();
  const requester = requesterOf(event, rule);
  return { requester, ruling: requesterRuling(binding, caller, requester, callersOf(rule)) };
};

/**
 * The delegate a binding change comes from (API.md 9.1): the authenticated caller, 401 without one,
 * 403 `delegate-required` when it is not a delegate (whether binding is on or not: a delegate may bind
 * persons before binding is turned on).
 */
export const delegateOf = (event: APIGatewayProxyEventV2, config: HttpConfig): Principal => {
  const { principal, delegate } = callerOf(authorizerOf(event), config.delegates ?? []);
  if (!principal) throw new Unauthorized();
  if (!delegate) throw new DelegateRequired();
  return principal;
};

/**
 * Where a write came from, for its ChangeHistory entry (API.md 11.5): API Gateway's request id, the
 * user agent, and the caller its authorizer authenticated (the IAM principal's ARN or the JWT's `sub`).
 * Read from the request context only: never cookies, tokens or authorization headers.
 */
export const originOf = (event: APIGatewayProxyEventV2): RequestOrigin => {
  const { requestId, http } = event.requestContext;
  const authorizer = authorizerOf(event);
  const subject = authorizer?.jwt?.claims?.sub;
  return {
    request_id: requestId ?? null,
    user_agent: http?.userAgent ? http.userAgent.slice(0, MAX_USER_AGENT) : null,
    caller: authorizer?.iam?.userArn ?? (typeof subject === 'string' ? subject : null),
  };
};

/** The `{id}` of the path; one that is not a positive integer names nothing: 404. */
export const pathIdOf = (event: APIGatewayProxyEventV2, resource: string): number => {
  const raw = event.pathParameters?.id ?? '';
  const id = Number(raw);
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(id))
    throw resource === 'Person' ? new PersonNotFound(raw) : new NotFound(resource, raw);
  return id;
};

export const personIdOf = (event: APIGatewayProxyEventV2): number => pathIdOf(event, 'Person');

/**
 * Turns zod's issues into JSON Pointer errors (RFC 6901: the whole body is ""), one per unknown key.
 * The messages are the schemas' own (lib/domain/schemas.ts `wireErrors` and the schemas' `error`).
 */
export const fieldErrors = (issues: z.core.$ZodIssue[]): FieldError[] =>
  issues.flatMap((issue) => {
    const pointer = (path: PropertyKey[]) =>
      path.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
    return issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: pointer([...issue.path, key]), message: issue.message }))
      : [{ path: pointer(issue.path), message: issue.message }];
  });

const ACCEPTED = JSON_MEDIA_TYPES.join(' or ');

/**
 * Why a body of another media type is refused (API.md 2 and 2.1): the two patch formats are answered
 * with what this API takes instead, the changed object itself (API.md 5.4).
 */
const unsupportedMediaType = (mediaType: string | undefined): string => {
  switch (mediaType) {
    case 'application/json-patch+json':
      return `This API does not take JSON Patch: send the changed object itself (only what changes, as GET shows it, e.g. {"Emails": {"@set": [ ... ]}}) as ${ACCEPTED}`;
    case 'application/merge-patch+json':
      return `This API does not take JSON Merge Patch: send the changed object itself (only what changes, as GET shows it; items of a @set by their id) as ${ACCEPTED}`;
    case undefined:
    case '':
      return `Send the body with Content-Type ${ACCEPTED}`;
    default:
      return `Send the body as ${ACCEPTED}`;
  }
};

/** An array of objects each with `op` and `path`: a JSON Patch document (RFC 6902) sent as JSON. */
const isJsonPatch = (value: unknown): boolean =>
  Array.isArray(value) &&
  value.length > 0 &&
  value.every((item) => item !== null && typeof item === 'object' && 'op' in item && 'path' in item);

/**
 * Strict UTF-8: a byte sequence that is not UTF-8 is refused, never read with U+FFFD in its place
 * (API.md 2). One leading byte order mark is dropped, as RFC 8259 8.1 lets a parser do.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const notUtf8 = () =>
  new HttpProblem('validation-error', 'The body is not valid UTF-8: send JSON text encoded as UTF-8');

/** Where JSON.parse stopped, when it says: `at line 2, column 7`; counted in characters of the body. */
const whereParsingStopped = (text: string, error: unknown): string => {
  const message = error instanceof Error ? error.message : '';
  if (/end of JSON input/.test(message)) return ': it ends before the JSON value is complete';
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined) return '';
  const before = text.slice(0, Number(position)).split('\n');
  return ` at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
};

/**
 * Media type, size, encoding, JSON syntax and schema, in that order (API.md 2, 2.1, 5.2 and 7). Every
 * refusal says what the contract asks for, not what the parser or the validator saw.
 */
export const bodyOf = <S extends z.ZodType>(event: APIGatewayProxyEventV2, schema: S): z.output<S> => {
  const mediaType = headerOf(event, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (!mediaType || !JSON_MEDIA_TYPES.includes(mediaType))
    throw new HttpProblem(
      'unsupported-media-type',
      unsupportedMediaType(mediaType),
      [],
      // RFC 5789 2.2: a PATCH refused for its media type says which patch documents it takes.
      event.requestContext?.http?.method === 'PATCH' ? { 'Accept-Patch': JSON_MEDIA_TYPES.join(', ') } : {},
    );
  // API Gateway HTTP API (payload 2.0) hands the function a string for text media types (text/*,
  // application/json, ...) and base64 with `isBase64Encoded` for the rest; AWS documents only that "if
  // the content type of the request is binary, the body is base64-encoded", not what it does with bytes
  // that are not UTF-8 under a text type. So: base64 is decoded strictly; a string is refused if it holds
  // a lone surrogate (no UTF-8 encodes one); a string whose bytes were replaced by U+FFFD before the
  // function ran cannot be told from one a client sent with U+FFFD in it. The local server
  // (lib/local/http-events.ts) sends any body that is not UTF-8 as base64: there it arrives as sent.
  const raw = event.body ?? '';
  const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  if (bytes.byteLength > LIMITS.bodyBytes)
    throw new HttpProblem('payload-too-large', `The body may be at most ${LIMITS.bodyBytes} bytes`);
  if (!event.isBase64Encoded && /\p{Cs}/u.test(raw)) throw notUtf8();
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw notUtf8();
  }
  if (/^[ \t\n\r]*$/.test(text))
    throw new HttpProblem('validation-error', 'The body is empty: send a JSON object');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new HttpProblem(
      'validation-error',
      `The body is not valid JSON${whereParsingStopped(text, error)}`,
    );
  }
  if (isJsonPatch(json))
    throw new HttpProblem(
      'validation-error',
      'This API does not take JSON Patch: send the object itself as JSON (on a PATCH, the changed object: only what changes, as GET shows it, e.g. {"Emails": {"@set": [ ... ]}})',
    );
  const parsed = schema.safeParse(json, { error: wireErrors });
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error.issues);
    const [only] = errors;
    // A body that is not an object at all: the one error is the whole answer.
    const detail =
      errors.length === 1 && only?.path === ''
        ? only.message
        : 'The body does not match the schema of this resource';
    throw new HttpProblem('validation-error', detail, errors);
  }
  return parsed.data;
};

/** Query parameters checked against a schema; a bad value is 400 naming the parameter. */
export const queryOf = <S extends z.ZodType>(event: APIGatewayProxyEventV2, schema: S): z.output<S> => {
  const parsed = schema.safeParse(event.queryStringParameters ?? {}, { error: wireErrors });
  if (!parsed.success)
    throw new HttpProblem('validation-error', 'The query is not valid', fieldErrors(parsed.error.issues));
  return parsed.data;
};

/** The path of the request below the API's base (API Gateway puts a named stage in `rawPath`). */
export const routePath = (event: APIGatewayProxyEventV2) => {
  const { stage } = event.requestContext;
  const path = event.rawPath || '/';
  return stage && stage !== '$default' && path.startsWith(`/${stage}/`) ? path.slice(stage.length + 1) : path;
};

/**
 * The absolute URL of another page of the same list: this request's path and query, with `page` and
 * `perPage` set (API.md 6: links keep the other query parameters).
 */
export const pageUrlFor = (event: APIGatewayProxyEventV2, links: Links) =>
  listPageUrl(links.baseUrl, withoutTrailingSlash(routePath(event)), event.rawQueryString ?? '');
