/**
 * The command-line tools' HTTP client of the API: one request at a time with its headers, signed for
 * a deployed API (SigV4 for IAM auth, a bearer token for JWT), and sent again while the API says to
 * wait (429, 503, or 409 `request-in-progress` of an Idempotency-Key), honouring `Retry-After`, or the
 * connection dropped. Only requests that are safe to repeat are repeated: GETs, and writes that carry
 * an Idempotency-Key.
 */
import type { RequestSigner } from './sigv4';

export interface ApiAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH';
  /** The path and query, from the API's root: `/Person?limit=1`. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface ApiClientOptions {
  /** The API's root URL, e.g. `http://127.0.0.1:3000` or a stage's invoke URL. */
  api: string;
  /** A JWT for an API with a JWT authorizer. */
  token?: string;
  /** Sign with SigV4 from the default AWS credential chain, for an API with IAM auth. */
  signer?: RequestSigner;
  /** How long a request that keeps being told to wait is sent again, in all. */
  patienceMs?: number;
  /** A wait without `Retry-After`: the attempt's number in, milliseconds out. */
  backoff?: (attempt: number) => number;
  sleep?: (ms: number) => Promise<void>;
  timeoutMs?: number;
}

export interface ApiClient {
  /** Sends a request, again while told to wait, for up to `patienceMs` (the client's by default). */
  send(request: ApiRequest, options?: { patienceMs?: number }): Promise<ApiAnswer>;
  /** Requests that were told to wait (or lost their connection) and were sent again. */
  readonly retries: number;
}

const WAIT_STATUSES = new Set([429, 502, 503, 504]);

/** Whether an answer says "not now": the same request may be sent again later. */
const toldToWait = ({ status, headers, text }: ApiAnswer) =>
  WAIT_STATUSES.has(status) ||
  (status === 409 &&
    (headers.get('content-type') ?? '').includes('problem+json') &&
    text.includes('request-in-progress'));

/** `Retry-After` in seconds or as an HTTP date, in milliseconds; undefined when absent or unreadable. */
export const retryAfterMs = (value: string | null, now = Date.now()): number | undefined => {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

/** Full jitter over an exponential step: 100 ms, 200 ms, ... up to 10 s. */
const jittered = (attempt: number) => Math.random() * Math.min(10_000, 100 * 2 ** attempt);

/** The default API: `npm start`'s. */
export const localApi = () => `http://127.0.0.1:${process.env.PORT ?? 3000}`;

export const apiClient = ({
  api,
  token,
  signer,
  patienceMs = 120_000,
  backoff = jittered,
  sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  timeoutMs = 30_000,
}: ApiClientOptions): ApiClient => {
  const root = api.replace(/\/+$/, '');
  let retries = 0;

  const once = async ({ method, path, headers = {}, body }: ApiRequest): Promise<ApiAnswer> => {
    const url = new URL(`${root}${path}`);
    const plain: Record<string, string> = {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    };
    // The signature covers `host`; fetch sends it from the URL itself.
    const { host: _host, ...sent } = signer ? await signer(method, url, plain, body) : plain;
    const response = await fetch(url, {
      method,
      headers: sent,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };

  return {
    get retries() {
      return retries;
    },
    async send(request, { patienceMs: patience = patienceMs } = {}) {
      const repeatable = request.method === 'GET' || request.headers?.['idempotency-key'] !== undefined;
      const until = Date.now() + patience;
      for (let attempt = 1; ; attempt++) {
        let wait: number;
        try {
          const answer = await once(request);
          if (!repeatable || !toldToWait(answer) || Date.now() >= until) return answer;
          wait = retryAfterMs(answer.headers.get('retry-after')) ?? backoff(attempt);
        } catch (error) {
          // A connection that dropped or timed out: the request may or may not have landed, which
          // only an Idempotency-Key makes safe to find out by sending it again.
          if (!repeatable || Date.now() >= until) throw error;
          wait = backoff(attempt);
        }
        retries++;
        await sleep(Math.min(wait, Math.max(0, until - Date.now())));
      }
    },
  };
};
