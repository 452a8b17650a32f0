import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../lib/domain/feed';
import {
  isSubscriptionId,
  newSecret,
  newSubscription,
  patchedSubscription,
  ROTATION_OVERLAP_MS,
  rotatedSubscription,
  SubscriptionBody,
  SubscriptionPatch,
  signingSecrets,
  subscriptionOut,
  takesType,
} from '../../../lib/domain/subscriptions';

const NOW = new Date('2026-11-29T10:00:00.000Z');
const LINKS = { baseUrl: 'http://127.0.0.1:3000', contextUrl: 'http://127.0.0.1:3000/context.jsonld' };
const ID = '3f1c2a9e-6b7d-4e21-9a4f-0c8d5e7b1a62';
const later = (ms: number) => new Date(NOW.getTime() + ms);

const made = () =>
  newSubscription(ID, { url: 'https://hooks.example.org/a', types: ['person.*'] }, 'sealed-1', {
    requester: 7,
    now: NOW,
  });

describe('which events a subscription takes', () => {
  it('takes a type by its name, by a prefix before *, and every type with *', () => {
    expect(takesType(['person.*'], 'person.erased')).toBe(true);
    expect(takesType(['person.*'], 'nameprefix.created')).toBe(false);
    expect(takesType(['person.created'], 'person.created')).toBe(true);
    expect(takesType(['person.created'], 'person.created.x')).toBe(false);
    for (const type of EVENT_TYPES) expect(takesType(['*'], type)).toBe(true);
    expect(takesType(['duplicate.detected', 'person.merged'], 'person.merged')).toBe(true);
  });

  it('refuses a pattern that matches no event type (a typo subscribes to nothing, silently)', () => {
    for (const types of [['person.create'], ['people.*'], ['Person.created'], ['']])
      expect(SubscriptionBody.safeParse({ url: 'https://x.example', types }).success, types.join()).toBe(
        false,
      );
    expect(SubscriptionBody.safeParse({ url: 'https://x.example', types: [] }).success).toBe(false);
    expect(SubscriptionBody.safeParse({ url: 'https://x.example', types: ['person.*', '*'] }).success).toBe(
      true,
    );
  });

  it('takes every type when types is left out', () => {
    const body = SubscriptionBody.parse({ url: 'https://x.example' });
    expect(newSubscription(ID, body, 's', { requester: 1, now: NOW }).types).toEqual(['*']);
  });

  it('refuses fields it does not know, and ignores what GET shows', () => {
    expect(SubscriptionBody.safeParse({ url: 'https://x.example', secret: 'whsec_x' }).success).toBe(false);
    expect(SubscriptionPatch.safeParse({ paused: 'yes' }).success).toBe(false);
    const shown = subscriptionOut(made(), LINKS);
    expect(SubscriptionPatch.parse({ ...shown, paused: true })).toMatchObject({ paused: true });
  });
});

describe('a subscription written', () => {
  it('is made live, version 1, by its requester, with one secret', () => {
    const subscription = made();
    expect(subscription).toMatchObject({
      id: ID,
      paused: false,
      paused_reason: null,
      description: null,
      CoreMetaData: { version: 1, created_by: 7, modified_by: 7, date_created: NOW.toISOString() },
      secrets: [{ sealed: 'sealed-1', created: NOW.toISOString() }],
    });
  });

  it('pauses with who paused it, and resuming clears the reason whatever paused it', () => {
    const paused = patchedSubscription(made(), { paused: true }, { requester: 9, now: later(1) });
    expect(paused).toMatchObject({ paused: true, paused_reason: 'Paused by person 9' });
    expect(paused?.CoreMetaData).toMatchObject({ version: 2, modified_by: 9, created_by: 7 });
    const byReceiver = { ...made(), paused: true, paused_reason: 'The receiver answered 410 Gone' };
    const resumed = patchedSubscription(byReceiver, { paused: false }, { requester: 9, now: later(2) });
    expect(resumed).toMatchObject({ paused: false, paused_reason: null });
  });

  it('writes nothing when nothing changes', () => {
    const subscription = made();
    const same = { url: subscription.url, types: ['person.*'], paused: false, description: null };
    expect(patchedSubscription(subscription, same, { requester: 9, now: later(1) })).toBeNull();
    expect(patchedSubscription(subscription, {}, { requester: 9, now: later(1) })).toBeNull();
    expect(
      patchedSubscription(subscription, { types: ['*'] }, { requester: 9, now: later(1) })?.types,
    ).toEqual(['*']);
  });
});

describe('secrets', () => {
  it('are whsec_ and 32 random bytes of base64, a new one each time', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });

  it('sign two at a time for 24 hours after a rotation, then only the new one', () => {
    const rotated = rotatedSubscription(made(), 'sealed-2', { requester: 7, now: later(1000) });
    expect(rotated.CoreMetaData.version).toBe(2);
    expect(signingSecrets(rotated, later(2000)).map((secret) => secret.sealed)).toEqual([
      'sealed-1',
      'sealed-2',
    ]);
    expect(
      signingSecrets(rotated, later(1000 + ROTATION_OVERLAP_MS - 1)).map((secret) => secret.sealed),
    ).toEqual(['sealed-1', 'sealed-2']);
    expect(signingSecrets(rotated, later(1000 + ROTATION_OVERLAP_MS)).map((secret) => secret.sealed)).toEqual(
      ['sealed-2'],
    );
  });

  it('keep each rotated one its own 24 hours, and drop those past theirs at the next rotation', () => {
    const once = rotatedSubscription(made(), 'sealed-2', { requester: 7, now: later(0) });
    const twice = rotatedSubscription(once, 'sealed-3', { requester: 7, now: later(3_600_000) });
    expect(twice.secrets.map((secret) => [secret.sealed, secret.expires])).toEqual([
      ['sealed-1', later(ROTATION_OVERLAP_MS).toISOString()],
      ['sealed-2', later(3_600_000 + ROTATION_OVERLAP_MS).toISOString()],
      ['sealed-3', undefined],
    ]);
    const thrice = rotatedSubscription(twice, 'sealed-4', {
      requester: 7,
      now: later(ROTATION_OVERLAP_MS + 1),
    });
    expect(thrice.secrets.map((secret) => secret.sealed)).toEqual(['sealed-2', 'sealed-3', 'sealed-4']);
  });

  it('are never shown, but for the one secret the answer of a create or a rotation carries', () => {
    const shown = subscriptionOut(made(), LINKS);
    expect(shown).not.toHaveProperty('secrets');
    expect(shown).not.toHaveProperty('secret');
    expect(JSON.stringify(shown)).not.toContain('sealed-1');
    expect(subscriptionOut(made(), LINKS, 'whsec_abc')).toMatchObject({
      '@type': 'Subscription',
      '@id': `${LINKS.baseUrl}/Subscription/${ID}`,
      secret: 'whsec_abc',
    });
  });
});

describe('subscription ids', () => {
  it('are random UUIDs (v4), lower case; anything else names none', () => {
    expect(isSubscriptionId(ID)).toBe(true);
    expect(isSubscriptionId(crypto.randomUUID())).toBe(true);
    for (const id of [ID.toUpperCase(), '1', '', `${ID}x`, '3f1c2a9e-6b7d-1e21-9a4f-0c8d5e7b1a62'])
      expect(isSubscriptionId(id), id).toBe(false);
  });
});
