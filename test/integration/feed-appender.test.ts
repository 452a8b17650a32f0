/**
 * The change feed's appender (API.md 14, issues #41, #55 and #57) against DynamoDB Local: every kind
 * of stored change becomes its event, from the ChangeHistory entries the table's stream carries, and a
 * duplicate pair's INSERT its `duplicate.detected` (a MODIFY of the pair none), each put on the bus
 * once appended; a batch delivered again appends nothing and is put on the bus again (at least once);
 * a record that is no entry or pair fails alone, after the ones before it; and fed by the real stream
 * (the poller `npm start` runs), a change is in the feed within 5 seconds.
 */
import { GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildListEvents } from '../../functions/list-events';
import { BUS_SUBSCRIPTIONS, WAKE_WEBHOOKS } from '../../lib/api/bus-subscriptions';
import { busEntryOf, cloudEventOfMessage } from '../../lib/bus/envelope';
import { appendEvents } from '../../lib/db/feed/feed-appender';
import { feedLog } from '../../lib/db/feed/feed-log';
import { duplicatePairKey } from '../../lib/db/table/keys';
import { isFeedSourceInsert, STREAM_SUBSCRIPTIONS } from '../../lib/db/table/stream-subscriptions';
import { vocabularyRepository } from '../../lib/db/vocabulary/vocabulary-repository';
import { idAllocator } from '../../lib/db/write/ids';
import { DUPLICATE_PAIR_TYPE, pairIdOf } from '../../lib/domain/duplicates';
import {
  type ChangeEventType,
  type CloudEvent,
  DUPLICATE_DETECTED,
  FEED_START,
  type FeedEvent,
  type PlacedEvent,
} from '../../lib/domain/feed';
import { personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { createStreamFedTable, createTestTable, type TestTable, testRepository } from '../support/dynamo';
import { changeEventsOf, httpEvent, invoke, queueRecord, streamRecord } from '../support/events';
import { examplePair } from '../support/fixtures';
import { snapshot } from '../support/invariants';

/** The ChangeHistory entries in a table, oldest first (a test table: a scan is fine). */
const entriesOf = async (table: TestTable) =>
  ((await table.client.send(new ScanCommand({ TableName: table.tableName }))).Items ?? [])
    .filter((item) => item.type === 'ChangeHistory')
    .sort((a, b) => (a.id as number) - (b.id as number));

const recordsOf = (table: TestTable, items: Record<string, unknown>[]) =>
  items.map((item) => streamRecord('INSERT', { tableName: table.tableName, item }));

/** A bus that keeps what it is given, each call's events, and fails the calls it is told to. */
const recordingBus = () => {
  const calls: FeedEvent[][] = [];
  let refusals = 0;
  return {
    calls,
    ids: () => calls.map((events) => events.map(({ id }) => id)),
    refuseNext: () => {
      refusals += 1;
    },
    publish: async (events: readonly FeedEvent[]) => {
      if (refusals > 0) {
        refusals -= 1;
        throw new Error('The bus refused the events');
      }
      calls.push([...events]);
    },
  };
};

const everything = async (table: TestTable) => (await feedLog(table).page(FEED_START, 500)).events;

type ChangePlaced = Extract<PlacedEvent, { type: ChangeEventType }>;

/** The events of one object's changes, in a feed that holds duplicate pairs' events too. */
const changesOf = (events: readonly PlacedEvent[], objectId: number): ChangePlaced[] =>
  events.flatMap((event) =>
    event.type !== DUPLICATE_DETECTED && event.object_id === objectId ? [event] : [],
  );

const summary = (events: PlacedEvent[]) =>
  changeEventsOf(events).map(({ type, endpoint, object_id, version, superceded_by }) => ({
    type,
    subject: `${endpoint}/${object_id}`,
    version,
    ...(superceded_by === undefined ? {} : { superceded_by }),
  }));

describe('the feed appender', () => {
  it('makes every kind of change its event: created, updated, merged (and its survivor updated), vocabulary', async () => {
    const table = await createTestTable();
    const api = personApi(testRepository(table));
    const survivor = (await api.post(personBody('Ada', uniqueTag('Feed'), uniqueEmail()))).body;
    const source = (await api.post(personBody('Ada', uniqueTag('Dupe'), uniqueEmail()))).body;
    expect((await api.patch(survivor.id, { local_reference_id: 'v2' })).status).toBe(200);
    expect((await api.merge(survivor.id, { source: source.id })).status).toBe(200);
    const prefix = await vocabularyRepository(table).create(
      'NamePrefix',
      { prefix: uniqueTag('Prefix'), abbreviation: uniqueTag('P.') },
      survivor.id,
    );
    const entries = (await entriesOf(table)).filter((item) => item.id !== undefined);
    const fresh = entries.filter(
      ({ object_id, endpoint }) =>
        (endpoint === 'Person' && [survivor.id, source.id].includes(object_id as number)) ||
        (endpoint === 'NamePrefix' && object_id === prefix.id),
    );
    const bus = recordingBus();
    const response = await appendEvents(table, bus)({ Records: recordsOf(table, fresh) });
    expect(response.batchItemFailures).toEqual([]);
    // Put on the bus in one call, in the batch's order, once appended.
    expect(bus.calls).toEqual([(await everything(table)).map(({ shard: _, seq: __, ...event }) => event)]);
    expect(summary(await everything(table))).toEqual([
      { type: 'person.created', subject: `Person/${survivor.id}`, version: 1 },
      { type: 'person.created', subject: `Person/${source.id}`, version: 1 },
      { type: 'person.updated', subject: `Person/${survivor.id}`, version: 2 },
      { type: 'person.updated', subject: `Person/${survivor.id}`, version: 3 },
      { type: 'person.merged', subject: `Person/${source.id}`, version: 2, superceded_by: survivor.id },
      { type: 'nameprefix.created', subject: `NamePrefix/${prefix.id}`, version: 1 },
    ]);
  });

  it('reads a snapshot as a Lambda event carries it (base64) as well as the SDK does (bytes)', async () => {
    const table = await createTestTable();
    const api = personApi(testRepository(table));
    const survivor = (await api.post(personBody('Grace', uniqueTag('Feed'), uniqueEmail()))).body;
    const source = (await api.post(personBody('Grace', uniqueTag('Dupe'), uniqueEmail()))).body;
    await api.merge(survivor.id, { source: source.id });
    const merged = (await entriesOf(table)).filter(({ action }) => action === 'merge');
    const records = recordsOf(table, merged).map((record): DynamoDBRecord => {
      const image = record.dynamodb?.NewImage as Record<string, { B?: Uint8Array }>;
      const bytes = image.snapshot?.B as Uint8Array;
      return {
        ...record,
        dynamodb: {
          ...record.dynamodb,
          NewImage: { ...image, snapshot: { B: Buffer.from(bytes).toString('base64') } } as never,
        },
      };
    });
    await appendEvents(table, recordingBus())({ Records: records });
    expect(summary(await everything(table)).find(({ type }) => type === 'person.merged')).toEqual({
      type: 'person.merged',
      subject: `Person/${source.id}`,
      version: 2,
      superceded_by: survivor.id,
    });
  });

  it('appends nothing when a batch comes again but puts it on the bus again, and fails a record that is no entry after the ones before it', async () => {
    const table = await createTestTable();
    const api = personApi(testRepository(table));
    for (let n = 0; n < 3; n++) await api.post(personBody('Batch', uniqueTag('Again'), uniqueEmail()));
    const records = recordsOf(
      table,
      (await entriesOf(table)).filter(({ endpoint }) => endpoint === 'Person'),
    );
    expect(records).toHaveLength(3);
    const bus = recordingBus();
    const appender = appendEvents(table, { ...bus, logger: { error: () => undefined } });
    await appender({ Records: records });
    const before = await snapshot(table);
    expect(await appender({ Records: records })).toEqual({ batchItemFailures: [] });
    expect(await snapshot(table)).toEqual(before);
    const ids = records.map((record) => Number(record.dynamodb?.NewImage?.id?.N));
    expect(bus.ids()).toEqual([ids, ids]);

    const table2 = await createTestTable();
    const poison = streamRecord('INSERT', {
      tableName: table2.tableName,
      item: { pk: 'PERSON#1', sk: 'AUDIT#0000000001', type: 'ChangeHistory', id: 'not a number' },
    });
    const [first, second, third] = records as [DynamoDBRecord, DynamoDBRecord, DynamoDBRecord];
    const errors: unknown[] = [];
    const bus2 = recordingBus();
    const failing = appendEvents(table2, {
      ...bus2,
      logger: { error: (...args: unknown[]) => errors.push(args) },
    });
    expect(await failing({ Records: [first, second, poison, third] })).toEqual({
      batchItemFailures: [{ itemIdentifier: poison.dynamodb?.SequenceNumber }],
    });
    expect(
      changeEventsOf(await everything(table2)).map(({ version, object_id }) => [object_id, version]),
    ).toHaveLength(2);
    expect(bus2.ids()).toEqual([ids.slice(0, 2)]);
    expect(errors).toHaveLength(1);
  });

  it('fails the batch when the bus refuses it: delivered again, it appends nothing more and puts every event on the bus', async () => {
    const table = await createTestTable();
    const api = personApi(testRepository(table));
    for (let n = 0; n < 2; n++) await api.post(personBody('Bus', uniqueTag('Refused'), uniqueEmail()));
    const records = recordsOf(
      table,
      (await entriesOf(table)).filter(({ endpoint }) => endpoint === 'Person'),
    );
    const bus = recordingBus();
    const appender = appendEvents(table, bus);
    bus.refuseNext();

    await expect(appender({ Records: records })).rejects.toThrow('The bus refused the events');
    // Appended before the bus was asked: the feed has them, the bus not yet.
    expect(await everything(table)).toHaveLength(2);
    expect(bus.calls).toEqual([]);
    const appended = await snapshot(table);

    expect(await appender({ Records: records })).toEqual({ batchItemFailures: [] });
    expect(await snapshot(table)).toEqual(appended);
    expect(bus.ids()).toEqual([records.map((record) => Number(record.dynamodb?.NewImage?.id?.N))]);
  });

  it('puts nothing on the bus when the append fails', async () => {
    const table = await createTestTable();
    const api = personApi(testRepository(table));
    await api.post(personBody('Bus', uniqueTag('Unappended'), uniqueEmail()));
    const records = recordsOf(table, await entriesOf(table));
    const bus = recordingBus();
    const missing = { ...table, tableName: `${table.tableName}-missing` };

    await expect(appendEvents(missing, bus)({ Records: records })).rejects.toThrow();
    expect(bus.calls).toEqual([]);
  });
});

/** The base URL the pair tests read `GET /events` at (`httpEvent`'s host, over https). */
const BASE = 'https://api.example.test';

/**
 * A duplicate pair's item as the detector stores it (API.md 12.1): its keys, `type`, the pair, and the
 * event id it took from the id allocator.
 */
const pairItem = (persons: [number, number], eventId: number, overrides: Record<string, unknown> = {}) => {
  const { '@type': _type, ...pair } = examplePair(persons, { detected: '2026-11-29T15:04:05.123Z' });
  return {
    ...duplicatePairKey(pair.id),
    type: DUPLICATE_PAIR_TYPE,
    ...pair,
    eventId,
    revision: 1,
    ...overrides,
  };
};

/** Puts a pair in the table where none is, and reads it back as stored: what its INSERT record carries. */
const storePair = async (table: TestTable, item: Record<string, unknown>) => {
  await table.client.send(
    new PutCommand({
      TableName: table.tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  const { Item } = await table.client.send(
    new GetCommand({
      TableName: table.tableName,
      Key: duplicatePairKey(item.id as string),
      ConsistentRead: true,
    }),
  );
  return Item as Record<string, unknown>;
};

/** A fresh event id, as the detector takes one: from the same allocator as the entries' ids. */
const eventIdOf = async (table: TestTable) =>
  (await idAllocator(table.client, table.tableName).reserve(1)).first;

/** `GET /events` on a table's feed, from its first event, as a consumer reads it. */
const eventsPage = async (table: TestTable) =>
  (
    await invoke<{ events: CloudEvent[] }>(
      buildListEvents({ feed: feedLog(table), cursorKey: async () => 'the tests’ cursor key' }),
      httpEvent({ method: 'GET', route: '/events', query: { limit: '500' } }),
    )
  ).body.events;

describe('a duplicate pair found', () => {
  it('is one duplicate.detected event on GET /events, however often its INSERT is delivered', async () => {
    const table = await createTestTable();
    const eventId = await eventIdOf(table);
    const stored = await storePair(table, pairItem([30863, 41207], eventId));
    const record = streamRecord('INSERT', { tableName: table.tableName, item: stored });
    expect(isFeedSourceInsert(record)).toBe(true);
    const bus = recordingBus();
    const appender = appendEvents(table, bus);

    expect(await appender({ Records: [record] })).toEqual({ batchItemFailures: [] });
    const appended = await snapshot(table);
    expect(await appender({ Records: [record, record] })).toEqual({ batchItemFailures: [] });
    expect(await snapshot(table)).toEqual(appended);

    expect(await eventsPage(table)).toEqual([
      {
        specversion: '1.0',
        id: String(eventId),
        source: BASE,
        type: 'duplicate.detected',
        subject: 'duplicates/30863-41207',
        time: '2026-11-29T15:04:05.123Z',
        datacontenttype: 'application/json',
        data: { id: '30863-41207', persons: [30863, 41207], grade: 'probable', score: 91 },
      },
    ]);
    // On the bus each time its batch came (at least once), under its own detail-type, and read back
    // whole from a queue message; no consumer of the bus but the webhook waker (which takes every
    // type for the subscriptions that do) is sent it.
    expect(bus.ids()).toEqual([[eventId], [eventId, eventId]]);
    const [event] = bus.calls[0] as [FeedEvent];
    expect(busEntryOf(event, BASE)).toMatchObject({ Source: BASE, DetailType: 'duplicate.detected' });
    expect(cloudEventOfMessage(queueRecord(event, { baseUrl: BASE }))).toEqual((await eventsPage(table))[0]);
    expect(BUS_SUBSCRIPTIONS.filter(({ eventTypes }) => eventTypes.includes('duplicate.detected'))).toEqual([
      WAKE_WEBHOOKS,
    ]);
  });

  it('makes no event when the pair is updated afterwards: its MODIFY is not the feed’s, and appends nothing new', async () => {
    const table = await createTestTable();
    const eventId = await eventIdOf(table);
    const inserted = await storePair(table, pairItem([30863, 41207], eventId));
    await appendEvents(
      table,
      recordingBus(),
    )({
      Records: [streamRecord('INSERT', { tableName: table.tableName, item: inserted })],
    });
    const { Attributes: modified } = await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: duplicatePairKey('30863-41207'),
        UpdateExpression: 'SET score = :score, grade = :grade, revision = revision + :one',
        ExpressionAttributeValues: { ':score': 100, ':grade': 'certain', ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const record = streamRecord('MODIFY', { tableName: table.tableName, item: modified, oldItem: inserted });
    const before = await snapshot(table);

    // Not sent to the appender: neither the local poller's filter nor the stack's takes it.
    expect(isFeedSourceInsert(record)).toBe(false);
    expect(STREAM_SUBSCRIPTIONS.find(({ handler }) => handler === 'append-events')?.filterPattern).toEqual({
      eventName: ['INSERT'],
      dynamodb: { NewImage: { type: { S: ['ChangeHistory', 'DuplicatePair'] } } },
    });
    // And were it handed over, its event id is in the feed already.
    expect(await appendEvents(table, recordingBus())({ Records: [record] })).toEqual({
      batchItemFailures: [],
    });
    expect(await snapshot(table)).toEqual(before);
    expect((await eventsPage(table)).map(({ type, data }) => [type, data])).toEqual([
      ['duplicate.detected', { id: '30863-41207', persons: [30863, 41207], grade: 'probable', score: 91 }],
    ]);
  });

  it.each([
    ['without an event id', { eventId: undefined }],
    ['with an event id of 0', { eventId: 0 }],
    ['with an event id that is no integer', { eventId: 12.5 }],
    ['with an id that is not its persons', { id: '30863-41208' }],
    ['with its persons higher first', { persons: [41207, 30863] }],
    ['with a grade of no pair', { grade: 'likely' }],
    ['with a score over 100', { score: 101 }],
    ['with a score that is no number', { score: '91' }],
    ['without the time it was found', { detected: undefined }],
    ['with a time that is no time', { detected: 'yesterday' }],
  ])('fails a pair %s as no record of the feed, after the ones before it', async (_label, overrides) => {
    const table = await createTestTable();
    const api = personApi(testRepository(table));
    for (let n = 0; n < 2; n++) await api.post(personBody('Pair', uniqueTag('Poison'), uniqueEmail()));
    const [first, second] = recordsOf(
      table,
      (await entriesOf(table)).filter(({ endpoint }) => endpoint === 'Person'),
    ) as [DynamoDBRecord, DynamoDBRecord];
    const poison = streamRecord('INSERT', {
      tableName: table.tableName,
      item: pairItem([30863, 41207], await eventIdOf(table), overrides),
    });
    const errors: unknown[] = [];
    const bus = recordingBus();
    const appender = appendEvents(table, {
      ...bus,
      logger: { error: (...args: unknown[]) => errors.push(args) },
    });

    expect(await appender({ Records: [first, poison, second] })).toEqual({
      batchItemFailures: [{ itemIdentifier: poison.dynamodb?.SequenceNumber }],
    });
    expect((await everything(table)).map(({ type }) => type)).toEqual(['person.created']);
    expect(bus.ids()).toEqual([[Number(first.dynamodb?.NewImage?.id?.N)]]);
    expect(errors).toHaveLength(1);
  });
});

describe('fed by the table’s stream, as npm start feeds it', () => {
  let table: TestTable;
  let poller: Awaited<ReturnType<typeof createStreamFedTable>>['poller'];
  beforeAll(async () => {
    ({ table, poller } = await createStreamFedTable(
      (fed) => ({
        name: 'append-events',
        accepts: isFeedSourceInsert,
        handler: appendEvents(fed, recordingBus()),
      }),
      250,
    ));
  });
  afterAll(() => poller?.stop());

  it('has a change in the feed within 5 seconds of its answer, each object’s events in version order', async () => {
    const api = personApi(testRepository(table));
    const created = (await api.post(personBody('Fresh', uniqueTag('Feed'), uniqueEmail()))).body;
    for (let version = 2; version <= 4; version++)
      expect((await api.patch(created.id, { local_reference_id: `v${version}` })).status).toBe(200);
    const answered = Date.now();
    let events: ChangePlaced[] = [];
    while (Date.now() - answered < 5_000) {
      events = changesOf(await everything(table), created.id);
      if (events.length === 4) break;
      await new Promise((wait) => setTimeout(wait, 50));
    }
    expect(events.map(({ version }) => version)).toEqual([1, 2, 3, 4]);
    expect(Date.now() - answered).toBeLessThan(5_000);
  });

  it('has a pair found in the feed once, from its INSERT record, and nothing of its updates', async () => {
    const eventId = await eventIdOf(table);
    const persons: [number, number] = [eventId, eventId + 1_000_000];
    const pairId = pairIdOf(...persons);
    await storePair(table, pairItem(persons, eventId));
    for (const score of [95, 99])
      await table.client.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: duplicatePairKey(pairId),
          UpdateExpression: 'SET score = :score, revision = revision + :one',
          ExpressionAttributeValues: { ':score': score, ':one': 1 },
        }),
      );
    // A change written after the updates, as a barrier: once its event is in, the poller has read
    // the stream past the updates' records (DynamoDB Local keeps one table's records in write order).
    const api = personApi(testRepository(table));
    const after = (await api.post(personBody('After', uniqueTag('Pair'), uniqueEmail()))).body;
    const written = Date.now();
    let events: PlacedEvent[] = [];
    while (Date.now() - written < 5_000) {
      events = await everything(table);
      if (changesOf(events, after.id).length === 1) break;
      await new Promise((wait) => setTimeout(wait, 50));
    }
    expect(changesOf(events, after.id)).toHaveLength(1);
    expect(
      events.flatMap((event) => (event.type === DUPLICATE_DETECTED && event.pair === pairId ? [event] : [])),
    ).toEqual([
      expect.objectContaining({
        id: eventId,
        type: 'duplicate.detected',
        persons,
        grade: 'probable',
        score: 91,
      }),
    ]);
  });
});
