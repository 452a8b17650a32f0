/**
 * The change feed from outside (API.md 14, issue #41), over HTTP against `npm start --data`: a
 * consumer that polls `GET /events` with the cursor it was given, across a restart of the consumer and
 * of the server, ends with every change exactly once, each object's in version order, each event
 * naming its ChangeHistory entry; a change is readable within 5 seconds of its answer; a read during
 * a burst of writes answers, and misses nothing. A cursor it did not issue (altered, truncated,
 * another server's, the docs' old example) is 400; its own outlive a restart on the same data. A
 * duplicate pair stored in its table is one `duplicate.detected` event (API.md 12.1).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../lib/db/table/client';
import { duplicatePairKey } from '../../lib/db/table/keys';
import { idAllocator } from '../../lib/db/write/ids';
import { DUPLICATE_PAIR_TYPE, pairIdOf } from '../../lib/domain/duplicates';
import { encodeFeedCursor } from '../../lib/domain/feed';
import { localClientConfig } from '../../lib/local/dynamo-local';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { request } from '../support/http';
import { type ServerProcess, startServer } from '../support/server';

interface CloudEvent {
  id: string;
  type: string;
  subject: string;
  source: string;
  data: { id: number; version: number; changeHistory: string; superceded_by?: number };
}
interface EventPage {
  '@type': 'EventPage';
  events: CloudEvent[];
  next: string;
}

let folder: string;
let server: ServerProcess;

const start = () => startServer({ args: ['--data', folder], env: { ENRICHMENT: 'off' } });

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'feed-'));
  server = await start();
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await rm(folder, { recursive: true, force: true });
});

const send = async (method: string, path: string, body: object, requester = 0) => {
  const response = await request(server, method, path, { body, requester });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return (await response.json()) as { id: number };
};

const page = async (after: string | null, limit: number): Promise<EventPage> => {
  const query = new URLSearchParams({ limit: String(limit), ...(after ? { after } : {}) });
  const response = await fetch(`${server.url}/events?${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as EventPage;
};

/** A consumer as a client writes one: it keeps `next` and polls with it. */
const consumer = (from: string | null = null) => {
  const state = { cursor: from, seen: [] as CloudEvent[] };
  return {
    state,
    /** One page; how many events it held. */
    async poll(limit = 2) {
      const got = await page(state.cursor, limit);
      state.seen.push(...got.events);
      state.cursor = got.next;
      return got.events.length;
    },
    /** Polls until the events of `subjects` number `count` (each within 5 s of asking), then past them. */
    async until(count: number, subjects: Set<string>, limit = 3) {
      const asked = Date.now();
      while (state.seen.filter(({ subject }) => subjects.has(subject)).length < count) {
        expect(Date.now() - asked, 'the feed took more than 5 s').toBeLessThan(5_000);
        if ((await this.poll(limit)) === 0) await new Promise((wait) => setTimeout(wait, 100));
      }
      while ((await this.poll(limit)) > 0);
    },
  };
};

