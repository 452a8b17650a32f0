/**
 * A subscription's delivery lane (API.md 16) against DynamoDB Local and receivers on loopback: events
 * appended after the subscription go out in feed order, signed, only the types it takes; failures are
 * retried until delivered, each event delivered once; 429's Retry-After is honoured; 410, an address
 * refused at delivery and retries spent pause it, saying why, and a resume goes on from the event it
 * stopped on; one runner holds a lane at a time; a slow receiver holds up no other subscription; a
 * replay delivers again from a position.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedLog } from '../../lib/db/feed/feed-log';
import { laneStore } from '../../lib/db/webhooks/lane-store';
import { subscriptionStore } from '../../lib/db/webhooks/subscription-store';
import { NO_ORIGIN } from '../../lib/domain/change-history';
import { type FeedEvent, feedEventOf } from '../../lib/domain/feed';
import { CreatePersonBody } from '../../lib/domain/schemas';
import { newSecret, newSubscription } from '../../lib/domain/subscriptions';
import { laneRunner } from '../../lib/webhooks/deliver-lane';
import { localSecretBox } from '../../lib/webhooks/secret-box';
import { personBody, uniqueEmail } from '../support/api';
import { createTestTable, type TestTable, testRepository } from '../support/dynamo';

const BASE_URL = 'http://127.0.0.1:3000';
const box = localSecretBox(randomBytes(32).toString('base64url'));
const policy = { baseMs: 20, maxMs: 80, retryForMs: 60_000 };

let table: TestTable;
let requester: number;
let nextId = 1_000_000 + Math.floor(Math.random() * 1_000_000);

beforeAll(async () => {
  table = await createTestTable();
  const person = await testRepository(table).create(
    CreatePersonBody.parse(personBody('Lane', 'Tester', uniqueEmail('lanes'))),
    0,
  );
  requester = person.person.id;
});

/** A change of person `objectId`, the next event of the feed. */
const change = (objectId: number, version: number, type: 'create' | 'update' = 'update'): FeedEvent =>
  feedEventOf({
    id: nextId++,
    endpoint: 'Person',
    object_id: objectId,
    version,
    action: type,
    requester: objectId,
    at: new Date(Date.now() + nextId).toISOString(),
    changed: ['/Emails'],
    provider_data: NO_ORIGIN,
  });

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on loopback: it records every request and answers as `answer` says for each. */
const receiver = async (
  answer: (count: number) => { status: number; headers?: Record<string, string>; delayMs?: number },
) => {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const { status, headers = {}, delayMs = 0 } = answer(received.length);
      setTimeout(() => response.writeHead(status, headers).end('ok'), delayMs);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  servers.push(server);
  return { url, received };
};
const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) server.close();
});

const storage = () => ({
  subscriptions: subscriptionStore(table),
  lanes: laneStore(table),
  feed: feedLog(table),
});

/** A subscription to `url`, its lane at the feed's end, and its secret. */
const subscribe = async (url: string, types = ['*']) => {
  const id = crypto.randomUUID();
  const secret = newSecret();
  await storage().subscriptions.create(
    newSubscription(id, { url, types }, await box.seal(secret, id), { requester, now: new Date() }),
  );
  return { id, secret };
};

const runner = (guard = { allowLoopback: true }) =>
  laneRunner({ ...storage(), box, baseUrl: BASE_URL, guard, policy });

/** Runs a lane until it is idle (or paused), waiting out its retries. */
const runUntilSettled = async (id: string, run = runner()) => {
  for (let runs = 0; runs < 50; runs++) {
    const outcome = await run.run(id);
    if (outcome.kind !== 'waiting') return outcome;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, outcome.until - Date.now())));
  }
  throw new Error('The lane never settled');
};

const deliveredIds = (received: Received[]) => received.map(({ headers }) => headers['webhook-id']);

