/**
 * Webhooks (API.md 16), black box over real HTTP against `npm start` with `WEBHOOKS_ALLOW_LOOPBACK=on`
 * and receivers on loopback: every expectation here is read from API.md's text (sections 14, 16, 2.1,
 * 5.6, 7, 9), not from the code. Subscriptions: the secret shown once, list, read, patch, pause,
 * rotate, delete, and URLs refused. Deliveries: every change of a write burst, signed (verified with the
 * `standardwebhooks` library), in feed order, once; a receiver failing three times then succeeding;
 * a receiver taking 15 s holding up no other; 410; across a restart of `npm start --data`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail, uniqueTag } from '../support/api';
import { type RequestOptions, request } from '../support/http';
import { startServer } from '../support/server';
import { serverSuite } from '../support/server-suite';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions themselves
type Json = Record<string, any>;

/** Loopback receivers allowed; retries 50 ms apart at first; every lane started every 300 ms. */
const WEBHOOK_ENV = {
  ENRICHMENT: 'off',
  WEBHOOKS_ALLOW_LOOPBACK: 'on',
  WEBHOOKS_RETRY_BASE_MS: '50',
  WEBHOOKS_SWEEP_MS: '300',
};
const server = serverSuite({ env: WEBHOOK_ENV });
let base: string;
let requester: number;

const send = (method: string, path: string, options: Omit<RequestOptions, 'redirect'> = {}) =>
  request(base, method, path, { ...options, redirect: 'manual' });

const json = async (response: Response, status: number) => {
  const body = (await response.json()) as Json;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
};

/** A person of its own, unlike any other (the duplicates detector pairs namesakes). */
const personOf = (first: string) => ({
  Names: { '@set': [{ first_name: first, last_name: `Hookworth${uniqueTag('h')}` }] },
  Emails: { '@set': [{ email: uniqueEmail('hooks') }] },
});

const createPerson = async (at: string, first: string, by: number | string = 0) =>
  (await (await request(at, 'POST', '/Person', { body: personOf(first), requester: by })).json()) as Json;

beforeAll(async () => {
  base = server.url;
  requester = (await createPerson(base, 'Wilhelmina')).id;
  // A subscription is sent what the feed appends after it is made: the requester's own create is in
  // the feed before any test subscribes.
  await feedEventsAbout(base, [requester], 1);
});

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

const receivers: Server[] = [];
afterAll(() => {
  for (const receiver of receivers) receiver.close();
});

/**
 * A receiver on loopback: it records every request and answers `answer(count)` to the count-th,
 * `delayMs` after it came.
 */
const receiver = async (answer: (count: number) => number = () => 200, { delayMs = 0 } = {}) => {
  const received: Received[] = [];
  const listener = createServer((incoming, response) => {
    let body = '';
    incoming.on('data', (chunk) => {
      body += chunk;
    });
    incoming.on('end', () => {
      received.push({ headers: incoming.headers, body });
      const status = answer(received.length);
      setTimeout(() => response.writeHead(status).end(), delayMs);
    });
  });
  await new Promise<void>((listening) => listener.listen(0, '127.0.0.1', listening));
  receivers.push(listener);
  return { url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}/hook`, received };
};

/** Every event of the feed (GET /events from the start), oldest first. */
const feedOf = async (at: string) => {
  const events: Json[] = [];
  let after: string | undefined;
  for (;;) {
    const query = `/events?limit=500${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const page = (await (await request(at, 'GET', query)).json()) as Json;
    if (page.events.length === 0) return events;
    events.push(...page.events);
    after = page.next;
  }
};

