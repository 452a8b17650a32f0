/**
 * GET /events (API.md 14, issue #41) through its handler against DynamoDB Local. Nothing appends to
 * the feed from real writes yet (the stream's appender is another function): these tests append the
 * events of ChangeHistory entries with the feed's own `append`, as that appender will, and read them
 * as a consumer does: each event a valid CloudEvents 1.0 event that says what its entry says, oldest
 * first, every event once when paging with `next` (events landing between pages included), an empty
 * page's `next` as far as the one sent, and 400 problem+json for a cursor or limit it refuses.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { CloudEvent as SpecEvent } from 'cloudevents';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildCreateNamePrefix } from '../../functions/create-name-prefix';
import { buildHandler as buildGetChangeHistory } from '../../functions/get-change-history';
import { buildHandler as buildListEvents } from '../../functions/list-events';
import { buildHandler as buildUpdateNamePrefix } from '../../functions/update-name-prefix';
import { feedLog } from '../../lib/db/feed/feed-log';
import { changeHistory } from '../../lib/db/history/change-history';
import { socialAddressWriter } from '../../lib/db/person/write/social-address-writer';
import { vocabularyRepository } from '../../lib/db/vocabulary/vocabulary-repository';
import { responseExample } from '../../lib/docs/examples';
import { type ChangeEntry, NO_ORIGIN, type ResourceType } from '../../lib/domain/change-history';
import {
  type ChangeCloudEvent,
  type ChangeEvent,
  encodeFeedCursor,
  FEED_SHARDS,
  FEED_START,
  feedEventOf,
  feedShardOf,
} from '../../lib/domain/feed';
import { isMergedPerson } from '../../lib/domain/merge';
import type { StoredChange } from '../../lib/domain/ports/history';
import type { HttpConfig } from '../../lib/http/config';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { createTestTable, type TestTable } from '../support/dynamo';
import { type EventSpec, httpEvent, invoke, lambdaContext, type Response } from '../support/events';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

/** The base URL of `httpEvent`'s requests (its host, over https). */
const BASE = 'https://api.example.test';

interface EventPage {
  '@context': string;
  '@type': 'EventPage';
  events: ChangeCloudEvent[];
  next: string;
}

interface Problem {
  type: string;
  status: number;
  detail: string;
  instance: string;
  errors: { path: string; message: string }[];
}

/** The key this file's feed signs its cursors with (deployed, the stack's secret; npm start, its own). */
const CURSOR_KEY = 'the tests’ cursor key';

const listEventsOn = (table: TestTable, config?: HttpConfig, key = CURSOR_KEY) =>
  buildListEvents({ feed: feedLog(table), cursorKey: async () => key, ...(config ? { config } : {}) });

const eventsRequest = (query?: Record<string, string>, extra: Partial<EventSpec> = {}) =>
  httpEvent({ method: 'GET', route: '/events', ...(query ? { query } : {}), ...extra });

/** One GET /events on a table's feed. */
const getEvents = <T = EventPage>(
  table: TestTable,
  query?: Record<string, string>,
  extra: Partial<EventSpec> = {},
  config?: HttpConfig,
) => invoke<T>(listEventsOn(table, config), eventsRequest(query, extra));

/** Every event after `after` (from the first without it), `limit` a page, and the cursor it ended at. */
const drain = async (table: TestTable, after: string | undefined, limit: number) => {
  const seen: ChangeCloudEvent[] = [];
  let cursor = after;
  for (let pages = 0; pages < 1000; pages++) {
    const { status, body } = await getEvents(table, {
      limit: String(limit),
      ...(cursor === undefined ? {} : { after: cursor }),
    });
    expect(status).toBe(200);
    expect(body.events.length).toBeLessThanOrEqual(limit);
    seen.push(...body.events);
    if (body.events.length === 0) return { seen, cursor: body.next };
    cursor = body.next;
  }
  throw new Error('The feed did not end');
};

/** The event of a stored change, as the stream's appender makes it (a merged person's: person.merged). */
const eventOf = ({ entry, current }: StoredChange): ChangeEvent =>
  feedEventOf(entry, isMergedPerson(current) ? current.superceded_by : null);

let nextId = 1_000_000;
/** A change of an object at `at` ms into the test's day: version 1 is its create. */
const change = (endpoint: ResourceType, objectId: number, version: number, at: number): ChangeEvent =>
  feedEventOf({
    id: nextId++,
    endpoint,
    object_id: objectId,
    version,
    action: version === 1 ? 'create' : 'update',
    requester: 7,
    at: new Date(Date.UTC(2026, 10, 27) + at).toISOString(),
    changed: version === 1 ? [] : ['/Names'],
    provider_data: NO_ORIGIN,
  } satisfies ChangeEntry);

