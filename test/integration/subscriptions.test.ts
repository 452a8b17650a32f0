/**
 * Webhook subscriptions (API.md 16) on the handlers against DynamoDB Local: create with the secret
 * shown once and kept sealed (also in a keyed create's kept answer), list, read, patch, pause and
 * resume, rotate, delete; URLs the SSRF guard refuses, refused requesters and stale versions change
 * nothing.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { buildHandler as buildCreate } from '../../functions/create-subscription';
import { buildHandler as buildDelete } from '../../functions/delete-subscription';
import { buildHandler as buildGet } from '../../functions/get-subscription';
import { buildHandler as buildDeliveries } from '../../functions/list-deliveries';
import { buildHandler as buildList } from '../../functions/list-subscriptions';
import { buildHandler as buildReplay } from '../../functions/replay-subscription';
import { buildHandler as buildRotate } from '../../functions/rotate-subscription-secret';
import { buildHandler as buildUpdate } from '../../functions/update-subscription';
import { idempotencyStore } from '../../lib/db/idempotency/idempotency-store';
import { subscriptionKey, subscriptionLaneKey } from '../../lib/db/table/keys';
import { laneStore } from '../../lib/db/webhooks/lane-store';
import { subscriptionStore } from '../../lib/db/webhooks/subscription-store';
import { encodeFeedCursor, FEED_START } from '../../lib/domain/feed';
import type { StoredSubscription } from '../../lib/domain/subscriptions';
import { localClientConfig } from '../../lib/local/dynamo-local';
import { localSecretBox } from '../../lib/webhooks/secret-box';
import type { Resolve } from '../../lib/webhooks/url-guard';
import { type Json, personBody, uniqueEmail } from '../support/api';
import { httpEvent, invoke } from '../support/events';
import { scanAll } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const box = localSecretBox(randomBytes(32).toString('base64url'));

/** A resolver as a DNS answer would be: public names to a public address, one name to a private one. */
const resolve: Resolve = async (host) =>
  host === 'internal.example.org'
    ? [{ address: '10.0.0.7', family: 4 }]
    : [{ address: '93.184.216.34', family: 4 }];

let handlers: {
  create: ReturnType<typeof buildCreate>;
  list: ReturnType<typeof buildList>;
  get: ReturnType<typeof buildGet>;
  update: ReturnType<typeof buildUpdate>;
  remove: ReturnType<typeof buildDelete>;
  rotate: ReturnType<typeof buildRotate>;
  deliveries: ReturnType<typeof buildDeliveries>;
  replay: ReturnType<typeof buildReplay>;
};
const CURSOR_KEY = 'the feed cursor key of this file';
let requester: number;

beforeAll(async () => {
  const subscriptions = subscriptionStore(suite.table);
  const raw = new DynamoDBClient(localClientConfig(inject('dynamoEndpoint')));
  const idempotency = { store: idempotencyStore({ client: raw, tableName: suite.table.tableName }) };
  handlers = {
    create: buildCreate({ subscriptions, box, resolve, idempotency }),
    list: buildList({ subscriptions }),
    get: buildGet({ subscriptions }),
    update: buildUpdate({ subscriptions, resolve, idempotency }),
    remove: buildDelete({ subscriptions }),
    rotate: buildRotate({ subscriptions, box, idempotency }),
    deliveries: buildDeliveries({ subscriptions, lanes: laneStore(suite.table) }),
    replay: buildReplay({ lanes: laneStore(suite.table), cursorKey: async () => CURSOR_KEY, idempotency }),
  };
  const { status, body } = await suite.api.post(personBody('Sub', 'Scriber', uniqueEmail('subscriber')));
  expect(status).toBe(201);
  requester = (body as { id: number }).id;
});

const ROUTE = '/Subscription/{id}';
/** A subscription's item route, or one under it (`suffix`: `/rotate`, `/deliveries`, `/replay`). */
const at = (id: string, suffix = '') => ({
  route: `${ROUTE}${suffix}`,
  path: `/Subscription/${id}${suffix}`,
  pathParameters: { id },
});
const asRequester = (headers: Record<string, string> = {}) => ({
  'x-requester-person': String(requester),
  ...headers,
});

const create = (body: unknown, headers: Record<string, string> = {}) =>
  invoke<Json>(
    handlers.create,
    httpEvent({ method: 'POST', route: '/Subscription', headers: asRequester(headers), body }),
  );
const get = (id: string, headers: Record<string, string> = {}) =>
  invoke<Json>(handlers.get, httpEvent({ method: 'GET', ...at(id), headers }));
