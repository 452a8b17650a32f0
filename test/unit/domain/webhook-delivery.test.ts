import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSecret } from '../../../lib/domain/subscriptions';
import {
  type AttemptResult,
  backoffMs,
  RETRY_POLICY,
  retryAfterMs,
  signedHeaders,
  verdictOf,
} from '../../../lib/domain/webhook-delivery';

const NOW = Date.parse('2026-11-29T10:00:00.000Z');
const HOUR = 3_600_000;
const context = (attempt: number, firstFailure = NOW, random = () => 0.5) => ({
  attempt,
  firstFailure,
  now: NOW,
  policy: RETRY_POLICY,
  random,
});
const answered = (status: number, retryAfter?: string): AttemptResult => ({
  kind: 'answered',
  status,
  ...(retryAfter === undefined ? {} : { retryAfter }),
});

describe('an attempt decides', () => {
  it('delivered on any 2xx', () => {
    for (const status of [200, 201, 202, 204, 299])
      expect(verdictOf(answered(status), context(1)).kind).toBe('delivered');
  });

  it('a pause at once on 410, and on an address refused at delivery, saying why', () => {
    expect(verdictOf(answered(410), context(1))).toEqual({
      kind: 'pause',
      reason: expect.stringMatching(/410/),
    });
    expect(verdictOf({ kind: 'forbidden', reason: 'a private address' }, context(1))).toEqual({
      kind: 'pause',
      reason: expect.stringMatching(/private address/),
    });
  });

  it('a retry on 5xx, 429, other 4xx, a redirect, a timeout, a refused connection or a failure', () => {
    const retried: AttemptResult[] = [
      answered(500),
      answered(503),
      answered(429),
      answered(404),
      answered(301),
      { kind: 'timeout', reason: 'no answer in 10 s' },
      { kind: 'refused', reason: 'ECONNREFUSED' },
      { kind: 'failed', reason: 'ENOTFOUND' },
    ];
    for (const result of retried)
      expect(verdictOf(result, context(1)).kind, JSON.stringify(result)).toBe('retry');
  });

  it('retries for 24 hours from the first failure, then pauses with the last answer', () => {
    const justBefore = verdictOf(answered(503), context(30, NOW - 24 * HOUR + 1));
    expect(justBefore.kind).toBe('retry');
    const after = verdictOf(answered(503), context(31, NOW - 24 * HOUR));
    expect(after).toEqual({ kind: 'pause', reason: expect.stringMatching(/24 hours.*503/) });
  });

  it('honours Retry-After, in seconds or as a date, when it asks for longer than the backoff', () => {
    expect(verdictOf(answered(429, '120'), context(1))).toEqual({ kind: 'retry', at: NOW + 120_000 });
    const date = new Date(NOW + 600_000).toUTCString();
    expect(verdictOf(answered(503, date), context(1))).toEqual({ kind: 'retry', at: NOW + 600_000 });
    // Shorter than the backoff: the backoff.
    expect(verdictOf(answered(429, '0'), context(1))).toEqual({
      kind: 'retry',
      at: NOW + backoffMs(1, RETRY_POLICY, () => 0.5),
    });
  });
});

describe('the backoff', () => {
  it('doubles from the base to the cap, jittered between half and all of it', () => {
    expect(backoffMs(1, RETRY_POLICY, () => 0)).toBe(2_500);
    expect(backoffMs(1, RETRY_POLICY, () => 1)).toBe(5_000);
    expect(backoffMs(2, RETRY_POLICY, () => 1)).toBe(10_000);
    expect(backoffMs(12, RETRY_POLICY, () => 1)).toBe(HOUR);
    expect(backoffMs(1000, RETRY_POLICY, () => 0)).toBe(HOUR / 2);
  });

  it('gives at least 24 hours of attempts at the cap in fewer than 60 attempts', () => {
    let elapsed = 0;
    let attempts = 0;
    while (elapsed < 24 * HOUR) elapsed += backoffMs(++attempts, RETRY_POLICY, () => 0.5);
    expect(attempts).toBeLessThan(60);
  });
});

describe('Retry-After', () => {
  it('reads delay-seconds and HTTP-dates; anything else is none', () => {
    expect(retryAfterMs('5', NOW)).toBe(5_000);
    expect(retryAfterMs(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30_000);
    expect(retryAfterMs(new Date(NOW - 30_000).toUTCString(), NOW)).toBe(0);
    for (const value of [undefined, '', 'soon', '-5', '1.5'])
      expect(retryAfterMs(value, NOW), String(value)).toBeUndefined();
  });
});

describe('a delivery signed', () => {
  const body = JSON.stringify({ specversion: '1.0', id: '30911', type: 'person.updated' });
  const at = new Date(NOW);

  it('verifies with the standardwebhooks library, and is the HMAC Standard Webhooks 1.0 says', () => {
    const secret = newSecret();
    const headers = signedHeaders('30911', body, [secret], at);
    expect(headers['webhook-id']).toBe('30911');
    expect(headers['webhook-timestamp']).toBe(String(NOW / 1000));
    const mac = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`30911.${NOW / 1000}.${body}`)
      .digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${mac}`);
    const receiver = new Webhook(secret);
    // The library checks the timestamp against its clock: verify as of the time it was signed.
    const realNow = Date.now;
    Date.now = () => NOW;
    try {
      expect(receiver.verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => receiver.verify(`${body} `, headers)).toThrow();
    } finally {
      Date.now = realNow;
    }
  });

  it('carries a signature per secret while two sign, each verifying with its own', () => {
    const [old, current] = [newSecret(), newSecret()];
    const headers = signedHeaders('7', body, [old, current], at);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    const realNow = Date.now;
    Date.now = () => NOW;
    try {
      for (const secret of [old, current]) expect(new Webhook(secret).verify(body, headers)).toBeTruthy();
      expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    } finally {
      Date.now = realNow;
    }
  });
});