/** `count` person ids whose events go to `count` different shards. */
const onDistinctShards = (count: number, from: number): number[] => {
  const ids: number[] = [];
  const shards = new Set<number>();
  for (let id = from; ids.length < count; id++) {
    const shard = feedShardOf('Person', id);
    if (shards.has(shard)) continue;
    shards.add(shard);
    ids.push(id);
  }
  return ids;
};

const versionsByObject = (events: readonly ChangeCloudEvent[]) => {
  const versions = new Map<string, number[]>();
  for (const { subject, data } of events)
    versions.set(subject, [...(versions.get(subject) ?? []), data.version]);
  return versions;
};

describe('GET /events: the events of real changes', () => {
  const written = { ada: 0, grace: 0, email: '', prefix: 0 };
  let changes: StoredChange[] = [];
  let page: Response<EventPage>;

  beforeAll(async () => {
    const api = suite.api;
    const history = changeHistory(suite.table);
    const vocabulary = vocabularyRepository(suite.table);
    written.email = uniqueEmail('ada');
    // A self-registration, its PATCH and its enrichment; another person merged into it; a NamePrefix
    // created and changed.
    const ada = await api.post(personBody('Ada', uniqueTag('Lovelace'), written.email));
    written.ada = ada.body.id;
    expect((await api.patch(written.ada, { local_reference_id: 'ada-1' })).status).toBe(200);
    expect(await socialAddressWriter(suite.table).fill(written.ada, { twitter: 'https://x.com/ada' })).toBe(
      'written',
    );
    const grace = await api.post(personBody('Grace', uniqueTag('Hopper'), uniqueEmail('grace')), {
      requester: written.ada,
    });
    written.grace = grace.body.id;
    expect((await api.merge(written.ada, { source: written.grace })).status).toBe(200);
    const created = await invoke<{ id: number }>(
      buildCreateNamePrefix({ vocabulary }),
      httpEvent({
        method: 'POST',
        route: '/NamePrefix',
        requester: written.ada,
        body: { prefix: 'Archdeacon', abbreviation: uniqueTag('Ven.') },
      }),
    );
    expect(created.status).toBe(201);
    written.prefix = created.body.id;
    const patched = await invoke(
      buildUpdateNamePrefix({ vocabulary }),
      httpEvent({
        method: 'PATCH',
        route: '/NamePrefix/{id}',
        path: `/NamePrefix/${written.prefix}`,
        pathParameters: { id: String(written.prefix) },
        requester: written.ada,
        body: { prefix: 'Archdeacon (retired)' },
      }),
    );
    expect(patched.status).toBe(200);

    // Their entries, each object's oldest first, appended in the order they were written.
    const objects: [ResourceType, number][] = [
      ['Person', written.ada],
      ['Person', written.grace],
      ['NamePrefix', written.prefix],
    ];
    for (const [endpoint, object_id] of objects) {
      const found = await history.page({
        endpoint,
        object_id,
        descending: false,
        window: { offset: 0, limit: 100 },
      });
      changes.push(...found.changes);
    }
    changes = changes.sort((a, b) => a.entry.at.localeCompare(b.entry.at) || a.entry.id - b.entry.id);
    expect(await feedLog(suite.table).append(changes.map(eventOf))).toBe(changes.length);
    page = await getEvents(suite.table);
  });

  it('answers 200 with an EventPage that names its context', () => {
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(page.body)).toEqual(['@context', '@type', 'events', 'next']);
    expect(page.body).toMatchObject({ '@context': `${BASE}/context.jsonld`, '@type': 'EventPage' });
    expect(page.body.next).toMatch(/^f2\./);
  });

  it('gives one event per change: every kind of change a person and a NamePrefix have, oldest first', () => {
    expect(changes.length).toBe(8);
    expect(page.body.events.map(({ id }) => id)).toEqual(changes.map(({ entry }) => String(entry.id)));
    expect(page.body.events.map(({ type, subject }) => `${type} ${subject}`)).toEqual([
      `person.created Person/${written.ada}`,
      `person.updated Person/${written.ada}`,
      `person.enriched Person/${written.ada}`,
      `person.created Person/${written.grace}`,
      // The merge's two entries, the survivor's first (its id is the lower).
      `person.updated Person/${written.ada}`,
      `person.merged Person/${written.grace}`,
      `nameprefix.created NamePrefix/${written.prefix}`,
      `nameprefix.updated NamePrefix/${written.prefix}`,
    ]);
    const times = page.body.events.map(({ time }) => time);
    expect(times).toEqual([...times].sort());
  });

  it('answers each as a valid CloudEvents 1.0 event (the spec’s JSON Schema), as its entry says', () => {
    for (const [index, event] of page.body.events.entries()) {
      expect(() => new SpecEvent(event as never, true)).not.toThrow();
      const { entry } = changes[index] as StoredChange;
      expect(event).toEqual({
        specversion: '1.0',
        id: String(entry.id),
        source: BASE,
        type: event.type,
        subject: `${entry.endpoint}/${entry.object_id}`,
        time: entry.at,
        datacontenttype: 'application/json',
        data: {
          id: entry.object_id,
          version: entry.version,
          changed: entry.changed,
          requester: entry.requester,
          changeHistory: `${BASE}/ChangeHistory/${entry.id}`,
          ...(event.type === 'person.merged' ? { superceded_by: written.ada } : {}),
        },
      });
    }
    // The enrichment has no requester; the merged person names its survivor.
    expect(page.body.events.find(({ type }) => type === 'person.enriched')?.data.requester).toBeNull();
    expect(page.body.events.find(({ type }) => type === 'person.merged')?.data).toMatchObject({
      id: written.grace,
      superceded_by: written.ada,
    });
  });

  it('links each event to its ChangeHistory entry, which GET answers', async () => {
    const getEntry = buildGetChangeHistory({ history: changeHistory(suite.table) });
    for (const event of page.body.events) {
      const id = event.data.changeHistory.slice(`${BASE}/ChangeHistory/`.length);
      const entry = await invoke<{ id: number; object_id: number; current_object: { CoreMetaData: object } }>(
        getEntry,
        httpEvent({
          method: 'GET',
          route: '/ChangeHistory/{id}',
          path: `/ChangeHistory/${id}`,
          pathParameters: { id },
        }),
      );
      expect(entry.status).toBe(200);
      expect(entry.body).toMatchObject({ id: Number(event.id), object_id: event.data.id });
      expect(entry.body.current_object.CoreMetaData).toMatchObject({ version: event.data.version });
    }
  });

  it('carries no personal data: no name, email or value the changes wrote', () => {
    const text = JSON.stringify(page.body);
    for (const personal of [written.email, 'Ada', 'Grace', 'Archdeacon', 'x.com/ada', 'ada-1'])
      expect(text).not.toContain(personal);
  });

  it('builds `source` and the links from PUBLIC_BASE_URL when it is set, and answers JSON-LD when asked', async () => {
    const publicBaseUrl = 'https://people.example.org/v1';
    const { status, headers, body } = await getEvents(
      suite.table,
      undefined,
      { headers: { accept: 'application/ld+json' } },
      { publicBaseUrl },
    );

    expect(status).toBe(200);
    expect(headers['content-type']).toBe('application/ld+json; charset=utf-8');
    expect(body['@context']).toBe(`${publicBaseUrl}/context.jsonld`);
    expect(body.events.map(({ source }) => source)).toEqual(body.events.map(() => publicBaseUrl));
    expect(body.events[0]?.data.changeHistory).toBe(`${publicBaseUrl}/ChangeHistory/${body.events[0]?.id}`);
  });
});