const patch = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  invoke<Json>(
    handlers.update,
    httpEvent({ method: 'PATCH', ...at(id), headers: asRequester(headers), body }),
  );
const rotate = (id: string, headers: Record<string, string> = {}) =>
  invoke<Json>(
    handlers.rotate,
    httpEvent({
      method: 'POST',
      ...at(id, '/rotate'),
      headers: asRequester(headers),
    }),
  );
const remove = (id: string, headers: Record<string, string> = {}) =>
  invoke<Json>(handlers.remove, httpEvent({ method: 'DELETE', ...at(id), headers: asRequester(headers) }));

const stored = async (id: string) =>
  (
    await suite.table.client.send(
      new GetCommand({ TableName: suite.table.tableName, Key: subscriptionKey(id) }),
    )
  ).Item as StoredSubscription & Record<string, unknown>;

const made = async (body: Json = {}) => {
  const answer = await create({ url: 'https://hooks.example.org/persons', ...body });
  expect(answer.status).toBe(201);
  return answer;
};

describe('POST /Subscription', () => {
  it('answers 201 with Location, ETag and the secret, which is kept sealed and never shown again', async () => {
    const { status, headers, body } = await create({
      url: 'https://hooks.example.org/persons',
      types: ['person.*', 'duplicate.detected'],
      description: 'Directory sync',
    });
    expect(status).toBe(201);
    const id = body.id as string;
    expect(headers.location).toBe(body['@id']);
    expect(headers.location).toMatch(new RegExp(`^https?://[^/]+/Subscription/${id}$`));
    expect(headers.etag).toBe('"1"');
    expect(body).toMatchObject({
      '@type': 'Subscription',
      url: 'https://hooks.example.org/persons',
      types: ['person.*', 'duplicate.detected'],
      description: 'Directory sync',
      paused: false,
      paused_reason: null,
      CoreMetaData: { version: 1, created_by: requester, modified_by: requester },
    });
    const secret = body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const item = await stored(id);
    expect(JSON.stringify(item)).not.toContain(secret.slice(6));
    expect(await box.open(item.secrets[0]?.sealed ?? '', id)).toBe(secret);

    const again = await get(id);
    expect(again.status).toBe(200);
    expect(again.body).not.toHaveProperty('secret');
    expect(JSON.stringify(again.body)).not.toContain(item.secrets[0]?.sealed ?? '?');
  });

  it('takes every event type when types is left out, and keeps the URL as WHATWG URL writes it', async () => {
    const { body } = await made({ url: 'HTTPS://Hooks.Example.org:443/a/../b?x=1' });
    expect(body).toMatchObject({ url: 'https://hooks.example.org/b?x=1', types: ['*'], description: null });
  });

  it('refuses a URL that is not https, or whose host is or resolves to an internal address: 400, nothing stored', async () => {
    const refused = [
      'http://hooks.example.org/x',
      'https://169.254.169.254/latest/meta-data',
      'https://10.1.2.3/x',
      'https://127.0.0.1:8080/x',
      'https://[::1]/x',
      'https://[::ffff:10.0.0.1]/x',
      'https://2130706433/x',
      'https://internal.example.org/x',
      'https://user:pass@hooks.example.org/x',
    ];
    for (const url of refused) {
      const { status, body } = await suite.unchangedBy(() => create({ url }));
      expect(status, url).toBe(400);
      expect(body.type, url).toBe('/problems/webhook-url-refused');
      expect(body.detail, url).toMatch(/./);
    }
  });

  it('refuses a body that breaks the schema, and an unknown requester, changing nothing', async () => {
    for (const body of [{}, { url: 'https://hooks.example.org/x', types: ['person.create'] }, { url: 5 }]) {
      const { status, body: problem } = await suite.unchangedBy(() => create(body));
      expect(status, JSON.stringify(body)).toBe(400);
      expect(problem.type).toBe('/problems/validation-error');
    }
    const unknown = await suite.unchangedBy(() =>
      create({ url: 'https://hooks.example.org/x' }, { 'x-requester-person': '999999999' }),
    );
    expect(unknown.body.type).toBe('/problems/unknown-requester');
  });

  it('answers a keyed retry with the same secret, kept sealed in the stored answer too', async () => {
    const key = `sub-${randomBytes(6).toString('hex')}`;
    const first = await create({ url: 'https://hooks.example.org/keyed' }, { 'idempotency-key': key });
    const retry = await create({ url: 'https://hooks.example.org/keyed' }, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    const secret = first.body.secret as string;
    const records = (await scanAll(suite.table)).filter((item) => String(item.pk).startsWith('IDEMPOTENCY#'));
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) expect(JSON.stringify(record)).not.toContain(secret.slice(6));
  });
});