/** Waits until `done()` holds, or fails after `ms`. */
const eventually = async (done: () => boolean | Promise<boolean>, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('Not within the time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** The events of these persons, in feed order, once each appended: what their subscriber must get. */
const feedEventsAbout = async (at: string, ids: readonly number[], count: number) => {
  const subjects = new Set(ids.map((id) => `Person/${id}`));
  let events: Json[] = [];
  await eventually(async () => {
    events = (await feedOf(at)).filter((event) => subjects.has(event.subject));
    return events.length >= count;
  });
  return events;
};

/** The events a receiver got, each verified against the secret (Standard Webhooks' own library). */
const verifiedEvents = (received: Received[], secret: string) => {
  const webhook = new Webhook(secret);
  return received.map(({ headers, body }) => {
    const event = webhook.verify(body, headers as Record<string, string>) as Json;
    expect(headers['webhook-id']).toBe(event.id);
    return event;
  });
};

const subscribe = (body: Json, options: Omit<RequestOptions, 'redirect' | 'body'> = {}) =>
  send('POST', '/Subscription', { body, requester, ...options });

describe('a subscription over HTTP', () => {
  it('is made with its secret shown once, then read, listed, paused, rotated and deleted', async () => {
    const response = await subscribe({
      url: 'http://127.0.0.1:9/hook',
      types: ['person.*'],
      description: 'Directory sync',
    });
    const made = await json(response, 201);
    expect(response.headers.get('location')).toBe(made['@id']);
    expect(response.headers.get('etag')).toBe('"1"');
    expect(made).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      types: ['person.*'],
      description: 'Directory sync',
    });
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);

    const read = await json(await send('GET', `/Subscription/${made.id}`), 200);
    expect(read).not.toHaveProperty('secret');
    const list = await json(await send('GET', '/Subscription?page=1&perPage=100'), 200);
    expect(list['@type']).toBe('PaginatedList');
    expect(list.items.map((item: Json) => item.id)).toContain(made.id);
    expect(JSON.stringify(list)).not.toContain(made.secret);

    const paused = await json(
      await send('PATCH', `/Subscription/${made.id}`, {
        body: { paused: true },
        requester,
        headers: { 'If-Match': '"1"' },
      }),
      200,
    );
    expect(paused).toMatchObject({ paused: true, CoreMetaData: { version: 2 } });
    expect(paused.paused_reason).toEqual(expect.any(String));
    const stale = await send('PATCH', `/Subscription/${made.id}`, {
      body: { paused: false },
      requester,
      headers: { 'If-Match': '"1"' },
    });
    expect(stale.status).toBe(412);

    const rotated = await json(await send('POST', `/Subscription/${made.id}/rotate`, { requester }), 200);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(made.secret);
    expect(await json(await send('GET', `/Subscription/${made.id}`), 200)).not.toHaveProperty('secret');

    expect((await send('DELETE', `/Subscription/${made.id}`, { requester })).status).toBe(204);
    expect((await send('GET', `/Subscription/${made.id}`)).status).toBe(404);
  });

  it('answers a keyed retry with the first answer, its secret included', async () => {
    const headers = { 'Idempotency-Key': `hook-${Date.now()}` };
    const first = await json(await subscribe({ url: 'http://127.0.0.1:9/keyed' }, { headers }), 201);
    const again = await json(await subscribe({ url: 'http://127.0.0.1:9/keyed' }, { headers }), 201);
    expect(again).toEqual(first);
  });

  it('refuses internal targets with 400 webhook-url-refused, saying why, and stores nothing', async () => {
    const before = await json(await send('GET', '/Subscription?page=1&perPage=100'), 200);
    for (const url of [
      'https://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/hook',
      'https://[fd00::1]/hook',
      'https://[::ffff:192.168.0.1]/hook',
      'https://0xa9fea9fe/hook',
      'https://0.0.0.0/hook',
      'https://224.0.0.1/hook',
      'ftp://127.0.0.1/hook',
    ]) {
      const problem = await json(await subscribe({ url }), 400);
      expect(problem.type, url).toMatch(/\/problems\/webhook-url-refused$/);
      expect(problem.detail, url).toEqual(expect.any(String));
    }
    const after = await json(await send('GET', '/Subscription?page=1&perPage=100'), 200);
    expect(after.total).toBe(before.total);
  });

  it('needs a requester that is a person, as person writes do', async () => {
    expect((await send('POST', '/Subscription', { body: { url: 'http://127.0.0.1:9/x' } })).status).toBe(400);
    expect((await subscribe({ url: 'http://127.0.0.1:9/x' }, { requester: 987654321 })).status).toBe(403);
  });
});

