/**
 * A recording HTTP client for the reliability runs: every request and its answer (status, media type,
 * `Retry-After`, parsed body, timing) is kept, so the checks afterwards reason over the whole history.
 */

import type { ProblemBody } from '../../lib/api/problems';
import type { PersonOut } from '../../lib/domain/schemas';

/** What a request was for: the kinds the figures are broken down by. */
export type RequestKind =
  | 'create'
  | 'add'
  | 'change'
  | 'delete'
  | 'move-release'
  | 'move-take'
  | 'race'
  | 'rename'
  | 'list'
  | 'get';

export const WRITE_KINDS: ReadonlySet<RequestKind> = new Set([
  'create',
  'add',
  'change',
  'delete',
  'move-release',
  'move-take',
  'race',
  'rename',
]);

export interface Exchange {
  seq: number;
  kind: RequestKind;
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  requester: number | null;
  /** The body sent (writes only). */
  body: unknown;
  /** The request's own marker: root `local_reference_id` of a write, prefix of its items' ones. */
  tag: string | null;
  /** Milliseconds since the run started. */
  startedAt: number;
  endedAt: number;
  /** 0 when no answer came (network failure or timeout: see `failure`). */
  status: number;
  failure: string | null;
  contentType: string | null;
  retryAfter: string | null;
  etag: string | null;
  json: unknown;
}

export interface SendOptions {
  body?: unknown;
  requester?: number;
  tag?: string;
}

export interface Recorder {
  exchanges: Exchange[];
  send(kind: RequestKind, method: Exchange['method'], path: string, options?: SendOptions): Promise<Exchange>;
  /** Milliseconds since the recorder was made. */
  now(): number;
}

export const recorder = (baseUrl: string, { timeoutMs = 30_000 }: { timeoutMs?: number } = {}): Recorder => {
  const exchanges: Exchange[] = [];
  const origin = performance.now();
  const now = () => performance.now() - origin;
  let seq = 0;
  return {
    exchanges,
    now,
    async send(kind, method, path, { body, requester, tag } = {}) {
      const exchange: Exchange = {
        seq: seq++,
        kind,
        method,
        path,
        requester: requester ?? null,
        body,
        tag: tag ?? null,
        startedAt: now(),
        endedAt: 0,
        status: 0,
        failure: null,
        contentType: null,
        retryAfter: null,
        etag: null,
        json: undefined,
      };
      exchanges.push(exchange);
      try {
        const response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: {
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(requester === undefined ? {} : { 'x-requester-person': String(requester) }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await response.text();
        exchange.status = response.status;
        exchange.contentType = response.headers.get('content-type');
        exchange.retryAfter = response.headers.get('retry-after');
        exchange.etag = response.headers.get('etag');
        try {
          exchange.json = text ? JSON.parse(text) : undefined;
        } catch {
          exchange.json = text;
        }
      } catch (error) {
        const { name, message } = error as Error;
        exchange.failure =
          name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `${name}: ${message}`;
      }
      exchange.endedAt = now();
      return exchange;
    },
  };
};

export const isSuccess = (exchange: Exchange) => exchange.status >= 200 && exchange.status < 300;

/** The Person a 200/201 answered with. */
export const personOf = (exchange: Exchange): PersonOut | undefined =>
  isSuccess(exchange) && exchange.kind !== 'list' ? (exchange.json as PersonOut) : undefined;

export const problemOf = (exchange: Exchange): ProblemBody | undefined =>
  exchange.status >= 400 ? (exchange.json as ProblemBody) : undefined;

/** The id at the end of a Person URL (`existing`, `@id`, `Location`). */
export const personIdOfUrl = (url: string | undefined): number | undefined => {
  const match = /\/Person\/(\d+)$/.exec(url ?? '');
  return match ? Number(match[1]) : undefined;
};

/** A one-line account of an exchange, for violation messages. */
export const explain = (exchange: Exchange): string => {
  const answer = exchange.failure ?? `${exchange.status}`;
  const problem = problemOf(exchange);
  const detail =
    problem && typeof problem === 'object' ? ` ${problem.type ?? ''} ${problem.detail ?? ''}` : '';
  return `#${exchange.seq} ${exchange.kind} ${exchange.method} ${exchange.path}${exchange.tag ? ` [${exchange.tag}]` : ''} -> ${answer}${detail}`;
};

/** Nearest-rank percentile of a list of numbers (milliseconds). */
export const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
};

/** A small seeded generator (mulberry32), so a run's choices can be replayed from its seed. */
export const seededRandom = (seed: number) => {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  };
};
export type Random = ReturnType<typeof seededRandom>;