describe('GET /Subscription and /Subscription/{id}', () => {
  it('lists every subscription oldest first in the PaginatedList envelope, without secrets', async () => {
    const one = await made({ description: 'first of the list' });
    const two = await made({ description: 'second of the list' });
    const { status, body } = await invoke<Json>(
      handlers.list,
      httpEvent({ method: 'GET', route: '/Subscription', query: { perPage: '100' } }),
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ '@type': 'PaginatedList', itemType: 'Subscription', page: 1, perPage: 100 });
    const ids = (body.items as Json[]).map((item) => item.id);
    expect(ids.indexOf(one.body.id)).toBeLessThan(ids.indexOf(two.body.id));
    expect(JSON.stringify(body)).not.toMatch(/whsec_|"secrets"/);
  });

  it('answers 304 to If-None-Match of the current version, 404 for an unknown or malformed id', async () => {
    const { body } = await made();
    const id = body.id as string;
    expect((await get(id, { 'if-none-match': '"1"' })).status).toBe(304);
    for (const other of [crypto.randomUUID(), 'abc', '1'])
      expect((await get(other)).body.type, other).toBe('/problems/not-found');
  });
});

describe('PATCH /Subscription/{id}', () => {
  it('changes the fields sent, one version on; pausing says who, resuming clears it', async () => {
    const { body } = await made();
    const id = body.id as string;
    const paused = await patch(id, { paused: true, types: ['person.erased'] }, { 'if-match': '"1"' });
    expect(paused.status).toBe(200);
    expect(paused.headers.etag).toBe('"2"');
    expect(paused.body).toMatchObject({
      paused: true,
      paused_reason: `Paused by person ${requester}`,
      types: ['person.erased'],
      CoreMetaData: { version: 2 },
    });
    const resumed = await patch(id, { paused: false });
    expect(resumed.body).toMatchObject({ paused: false, paused_reason: null, CoreMetaData: { version: 3 } });
    const same = await patch(id, { paused: false });
    expect(same.body).toMatchObject({ CoreMetaData: { version: 3 } });
    // The secret is the one it was made with, whatever changed.
    expect((await stored(id)).secrets).toHaveLength(1);
  });

  it('refuses a stale If-Match (412), a refused URL (400) and an unknown field (400), changing nothing', async () => {
    const { body } = await made();
    const id = body.id as string;
    expect((await suite.unchangedBy(() => patch(id, { paused: true }, { 'if-match': '"7"' }))).status).toBe(
      412,
    );
    const refused = await suite.unchangedBy(() => patch(id, { url: 'https://internal.example.org/x' }));
    expect(refused.body.type).toBe('/problems/webhook-url-refused');
    expect((await suite.unchangedBy(() => patch(id, { secret: 'whsec_x' }))).status).toBe(400);
    expect((await suite.unchangedBy(() => patch(crypto.randomUUID(), { paused: true }))).status).toBe(404);
  });
});

describe('POST /Subscription/{id}/rotate', () => {
  it('answers a new secret once; the old one keeps signing for 24 hours beside it', async () => {
    const { body } = await made();
    const id = body.id as string;
    const rotated = await rotate(id);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.etag).toBe('"2"');
    const secret = rotated.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(body.secret);
    const { secrets } = await stored(id);
    expect(secrets).toHaveLength(2);
    expect(await box.open(secrets[0]?.sealed ?? '', id)).toBe(body.secret);
    expect(await box.open(secrets[1]?.sealed ?? '', id)).toBe(secret);
    const overlap = Date.parse(secrets[0]?.expires ?? '') - Date.parse(secrets[1]?.created ?? '');
    expect(overlap).toBe(24 * 60 * 60 * 1000);
    expect(secrets[1]?.expires).toBeUndefined();
    expect((await get(id)).body).not.toHaveProperty('secret');
  });

  it('is 404 for no subscription', async () => {
    expect((await suite.unchangedBy(() => rotate(crypto.randomUUID()))).status).toBe(404);
  });
});

describe('DELETE /Subscription/{id}', () => {
  it('answers 204, and the subscription is gone (404 after)', async () => {
    const { body } = await made();
    const id = body.id as string;
    expect((await suite.unchangedBy(() => remove(id, { 'if-match': '"9"' }))).status).toBe(412);
    expect((await remove(id)).status).toBe(204);
    expect((await get(id)).status).toBe(404);
    expect((await remove(id)).status).toBe(404);
    expect(await stored(id)).toBeUndefined();
  });
});

