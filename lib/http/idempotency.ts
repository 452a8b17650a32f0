/**
 * `Idempotency-Key` on writes (API.md 5.6), on Powertools' idempotency utility: its `makeIdempotent`
 * keeps an in-progress record while the write runs (a second request meanwhile is refused), stores
 * the answer when it is done (a retry gets it again and writes nothing), drops the record when the
 * write throws (a retry runs again) and compares a hash of the request with the stored one (another
 * request under the same key is refused). The refusals become problems in lib/http/problems.ts.
 *
 * Powertools' middy middleware (`makeHandlerIdempotent`) is not used: in 2.35.0 its `onError` deletes
 * the record whenever anything before it threw, its own refusals included, so a request refused as in
 * progress deleted the running request's record, and one refused for another body deleted the stored
 * answer (powertools-lambda-typescript#5675, fixed after 2.35.0); and its early return skips every
 * `after`, so a replayed answer would go unlogged. The wrapper runs inside the handler, where the
 * request log and the problem mapping see every answer.
 */
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { ResponseHook } from '@aws-lambda-powertools/idempotency/types';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isErasedAnswer } from '../domain/erasure';
import { PersonErased } from '../domain/errors';
import type { KeyedAnswers } from '../domain/ports/keyed-answers';
import type { AnswerOnce } from './handler';
import { HttpProblem } from './problems';
import { headerOf, originOf, routePath } from './request';
import { withoutTrailingSlash } from './routes';

type Result = APIGatewayProxyStructuredResultV2;

/** How long an answer is kept for its key (API.md 5.6: 24 hours). */
export const KEY_RETENTION_SECONDS = 24 * 60 * 60;

/** API.md 5.6: 1 to 255 visible ASCII characters (RFC 5234's VCHAR: no space, no control character). */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyOptions {
  /**
   * Where the records are kept, and asked on a replay whether its person is erased since: the table
   * (lib/db/idempotency/idempotency-store.ts).
   */
  store: BasePersistenceLayer & KeyedAnswers;
  /** How long an answer is kept; tests shorten it. */
  retentionSeconds?: number;
  /**
   * What a kept answer's JSON body holds that must not be stored as it is sent (a subscription's
   * secret): `seal` before the answer is stored, `open` before any answer, first or replayed, is sent.
   */
  kept?: { seal: BodyChange; open: BodyChange };
}

