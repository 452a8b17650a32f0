/**
 * The change feed's appender (API.md 14, issues #41 and #55) against DynamoDB Local: every kind of
 * stored change becomes its event, from the ChangeHistory entries the table's stream carries, and is
 * put on the bus once appended; a batch delivered again appends nothing and is put on the bus again
 * (at least once); a record that is no entry fails alone, after the ones before it; and fed by the
 * real stream (the poller `npm start` runs), a change is in the feed within 5 seconds.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents } from '../../lib/db/feed/feed-appender';
import { feedLog } from '../../lib/db/feed/feed-log';
import { isChangeHistoryInsert } from '../../lib/db/table/stream-subscriptions';
import { vocabularyRepository } from '../../lib/db/vocabulary/vocabulary-repository';
import { FEED_START, type FeedEvent, type PlacedEvent } from '../../lib/domain/feed';
import { personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { createStreamFedTable, createTestTable, type TestTable, testRepository } from '../support/dynamo';
import { streamRecord } from '../support/events';
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

const summary = (events: PlacedEvent[]) =>
  events.map(({ type, endpoint, object_id, version, superceded_by }) => ({
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
    expect((await everything(table2)).map(({ version, object_id }) => [object_id, version])).toHaveLength(2);
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

describe('fed by the table’s stream, as npm start feeds it', () => {
  let table: TestTable;
  let poller: Awaited<ReturnType<typeof createStreamFedTable>>['poller'];
  beforeAll(async () => {
    ({ table, poller } = await createStreamFedTable(
      (fed) => ({
        name: 'append-events',
        accepts: isChangeHistoryInsert,
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
    let events: PlacedEvent[] = [];
    while (Date.now() - answered < 5_000) {
      events = (await everything(table)).filter(({ object_id }) => object_id === created.id);
      if (events.length === 4) break;
      await new Promise((wait) => setTimeout(wait, 50));
    }
    expect(events.map(({ version }) => version)).toEqual([1, 2, 3, 4]);
    expect(Date.now() - answered).toBeLessThan(5_000);
  });
});