describe('GET /events: order and paging', () => {
  it('starts at the first event without `after`, and answers an empty feed an empty page and its start', async () => {
    const table = await createTestTable();
    const empty = await getEvents(table);
    expect(empty.status).toBe(200);
    expect(empty.body.events).toEqual([]);
    expect(empty.body.next).toBe(encodeFeedCursor(FEED_START, CURSOR_KEY));

    const [first, second] = onDistinctShards(2, 100);
    await feedLog(table).append([
      change('Person', first as number, 1, 10),
      change('Person', second as number, 1, 20),
    ]);
    const fromStart = await getEvents(table);
    const fromCursor = await getEvents(table, { after: empty.body.next });

    expect(fromStart.body.events.map(({ subject }) => subject)).toEqual([
      `Person/${first}`,
      `Person/${second}`,
    ]);
    expect(fromCursor.body).toEqual(fromStart.body);
  });

  it('answers the events oldest first across shards, whatever order they were appended in', async () => {
    const table = await createTestTable();
    // Four persons on four shards, three changes each; their times interleave (person n's version v is
    // at 10 v + n), and each person's are appended together, the last person first.
    const persons = onDistinctShards(4, 200);
    const batches = persons.map((id, n) =>
      [1, 2, 3].map((version) => change('Person', id, version, 10 * version + n)),
    );
    for (const batch of [...batches].reverse()) await feedLog(table).append(batch);

    const { body } = await getEvents(table, { limit: '500' });
    const byTime = batches.flat().sort((a, b) => a.time.localeCompare(b.time));

    expect(body.events.map(({ id }) => id)).toEqual(byTime.map(({ id }) => String(id)));
    // And so across pages of any size.
    for (const limit of [1, 2, 5]) {
      const { seen } = await drain(table, undefined, limit);
      expect(seen.map(({ id }) => id)).toEqual(byTime.map(({ id }) => String(id)));
    }
  });

  it('takes 100 events a page without `limit`, and up to 500 with it', async () => {
    const table = await createTestTable();
    // One person's 520 changes: one shard, so a page reads as many as it may take.
    await feedLog(table).append(Array.from({ length: 520 }, (_, n) => change('Person', 300, n + 1, n)));

    expect((await getEvents(table)).body.events).toHaveLength(100);
    expect((await getEvents(table, { limit: '7' })).body.events).toHaveLength(7);
    const { body } = await getEvents(table, { limit: '500' });
    expect(body.events.map(({ data }) => data.version)).toEqual(Array.from({ length: 500 }, (_, n) => n + 1));
  });

  it('gives every event exactly once to a consumer that follows `next`, while events land between pages', async () => {
    const table = await createTestTable();
    const appended: ChangeEvent[] = [];
    const versions = new Map<number, number>();
    const seen: ChangeCloudEvent[] = [];
    let cursor: string | undefined;
    for (let round = 0; round < 15; round++) {
      // A batch of changes of 30 persons (over every shard), each person's in version order.
      const batch = Array.from({ length: 1 + ((round * 5) % 11) }, (_, n) => {
        const id = 400 + ((round * 7 + n * 3) % 30);
        const version = (versions.get(id) ?? 0) + 1;
        versions.set(id, version);
        return change('Person', id, version, round * 100 + n);
      });
      appended.push(...batch);
      await feedLog(table).append(batch);
      const limit = 1 + (round % 6);
      const { body } = await getEvents(table, { limit: String(limit), ...(cursor ? { after: cursor } : {}) });
      expect(body.events.length).toBeLessThanOrEqual(limit);
      seen.push(...body.events);
      cursor = body.next;
    }
    const rest = await drain(table, cursor, 4);
    seen.push(...rest.seen);

    expect(new Set(appended.map(({ endpoint, object_id }) => feedShardOf(endpoint, object_id))).size).toBe(
      FEED_SHARDS,
    );
    expect(seen.map(({ id }) => Number(id)).sort((a, b) => a - b)).toEqual(
      appended.map(({ id }) => id).sort((a, b) => a - b),
    );
    for (const [subject, list] of versionsByObject(seen))
      expect({ subject, list }).toEqual({ subject, list: [...list].sort((a, b) => a - b) });
  });

  it('answers an empty page at the end with the cursor sent, and goes on from it when more lands', async () => {
    const table = await createTestTable();
    await feedLog(table).append([1, 2, 3].map((version) => change('Person', 500, version, version)));
    const { cursor } = await drain(table, undefined, 2);

    const again = await getEvents(table, { after: cursor });
    expect(again.body).toMatchObject({ events: [], next: cursor });

    const later = change('Person', 501, 1, 100);
    await feedLog(table).append([later]);
    const polled = await getEvents(table, { after: cursor });
    expect(polled.body.events.map(({ id }) => id)).toEqual([String(later.id)]);
    expect(polled.body.next).not.toBe(cursor);
    expect((await getEvents(table, { after: polled.body.next })).body).toMatchObject({
      events: [],
      next: polled.body.next,
    });
  });

  it('answers a cursor again with the same page: a consumer resuming from an older one sees those events again', async () => {
    const table = await createTestTable();
    await feedLog(table).append([1, 2, 3, 4].map((version) => change('Person', 600, version, version)));
    const first = await getEvents(table, { limit: '2' });
    const second = await getEvents(table, { limit: '2', after: first.body.next });
    const repeated = await getEvents(table, { limit: '2', after: first.body.next });

    expect(second.body.events.map(({ data }) => data.version)).toEqual([3, 4]);
    expect(repeated.body).toEqual(second.body);
  });
});

