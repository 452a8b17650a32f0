/**
 * What one webhook delivery attempt decides (API.md 16), pure: a 2xx is delivered; a 410 or an
 * address refused at delivery pauses the subscription at once, saying why; anything else (5xx, 429,
 * another 4xx, a redirect not followed, a timeout, a refused connection, a failure on the way) is
 * retried with exponential backoff and jitter (`Retry-After` honoured) until the first failure of the
 * event is 24 hours old, and then pauses it. And how a delivery is signed: Standard Webhooks 1.0's
 * three headers, one `v1` signature per secret that signs (two for 24 hours after a rotation).
 */
import { Webhook } from 'standardwebhooks';

export interface RetryPolicy {
  /** The first retry's delay before jitter; each next one doubles it. */
  baseMs: number;
  /** The longest delay between two attempts. */
  maxMs: number;
  /** How long an event is retried, from its first failure, before the subscription is paused. */
  retryForMs: number;
}

/** Deployed: 5 s, 10 s, 20 s, ... up to an hour apart, for 24 hours (about 30 attempts). */
export const RETRY_POLICY: RetryPolicy = {
  baseMs: 5_000,
  maxMs: 60 * 60 * 1000,
  retryForMs: 24 * 60 * 60 * 1000,
};

/** What came of an attempt (lib/webhooks/url-guard.ts `deliver`, its answer's headers read). */
export type AttemptResult =
  | { kind: 'answered'; status: number; retryAfter?: string }
  | { kind: 'timeout' | 'refused' | 'failed' | 'forbidden'; reason: string };

export type Verdict =
  | { kind: 'delivered' }
  | { kind: 'retry'; at: number }
  | { kind: 'pause'; reason: string };

/** `Retry-After` as milliseconds from `now`: delay-seconds or an HTTP-date (RFC 9110 10.2.3). */
export const retryAfterMs = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // An HTTP-date names its month (`Sun, 06 Nov 1994 08:49:37 GMT`): a bare number is no date.
  const date = /[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

/**
 * The delay before retry `attempt` (1 after the first failure): the policy's base doubled per attempt,
 * capped, with "equal jitter" (between half of it and all of it), so receivers coming back are not
 * met by every subscriber at once, and the delays still grow.
 */
export const backoffMs = (attempt: number, policy: RetryPolicy, random: () => number = Math.random) => {
  const delay = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt - 1, 40));
  return Math.round(delay / 2 + (random() * delay) / 2);
};

/** What an attempt's result says, in the words `paused_reason` and `/deliveries` use. */
export const describeResult = (result: AttemptResult) =>
  result.kind === 'answered' ? `the receiver answered ${result.status}` : `${result.kind}: ${result.reason}`;

export interface AttemptContext {
  /** The attempt's number for this event, from 1. */
  attempt: number;
  /** When this event's first attempt failed (epoch ms); `now` for the first failure. */
  firstFailure: number;
  now: number;
  policy: RetryPolicy;
  random?: () => number;
}

/** What to do after an attempt: the event delivered, retried at a time, or the subscription paused. */
export const verdictOf = (result: AttemptResult, context: AttemptContext): Verdict => {
  if (result.kind === 'answered' && result.status >= 200 && result.status < 300) return { kind: 'delivered' };
  if (result.kind === 'answered' && result.status === 410)
    return { kind: 'pause', reason: 'The receiver answered 410 Gone: it wants no more deliveries' };
  if (result.kind === 'forbidden')
    return { kind: 'pause', reason: `The URL is refused at delivery: ${result.reason}` };
  const { attempt, firstFailure, now, policy, random } = context;
  if (now - firstFailure >= policy.retryForMs)
    return {
      kind: 'pause',
      reason: `Retries ran out after ${attempt} attempts over ${Math.round((now - firstFailure) / 3_600_000)} hours; the last: ${describeResult(result)}`,
    };
  const asked = result.kind === 'answered' ? retryAfterMs(result.retryAfter, now) : undefined;
  return { kind: 'retry', at: now + Math.max(backoffMs(attempt, policy, random), asked ?? 0) };
};

/**
 * The Standard Webhooks headers of a delivery: `webhook-id` (the event's id, the same on every
 * attempt, so a receiver drops a repeat), `webhook-timestamp` (seconds) and `webhook-signature`, one
 * `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per secret, space-separated.
 */
export const signedHeaders = (eventId: string, body: string, secrets: readonly string[], now: Date) => ({
  'content-type': 'application/json',
  'webhook-id': eventId,
  'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
  'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, now, body)).join(' '),
});