describe('GET /events against npm start --data', () => {
  // A restart of npm start (DynamoDB Local's start on the same folder) takes 10 to 20 s on a loaded machine.
  it('gives a consumer that resumes across restarts every change exactly once, in version order', {
    timeout: 90_000,
  }, async () => {
    // The consumer starts at the first event kept, and catches up with what the store held.
    const first = consumer();
    while ((await first.poll(50)) > 0);

    const ada = await send('POST', '/Person', personBody('Ada', uniqueTag('Feed'), uniqueEmail()));
    const dupe = await send('POST', '/Person', personBody('Ada', uniqueTag('Dupe'), uniqueEmail()), ada.id);
    await send('PATCH', `/Person/${ada.id}`, { local_reference_id: 'v2' }, ada.id);
    await send('POST', `/Person/${ada.id}/merge`, { source: dupe.id }, ada.id);
    const prefix = await send(
      'POST',
      '/NamePrefix',
      { prefix: uniqueTag('Prefix'), abbreviation: uniqueTag('P.') },
      ada.id,
    );
    const subjects = new Set([`Person/${ada.id}`, `Person/${dupe.id}`, `NamePrefix/${prefix.id}`]);
    // ada: created, updated, updated (merge); dupe: created, merged; the prefix: created.
    await first.until(6, subjects);

    // Two more changes, and the server stops at once: they may not be in the feed yet.
    await send('PATCH', `/Person/${ada.id}`, { local_reference_id: 'v4' }, ada.id);
    await send('PATCH', `/NamePrefix/${prefix.id}`, { prefix: uniqueTag('Renamed') }, ada.id);
    expect(await server.stop()).toBe(0);
    server = await start();
    await send('PATCH', `/Person/${ada.id}`, { local_reference_id: 'v5' }, ada.id);

    // A new consumer, given only the first one's cursor, goes on from it.
    const second = consumer(first.state.cursor);
    await second.until(3, subjects);
    const seen = [...first.state.seen, ...second.state.seen].filter(({ subject }) => subjects.has(subject));
    expect(seen.map(({ type, subject, data }) => [type, subject, data.version])).toEqual(
      expect.arrayContaining([
        ['person.created', `Person/${ada.id}`, 1],
        ['person.created', `Person/${dupe.id}`, 1],
        ['person.updated', `Person/${ada.id}`, 2],
        ['person.updated', `Person/${ada.id}`, 3],
        ['person.merged', `Person/${dupe.id}`, 2],
        ['nameprefix.created', `NamePrefix/${prefix.id}`, 1],
        ['person.updated', `Person/${ada.id}`, 4],
        ['nameprefix.updated', `NamePrefix/${prefix.id}`, 2],
        ['person.updated', `Person/${ada.id}`, 5],
      ]),
    );
    expect(seen).toHaveLength(9);
    expect(new Set(seen.map(({ id }) => id)).size).toBe(9);
    for (const subject of subjects) {
      const versions = seen.filter((event) => event.subject === subject).map(({ data }) => data.version);
      expect(versions).toEqual([...versions].sort((a, b) => a - b));
    }
    expect(seen.find(({ type }) => type === 'person.merged')?.data.superceded_by).toBe(ada.id);
    // Each event is its ChangeHistory entry: the same id, object and version.
    for (const event of seen) {
      // The server's port changed with the restart: the entry is asked of this one.
      const link = new URL(event.data.changeHistory);
      expect(event.source).toBe(link.origin);
      const entry = (await (await fetch(`${server.url}${link.pathname}`)).json()) as {
        id: number;
        endpoint: string;
        object_id: number;
      };
      expect([`${entry.endpoint}/${entry.object_id}`, String(entry.id)]).toEqual([event.subject, event.id]);
    }
  });

  it('answers a read during a burst of writes, and the reader misses none of them', async () => {
    const reader = consumer();
    while ((await reader.poll(100)) > 0);
    // Family names of random letters: 40 persons alike by name would keep the server's duplicates
    // detector pairing them (hundreds of pairs, each a write and an event), and the feed not idle.
    const randomName = () =>
      `Q${Array.from({ length: 10 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('')}`;
    const writes = Array.from({ length: 40 }, () =>
      send('POST', '/Person', personBody('Burst', randomName(), uniqueEmail())),
    );
    // The reader polls, a page after another, while the writes land.
    let landed = false;
    const writing = Promise.all(writes).finally(() => {
      landed = true;
    });
    let reads = 0;
    while (!landed) {
      await reader.poll(7);
      reads++;
    }
    expect(reads).toBeGreaterThan(0);
    const created = await writing;
    const subjects = new Set(created.map(({ id }) => `Person/${id}`));
    await reader.until(40, subjects, 10);
    const burst = reader.state.seen.filter(({ subject }) => subjects.has(subject));
    expect(burst).toHaveLength(40);
    expect(new Set(burst.map(({ id }) => id)).size).toBe(40);
  });

  it('reads a duplicate pair stored in its table as one duplicate.detected event, and none of its updates', async () => {
    const reader = consumer();
    while ((await reader.poll(100)) > 0);
    // A pair as the detector stores it, put straight into the server's table: its event id from the
    // table's own allocator, as every entry's id. The two persons are unalike, so that the server's
    // own detector makes no pair of them (its pair would be another event, or take this pair's id).
    const tableName = /table (\S+),/.exec(server.output())?.[1] as string;
    const client = documentClient(localClientConfig(server.dynamoEndpoint));
    const eventId = (await idAllocator(client, tableName).reserve(1)).first;
    const ada = await send('POST', '/Person', personBody('Ada', uniqueTag('Lovelace'), uniqueEmail()));
    const dupe = await send(
      'POST',
      '/Person',
      personBody('Bartholomew', uniqueTag('Quackenbush'), uniqueEmail()),
      ada.id,
    );
    const pairId = pairIdOf(ada.id, dupe.id);
    const detected = new Date().toISOString();
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...duplicatePairKey(pairId),
          type: DUPLICATE_PAIR_TYPE,
          id: pairId,
          persons: [ada.id, dupe.id],
          score: 91,
          grade: 'probable',
          features: [{ id: 'name', value: 100 }],
          detected,
          status: 'open',
          eventId,
          revision: 1,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: duplicatePairKey(pairId),
        UpdateExpression: 'SET score = :score, revision = revision + :one',
        ExpressionAttributeValues: { ':score': 95, ':one': 1 },
      }),
    );
    // A change after the update: once it is read, so is everything the stream held before it.
    await send('PATCH', `/Person/${ada.id}`, { local_reference_id: 'after-the-pair' }, ada.id);
    const subject = `duplicates/${pairId}`;
    await reader.until(1, new Set([subject]));
    // Ada's create and PATCH.
    await reader.until(2, new Set([`Person/${ada.id}`]));

    expect(reader.state.seen.filter((event) => event.subject === subject)).toEqual([
      {
        specversion: '1.0',
        id: String(eventId),
        source: server.url,
        type: 'duplicate.detected',
        subject,
        time: detected,
        datacontenttype: 'application/json',
        data: { id: pairId, persons: [ada.id, dupe.id], grade: 'probable', score: 91 },
      },
    ]);
  });

  it('refuses a cursor it did not issue: 400 validation-error naming /after', async () => {
    const { next } = await page(null, 3);
    const [, ...positions] = next.split('.').slice(0, -1);
    const refused = {
      'one character changed': `${next.slice(0, -3)}${next.at(-3) === 'x' ? 'y' : 'x'}${next.slice(-2)}`,
      'a position changed': next.replace(/^f2\.[0-9a-z]+/, 'f2.zz'),
      truncated: next.slice(0, -4),
      'another server’s': encodeFeedCursor(
        positions.map((digits) => Number.parseInt(digits, 36)),
        'other key',
      ),
      'the docs’ old example': 'f1.3.3.2.5.3.3.7.2.1t8cvxy',
    };
    for (const [what, after] of Object.entries(refused)) {
      const response = await fetch(`${server.url}/events?${new URLSearchParams({ after })}`);
      expect({ what, status: response.status }).toEqual({ what, status: 400 });
      const problem = (await response.json()) as {
        type: string;
        errors: { path: string; message: string }[];
      };
      expect(problem.type).toBe('/problems/validation-error');
      expect(problem.errors).toEqual([
        { path: '/after', message: expect.stringMatching(/Not a cursor of this feed/) },
      ]);
    }
    expect((await fetch(`${server.url}/events?${new URLSearchParams({ after: next })}`)).status).toBe(200);
  });
});