describe('deliveries over HTTP', () => {
  it('sends every change of a write burst to the subscriber, signed, in feed order, once', async () => {
    const { url, received } = await receiver();
    const made = await json(await subscribe({ url, types: ['person.*'] }), 201);
    const ids: number[] = [];
    for (const first of ['Ada', 'Grace', 'Edsger', 'Barbara']) ids.push((await createPerson(base, first)).id);
    for (const id of ids.slice(0, 2))
      await json(
        await send('PATCH', `/Person/${id}`, {
          body: { Emails: { '@set': [{ email: uniqueEmail('burst') }] } },
          requester: id,
        }),
        200,
      );
    const expected = await feedEventsAbout(base, ids, 6);
    await eventually(() => received.length >= expected.length);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(verifiedEvents(received, made.secret)).toEqual(expected);
  });

  it('sends every event once, in order, to a receiver that fails three times and then takes them', async () => {
    const { url, received } = await receiver((count) => (count <= 3 ? 503 : 204));
    const made = await json(await subscribe({ url, types: ['person.created'] }), 201);
    const ids = [(await createPerson(base, 'Radia')).id, (await createPerson(base, 'Frances')).id];
    const expected = await feedEventsAbout(base, ids, 2);
    await eventually(() => received.length >= 5);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = verifiedEvents(received, made.secret);
    expect(events.slice(0, 3).map((event) => event.id)).toEqual(Array(3).fill(expected[0]?.id));
    expect(events.slice(3)).toEqual(expected);
    // Every attempt is listed, newest first: event, time, status, duration.
    const { deliveries } = await json(await send('GET', `/Subscription/${made.id}/deliveries`), 200);
    expect(
      deliveries
        .map((delivery: Json) => [Number(delivery.event), delivery.status, delivery.outcome])
        .reverse(),
    ).toEqual([
      ...Array(3).fill([Number(expected[0]?.id), 503, 'failed']),
      ...expected.map((event) => [Number(event.id), 204, 'delivered']),
    ]);
    for (const delivery of deliveries) {
      expect(Date.parse(delivery.at)).not.toBeNaN();
      expect(delivery.duration_ms).toEqual(expect.any(Number));
    }
  });

  it('delivers again after a feed cursor a replay names', async () => {
    const { url, received } = await receiver();
    const made = await json(await subscribe({ url, types: ['person.created'] }), 201);
    let cursor: string | undefined;
    for (;;) {
      const page = await json(
        await send('GET', `/events?limit=500${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`),
        200,
      );
      if (page.events.length === 0) break;
      cursor = page.next;
    }
    const id = (await createPerson(base, 'Margaret')).id;
    const [created] = await feedEventsAbout(base, [id], 1);
    await eventually(() => received.length >= 1);
    const replay = await json(
      await send('POST', `/Subscription/${made.id}/replay`, { body: { after: cursor }, requester }),
      202,
    );
    expect(replay).toMatchObject({ '@type': 'Replay', after: cursor });
    await eventually(() => received.length >= 2);
    expect(verifiedEvents(received, made.secret)).toEqual([created, created]);
    const forged = await send('POST', `/Subscription/${made.id}/replay`, {
      body: { after: 'f2.x' },
      requester,
    });
    expect(forged.status).toBe(400);
  });

  it('holds up no other subscription while a receiver takes 15 s to answer, whose attempt times out', async () => {
    const slow = await receiver(() => 200, { delayMs: 15_000 });
    const fast = await receiver();
    const slowMade = await json(await subscribe({ url: slow.url, types: ['person.created'] }), 201);
    const fastMade = await json(await subscribe({ url: fast.url, types: ['person.created'] }), 201);
    const first = (await createPerson(base, 'Katherine')).id;
    // The slow receiver has the first event and holds its answer for 15 s.
    await eventually(() => slow.received.length >= 1, 10_000);
    const second = (await createPerson(base, 'Rosalind')).id;
    const created = await feedEventsAbout(base, [first, second], 2);
    // The other subscriber has both while the slow one's first attempt still waits for its answer.
    await eventually(() => fast.received.length >= 2, 5_000);
    expect(verifiedEvents(fast.received, fastMade.secret)).toEqual(created);
    expect(slow.received).toHaveLength(1);
    // API.md 16: a receiver that does not answer within 10 s is a timeout, retried.
    await eventually(async () => {
      const { deliveries } = await json(await send('GET', `/Subscription/${slowMade.id}/deliveries`), 200);
      return deliveries.some(
        (delivery: Json) =>
          delivery.outcome === 'timeout' && delivery.status === null && delivery.duration_ms >= 9_000,
      );
    }, 20_000);
  }, 40_000);

  it('pauses a subscription whose receiver answers 410, saying why', async () => {
    const { url, received } = await receiver(() => 410);
    const made = await json(await subscribe({ url, types: ['person.created'] }), 201);
    await createPerson(base, 'Hedy');
    await eventually(
      async () => (await json(await send('GET', `/Subscription/${made.id}`), 200)).paused === true,
    );
    const paused = await json(await send('GET', `/Subscription/${made.id}`), 200);
    expect(paused.paused_reason).toMatch(/410/);
    expect(received).toHaveLength(1);
  });

  it('loses nothing across a restart of npm start --data', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'webhooks-restart-'));
    try {
      const args = ['--data', dir];
      let running = await startServer({ args, env: WEBHOOK_ENV });
      const { url, received } = await receiver();
      const subscriber = (await createPerson(running.url, 'Katherine')).id;
      await feedEventsAbout(running.url, [subscriber], 1);
      const made = (await (
        await request(running.url, 'POST', '/Subscription', {
          body: { url, types: ['person.*'] },
          requester: subscriber,
        })
      ).json()) as Json;
      const ids: number[] = [];
      for (const first of ['Mary', 'Dorothy', 'Annie']) ids.push((await createPerson(running.url, first)).id);
      await running.stop();
      running = await startServer({ args, env: WEBHOOK_ENV });
      try {
        for (const first of ['Evelyn', 'Jean']) ids.push((await createPerson(running.url, first)).id);
        const expected = await feedEventsAbout(running.url, ids, ids.length);
        await eventually(() => received.length >= expected.length);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const events = verifiedEvents(received, made.secret);
        // The same events, in the same order; `source` is the base URL of the server that sent each.
        const strip = ({ source: _source, data: { changeHistory: _link, ...data }, ...event }: Json) => ({
          ...event,
          data,
        });
        expect(events.map(strip)).toEqual(expected.map(strip));
      } finally {
        await running.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