describe('GET /events: refusals and HEAD', () => {
  let table: TestTable;
  let cursor: string;

  beforeAll(async () => {
    table = await createTestTable();
    await feedLog(table).append([change('Person', 700, 1, 1), change('NameSuffix', 701, 1, 2)]);
    cursor = (await getEvents(table)).body.next;
  });

  /** A cursor the feed issued, one position changed: its MAC no longer holds. */
  const edited = () => {
    const parts = cursor.split('.');
    parts[1] = parts[1] === '0' ? '1' : '0';
    return parts.join('.');
  };
  /** A cursor the feed issued, one character of its MAC changed. */
  const macEdited = () => `${cursor.slice(0, -2)}${cursor.at(-2) === 'A' ? 'B' : 'A'}${cursor.at(-1)}`;

  it.each<[string, () => Record<string, string>, string, RegExp]>([
    ['a made-up cursor', () => ({ after: 'abc' }), '/after', /Not a cursor of this feed/],
    ['an empty cursor', () => ({ after: '' }), '/after', /Not a cursor of this feed/],
    ['an edited cursor', () => ({ after: edited() }), '/after', /Not a cursor of this feed/],
    ['a cursor with its MAC edited', () => ({ after: macEdited() }), '/after', /Not a cursor of this feed/],
    ['a truncated cursor', () => ({ after: cursor.slice(0, -1) }), '/after', /Not a cursor of this feed/],
    [
      'a cursor signed with another key (another server’s)',
      () => ({ after: encodeFeedCursor(FEED_START, 'another server’s key') }),
      '/after',
      /Not a cursor of this feed/,
    ],
    [
      'the docs’ old example cursor, unkeyed',
      () => ({ after: 'f1.3.3.2.5.3.3.7.2.1t8cvxy' }),
      '/after',
      /Not a cursor of this feed/,
    ],
    [
      'the documents’ example cursor, signed with no server’s key',
      () => ({
        after: (responseExample('listEvents', 'EventPage')?.value as EventPage | undefined)?.next ?? '',
      }),
      '/after',
      /Not a cursor of this feed/,
    ],
    ['a cursor of the export', () => ({ after: 'eyJwIjoyfQ' }), '/after', /Not a cursor of this feed/],
    [
      'an overlong cursor',
      () => ({ after: `${cursor}.${'0'.repeat(200)}` }),
      '/after',
      /Not a cursor of this feed/,
    ],
    ['limit 0', () => ({ limit: '0' }), '/limit', /at least 1/],
    ['limit 501', () => ({ limit: '501' }), '/limit', /at most 500/],
    ['a limit that is not an integer', () => ({ limit: '2.5' }), '/limit', /whole number/],
    ['a limit that is no number', () => ({ limit: 'ten' }), '/limit', /whole number/],
    ['a negative limit', () => ({ limit: '-1' }), '/limit', /whole number/],
    ['an unknown parameter', () => ({ since: cursor }), '/since', /it accepts after, limit/],
    ['a cursor sent under another name', () => ({ cursor }), '/cursor', /it accepts after, limit/],
  ])('refuses %s: 400 validation-error naming the parameter', async (_, query, path, message) => {
    const { status, headers, body } = await getEvents<Problem>(table, query());

    expect(status).toBe(400);
    expect(headers['content-type']).toBe('application/problem+json');
    expect(body).toMatchObject({
      type: '/problems/validation-error',
      status: 400,
      detail: 'The query is not valid',
      instance: '/events',
    });
    expect(body.errors).toEqual([{ path, message: expect.stringMatching(message) }]);
  });

  it('takes a good cursor and limit beside them: the refusal names only what is wrong', async () => {
    const { status, body } = await getEvents<Problem>(table, { after: cursor, limit: '1000' });
    expect(status).toBe(400);
    expect(body.errors.map(({ path }) => path)).toEqual(['/limit']);
    expect((await getEvents(table, { after: cursor, limit: '500' })).status).toBe(200);
  });

  it('answers HEAD as GET without the body: a page, and a refusal', async () => {
    const head = (query: Record<string, string>) => eventsRequest(query, { method: 'HEAD' });
    const handler = listEventsOn(table);
    const call = (event: APIGatewayProxyEventV2) => handler(event, lambdaContext());
    const [get, headOk] = [await call(eventsRequest({ limit: '1' })), await call(head({ limit: '1' }))];
    const [refused, headRefused] = [
      await call(eventsRequest({ limit: '0' })),
      await call(head({ limit: '0' })),
    ];

    expect([get.statusCode, headOk.statusCode, refused.statusCode, headRefused.statusCode]).toEqual([
      200, 200, 400, 400,
    ]);
    expect(headOk.body).toBeUndefined();
    expect(headRefused.body).toBeUndefined();
    expect(headOk.headers).toEqual(get.headers);
    expect(headRefused.headers).toEqual(refused.headers);
  });
});