type BodyChange = (body: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** An answer with its JSON object body changed; any other answer as it is. */
const withBody = async (result: Result, change: BodyChange | undefined): Promise<Result> => {
  if (!change || typeof result.body !== 'string' || result.isBase64Encoded) return result;
  let body: unknown;
  try {
    body = JSON.parse(result.body);
  } catch {
    return result;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return result;
  return { ...result, body: JSON.stringify(await change(body as Record<string, unknown>)) };
};

/**
 * The request's `Idempotency-Key`, or undefined when it has none. A key that breaks the rule is 400
 * before anything is looked up or written.
 */
export const idempotencyKeyOf = (event: APIGatewayProxyEventV2): string | undefined => {
  const key = headerOf(event, 'idempotency-key');
  if (key === undefined) return undefined;
  if (!VALID_KEY.test(key))
    throw new HttpProblem(
      'validation-error',
      'The Idempotency-Key header must be 1 to 255 visible ASCII characters (no space, control or non-ASCII character)',
    );
  return key;
};

/**
 * A JSON value written one way (API.md 5.6: bodies are compared as JSON): object keys sorted by code
 * unit, recursively, array order kept, no white space. Ten lines rather than a package
 * (json-stable-stringify and its kin do this and more: replacers, cycles, options none of this needs).
 */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const members = Object.keys(object)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(object[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
};

/**
 * The body as a retry must send it again: a JSON body in its canonical form, so the same value with
 * other white space or key order is the same request; any other body (the write refuses it anyway)
 * as it came, with whether it came base64-encoded. So is one too deep to rewrite.
 */
const comparedBody = (body: string, base64: boolean) => {
  try {
    const text = base64 ? Buffer.from(body, 'base64').toString('utf8') : body;
    return { json: canonicalJson(JSON.parse(text)) };
  } catch {
    return { body, base64 };
  }
};

/**
 * What a key's record is found by, `scope`: the key, the requesting person and the authenticated
 * caller (IAM ARN or JWT subject, when there is one), so one client never gets another's answer. And
 * what a retry must send again, `request`: method, path (without a stage or trailing slash) and the body
 * compared as JSON (`comparedBody`). Powertools hashes each (SHA-256): the first into the record's key, the second into the
 * record, compared on every retry.
 */
export const keyedRequestOf = (event: APIGatewayProxyEventV2, key: string, requester: number) => ({
  scope: { key, requester, caller: originOf(event).caller },
  request: {
    method: event.requestContext?.http?.method ?? '',
    path: withoutTrailingSlash(routePath(event)),
    ...comparedBody(event.body ?? '', event.isBase64Encoded ?? false),
  },
});

const REPLAYED = 'idempotent-replayed';

/**
 * A replayed answer says so (`Idempotent-Replayed: true`, as Stripe's API does), so a client that
 * retried learns its first request had landed; status, headers and body are the first answer's. An
 * answer about a person erased since is 410 `erased` instead: here when the erasure has rewritten it,
 * in `erasedSince` when it has not yet.
 */
const replayed: ResponseHook = (response) => {
  // The person the answer was about is erased since (API.md 15): the answer is its tombstone now.
  if (isErasedAnswer(response)) throw new PersonErased(response.erasedPerson);
  const result = response as Result;
  return { ...result, headers: { ...result.headers, [REPLAYED]: 'true' } };
};

/**
 * API.md 15: a replay of a write to a person erased since answers 410, never the stored answer. An
 * erasure rewrites its person's stored answers after its transaction, so one cut short (or still
 * running) leaves answers that hold the person's values; a replay of an answer about a person reads
 * the person as it is now (one read; none for another answer, or for a first answer). Here and not in
 * `replayed`: Powertools calls its response hook synchronously.
 */
const erasedSince = async (store: KeyedAnswers, result: Result): Promise<Result> => {
  if (result.headers?.[REPLAYED] !== 'true') return result;
  const tombstone = await store.erasedAbout(result);
  if (tombstone) throw new PersonErased(tombstone);
  return result;
};

/**
 * Answers each keyed write once (writeHandler's `once`): without a key, `answer` runs as it is.
 * `answer` resolves with what the client gets, refusals of 4xx included, so they are remembered like
 * any answer; what it throws (a 5xx) drops the record, so a retry runs again.
 */
export const idempotentWrites =
  ({ store, retentionSeconds = KEY_RETENTION_SECONDS, kept }: IdempotencyOptions): AnswerOnce =>
  async (event, context, requester, answer) => {
    const key = idempotencyKeyOf(event);
    if (key === undefined) return answer();
    // A config per request: the Lambda context it holds (whose remaining time bounds the in-progress
    // record, so a request that died frees its key when its invocation would have ended) is this one's.
    const config = new IdempotencyConfig({
      eventKeyJmesPath: 'scope',
      payloadValidationJmesPath: 'request',
      throwOnNoIdempotencyKey: true,
      hashFunction: 'sha256',
      expiresAfterSeconds: retentionSeconds,
      lambdaContext: context,
      responseHook: replayed,
    });
    const once = makeIdempotent(
      async (_keyed: ReturnType<typeof keyedRequestOf>): Promise<Result> =>
        withBody(await answer(), kept?.seal),
      {
        persistenceStore: store,
        config,
        dataIndexArgument: 0,
      },
    );
    return withBody(await erasedSince(store, await once(keyedRequestOf(event, key, requester))), kept?.open);
  };

/** writeHandler's `once` for an operation's dependencies: none when it was given no store. */
export const keyedWrites = (options: IdempotencyOptions | undefined): AnswerOnce | undefined =>
  options && idempotentWrites(options);