describe('a lane', () => {
  it('delivers the events appended after the subscription, in feed order, signed, of its types only', async () => {
    await storage().feed.append([change(1, 1, 'create')]);
    const { url, received } = await receiver(() => ({ status: 204 }));
    const { id, secret } = await subscribe(url, ['person.updated']);
    const events = [change(11, 2), change(12, 1, 'create'), change(11, 3), change(13, 2)];
    for (const event of events) await storage().feed.append([event]);

    expect(await runUntilSettled(id)).toEqual({ kind: 'idle' });
    const updates = events.filter((event) => event.type === 'person.updated');
    expect(deliveredIds(received)).toEqual(updates.map((event) => String(event.id)));
    const webhook = new Webhook(secret);
    for (const { headers, body } of received) {
      const event = webhook.verify(body, headers as Record<string, string>) as Record<string, unknown>;
      expect(event).toMatchObject({ specversion: '1.0', type: 'person.updated', source: BASE_URL });
      expect(headers['content-type']).toBe('application/json');
    }
    const { deliveries } = await storage().lanes.deliveries(id, 10);
    expect(deliveries.map((delivery) => [delivery.event, delivery.outcome, delivery.status])).toEqual(
      [...updates].reverse().map((event) => [event.id, 'delivered', 204]),
    );
    // Nothing new: nothing sent again.
    expect(await runner().run(id)).toEqual({ kind: 'idle' });
    expect(received).toHaveLength(updates.length);
  });

  it('retries a failing receiver until it takes the event: each event once, in order', async () => {
    const { url, received } = await receiver((count) => ({ status: count <= 3 ? 503 : 200 }));
    const { id } = await subscribe(url);
    const events = [change(21, 2), change(22, 2), change(23, 2)];
    await storage().feed.append(events);

    expect(await runUntilSettled(id)).toEqual({ kind: 'idle' });
    const accepted = received.slice(3);
    expect(deliveredIds(accepted)).toEqual(events.map((event) => String(event.id)));
    expect(deliveredIds(received.slice(0, 3))).toEqual(Array(3).fill(String(events[0]?.id)));
    const { deliveries } = await storage().lanes.deliveries(id, 10);
    expect(deliveries.filter((delivery) => delivery.event === events[0]?.id).map((d) => d.attempt)).toEqual([
      4, 3, 2, 1,
    ]);
  });

  it("waits as long as a 429's Retry-After asks", async () => {
    const { url } = await receiver(() => ({ status: 429, headers: { 'retry-after': '30' } }));
    const { id } = await subscribe(url);
    await storage().feed.append([change(31, 2)]);
    const before = Date.now();
    const outcome = await runner().run(id);
    expect(outcome.kind).toBe('waiting');
    expect(outcome.kind === 'waiting' && outcome.until - before).toBeGreaterThanOrEqual(30_000);
    // Until then, a run sends nothing.
    expect(await runner().run(id)).toEqual(outcome);
  });

  it('pauses at once on 410, saying why, and a resume goes on from the event it stopped on', async () => {
    let gone = true;
    const { url, received } = await receiver(() => ({ status: gone ? 410 : 200 }));
    const { id } = await subscribe(url);
    const events = [change(41, 2), change(42, 2)];
    await storage().feed.append(events);

    expect(await runner().run(id)).toEqual({ kind: 'paused' });
    const paused = await storage().subscriptions.get(id);
    expect(paused).toMatchObject({ paused: true, paused_reason: expect.stringMatching(/410/) });
    expect(received).toHaveLength(1);

    gone = false;
    await storage().subscriptions.update(id, requester, (stored) => ({
      ...stored,
      paused: false,
      paused_reason: null,
    }));
    expect(await runUntilSettled(id)).toEqual({ kind: 'idle' });
    expect(deliveredIds(received.slice(1))).toEqual(events.map((event) => String(event.id)));
  });

  it('pauses when an event has failed for the whole retry window', async () => {
    const { url } = await receiver(() => ({ status: 500 }));
    const { id } = await subscribe(url);
    await storage().feed.append([change(51, 2)]);
    const short = laneRunner({
      ...storage(),
      box,
      baseUrl: BASE_URL,
      guard: { allowLoopback: true },
      policy: { ...policy, retryForMs: 150 },
    });
    expect(await runUntilSettled(id, short)).toEqual({ kind: 'paused' });
    expect((await storage().subscriptions.get(id)).paused_reason).toMatch(/Retries ran out.*500/);
  });

  it('pauses when the URL resolves to a refused address at delivery, sending nothing', async () => {
    const { id } = await subscribe('https://hooks.example.org/x');
    await storage().feed.append([change(61, 2)]);
    const rebound = runner({
      allowLoopback: false,
      resolve: async () => [{ address: '169.254.169.254', family: 4 }],
    } as never);
    expect(await rebound.run(id)).toEqual({ kind: 'paused' });
    expect((await storage().subscriptions.get(id)).paused_reason).toMatch(/metadata/);
    const { deliveries } = await storage().lanes.deliveries(id, 10);
    expect(deliveries.map((delivery) => delivery.outcome)).toEqual(['forbidden']);
  });

  it('is run by one runner at a time', async () => {
    const { url, received } = await receiver(() => ({ status: 200, delayMs: 300 }));
    const { id } = await subscribe(url);
    await storage().feed.append([change(71, 2)]);
    const outcomes = await Promise.all([runner().run(id), runner().run(id)]);
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(['busy', 'idle']);
    expect(received).toHaveLength(1);
  });

  it('is not held up by another subscription’s slow receiver', async () => {
    const slow = await receiver(() => ({ status: 200, delayMs: 3_000 }));
    const fast = await receiver(() => ({ status: 200 }));
    const [slowSub, fastSub] = [await subscribe(slow.url), await subscribe(fast.url)];
    await storage().feed.append([change(81, 2), change(82, 2)]);
    const started = Date.now();
    const slowRun = runner().run(slowSub.id);
    expect(await runner().run(fastSub.id)).toEqual({ kind: 'idle' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(fast.received).toHaveLength(2);
    expect(await slowRun).toEqual({ kind: 'idle' });
  });

  it('delivers again from a position a replay sets', async () => {
    const { url, received } = await receiver(() => ({ status: 200 }));
    const { id } = await subscribe(url);
    const from = await storage().feed.head();
    const events = [change(91, 2), change(92, 2)];
    await storage().feed.append(events);
    expect(await runUntilSettled(id)).toEqual({ kind: 'idle' });
    expect(await storage().lanes.replay(id, from, requester)).toBe(true);
    expect(await runUntilSettled(id)).toEqual({ kind: 'idle' });
    expect(deliveredIds(received)).toEqual([...events, ...events].map((event) => String(event.id)));
  });
});