describe('GET /Subscription/{id}/deliveries', () => {
  const deliveries = (id: string, query: Record<string, string> = {}) =>
    invoke<Json>(
      handlers.deliveries,
      httpEvent({
        method: 'GET',
        ...at(id, '/deliveries'),
        query,
      }),
    );

  it('lists every attempt newest first, a page at a time', async () => {
    const { body } = await made();
    const id = body.id as string;
    const lanes = laneStore(suite.table);
    const at = (second: number) => new Date(Date.UTC(2026, 10, 29, 10, 0, second)).toISOString();
    for (const attempt of [1, 2, 3])
      await lanes.record(id, {
        event: 77,
        type: 'person.updated',
        at: at(attempt),
        status: attempt < 3 ? 503 : 204,
        outcome: attempt < 3 ? 'failed' : 'delivered',
        duration_ms: 12,
        attempt,
        ...(attempt < 3 ? { error: 'the receiver answered 503' } : {}),
      });
    const first = await deliveries(id, { limit: '2' });
    expect(first.status).toBe(200);
    expect(first.body['@type']).toBe('DeliveryPage');
    expect(first.body.deliveries).toEqual([
      {
        event: 77,
        type: 'person.updated',
        at: at(3),
        status: 204,
        outcome: 'delivered',
        duration_ms: 12,
        attempt: 3,
      },
      {
        event: 77,
        type: 'person.updated',
        at: at(2),
        status: 503,
        outcome: 'failed',
        duration_ms: 12,
        attempt: 2,
        error: 'the receiver answered 503',
      },
    ]);
    const rest = await deliveries(id, { limit: '2', after: first.body.next as string });
    expect((rest.body.deliveries as Json[]).map((delivery) => delivery.attempt)).toEqual([1]);
    expect(rest.body.next).toBeNull();
  });

  it('is 404 for no subscription, 400 for a cursor it did not answer or a limit out of range', async () => {
    const { body } = await made();
    expect((await deliveries(crypto.randomUUID())).status).toBe(404);
    const refused: Record<string, string>[] = [
      { after: 'DELIVERY#x' },
      { limit: '0' },
      { limit: '101' },
      { since: '1' },
    ];
    for (const query of refused)
      expect((await deliveries(body.id as string, query)).status, JSON.stringify(query)).toBe(400);
  });
});

describe('POST /Subscription/{id}/replay', () => {
  const replay = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    invoke<Json>(
      handlers.replay,
      httpEvent({
        method: 'POST',
        ...at(id, '/replay'),
        headers: asRequester(headers),
        body,
      }),
    );
  const lane = async (id: string) =>
    (
      await suite.table.client.send(
        new GetCommand({ TableName: suite.table.tableName, Key: subscriptionLaneKey(id) }),
      )
    ).Item;

  it('sets the lane back to the position of a feed cursor, its retries forgotten: 202', async () => {
    const { body } = await made();
    const id = body.id as string;
    const position = [3, 1, 4, 1, 5, 9, 2, 6];
    const after = encodeFeedCursor(position, CURSOR_KEY);
    const answer = await replay(id, { after });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ '@type': 'Replay', subscription: body['@id'], after });
    expect(await lane(id)).toMatchObject({ position, attempt: 0 });
    expect(await lane(id)).not.toHaveProperty('next_attempt');
    const start = encodeFeedCursor(FEED_START, CURSOR_KEY);
    expect((await replay(id, { after: start })).status).toBe(202);
    expect((await lane(id))?.position).toEqual([...FEED_START]);
  });

  it('refuses a cursor of another key (400), an unknown subscription (404) and an unknown requester, changing nothing', async () => {
    const { body } = await made();
    const id = body.id as string;
    const forged = encodeFeedCursor(FEED_START, 'another key');
    expect((await suite.unchangedBy(() => replay(id, { after: forged }))).status).toBe(400);
    expect((await suite.unchangedBy(() => replay(id, {}))).status).toBe(400);
    const valid = encodeFeedCursor(FEED_START, CURSOR_KEY);
    expect((await suite.unchangedBy(() => replay(crypto.randomUUID(), { after: valid }))).status).toBe(404);
    const stranger = await suite.unchangedBy(() =>
      replay(id, { after: valid }, { 'x-requester-person': '999999999' }),
    );
    expect(stranger.body.type).toBe('/problems/unknown-requester');
  });
});
