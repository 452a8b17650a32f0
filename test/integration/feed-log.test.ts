/**
 * The change feed's storage (API.md 14, issue #41) against DynamoDB Local: events appended once however
 * often they are delivered, each shard numbered without gaps under racing appenders, and pages that
 * walk the feed oldest first, each event exactly once, whatever is appended between two pages.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { feedLog } from '../../lib/db/feed/feed-log';
import { feedEventKey, feedHeadKey } from '../../lib/db/table/keys';
import { NO_ORIGIN } from '../../lib/domain/change-history';
import {
  FEED_SHARDS,
  FEED_START,
  type FeedEvent,
  type FeedPosition,
  feedEventOf,
  feedShardOf,
  type PlacedEvent,
} from '../../lib/domain/feed';
import { createTestTable } from '../support/dynamo';
import { changeEventsOf } from '../support/events';
import { snapshot } from '../support/invariants';

let nextId = 1;
/** Version `version` of person `objectId`, a change made `at` ms into the test. */
const change = (objectId: number, version: number, at = nextId): FeedEvent =>
  feedEventOf({
    id: nextId++,
    endpoint: 'Person',
    object_id: objectId,
    version,
    action: version === 1 ? 'create' : 'update',
    requester: objectId,
    at: new Date(Date.UTC(2026, 10, 26) + at).toISOString(),
    changed: version === 1 ? [] : ['/Emails'],
    provider_data: NO_ORIGIN,
  });

/** Every event after `position`, a page of `limit` at a time, and where the walk ended. */
const walk = async (log: ReturnType<typeof feedLog>, position: FeedPosition, limit: number) => {
  const seen: PlacedEvent[] = [];
  let at = position;
  for (;;) {
    const page = await log.page(at, limit);
    expect(page.events.length).toBeLessThanOrEqual(limit);
    for (const [index, shard] of page.next.entries()) expect(shard).toBeGreaterThanOrEqual(at[index] ?? 0);
    seen.push(...page.events);
    at = page.next;
    if (page.events.length === 0) return { seen, at };
  }
};

const versionsByObject = (events: readonly FeedEvent[]) => {
  const versions = new Map<number, number[]>();
  for (const { object_id, version } of changeEventsOf(events))
    versions.set(object_id, [...(versions.get(object_id) ?? []), version]);
  return versions;
};

describe('the feed log', () => {
  it('appends each event once and reads them back oldest first, each object in version order', async () => {
    const table = await createTestTable();
    const log = feedLog(table);
    const events = [1, 2, 3].flatMap((version) => [101, 102, 103, 104].map((id) => change(id, version)));
    expect(await log.append(events)).toBe(12);
    const page = await log.page(FEED_START, 100);
    expect(page.events.map(({ id }) => id)).toEqual(events.map(({ id }) => id));
    expect(page.events[0]).toMatchObject({ ...events[0], shard: feedShardOf('Person', 101), seq: 1 });
    for (const [, versions] of versionsByObject(page.events)) expect(versions).toEqual([1, 2, 3]);
    // Nothing new: an empty page, and a cursor as far as the one sent.
    expect(await log.page(page.next, 100)).toEqual({ events: [], next: page.next });
  });

  it('appends nothing new when a batch comes again, whole or in part (Lambda retries a batch)', async () => {
    const table = await createTestTable();
    const log = feedLog(table);
    const batch = [201, 202, 203].map((id) => change(id, 1));
    expect(await log.append(batch)).toBe(3);
    const before = await snapshot(table);
    expect(await log.append(batch)).toBe(0);
    expect(await log.append([batch[1] as FeedEvent])).toBe(0);
    expect(await snapshot(table)).toEqual(before);
    const later = change(201, 2);
    expect(await log.append([...batch, later])).toBe(1);
    const { seen } = await walk(log, FEED_START, 2);
    expect(seen.map(({ id }) => id)).toEqual([...batch, later].map(({ id }) => id));
  });

  it('numbers each shard without gaps and takes every event once when appenders race', async () => {
    const table = await createTestTable();
    const log = feedLog(table);
    // 40 persons, 3 versions each; eight appenders at once, each with every version of five persons,
    // and each batch delivered twice.
    const persons = Array.from({ length: 40 }, (_, n) => 300 + n);
    const batches = Array.from({ length: 8 }, (_, appender) =>
      persons
        .slice(appender * 5, appender * 5 + 5)
        .flatMap((id) => [1, 2, 3].map((version) => change(id, version))),
    );
    const counts = await Promise.all([...batches, ...batches].map((batch) => log.append(batch)));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(120);
    const { seen, at } = await walk(log, FEED_START, 7);
    expect(seen).toHaveLength(120);
    expect(new Set(seen.map(({ id }) => id)).size).toBe(120);
    for (const [, versions] of versionsByObject(seen)) expect(versions).toEqual([1, 2, 3]);
    // Each shard holds seqs 1..head, and the walk ended at every head.
    for (let shard = 0; shard < FEED_SHARDS; shard++) {
      const inShard = seen.filter((event) => event.shard === shard).map(({ seq }) => seq);
      expect([...inShard].sort((a, b) => a - b)).toEqual(
        Array.from({ length: inShard.length }, (_, n) => n + 1),
      );
      expect(at[shard]).toBe(inShard.length);
    }
  });

  it('walks every event exactly once while events are appended between pages', async () => {
    const table = await createTestTable();
    const log = feedLog(table);
    const seen: PlacedEvent[] = [];
    let at = FEED_START;
    const appended: FeedEvent[] = [];
    for (let round = 0; round < 12; round++) {
      const batch = Array.from({ length: 1 + (round % 4) * 5 }, (_, n) =>
        change(400 + ((round * 7 + n) % 23), round + 1),
      );
      appended.push(...batch);
      await log.append(batch);
      const page = await log.page(at, 3 + (round % 5));
      seen.push(...page.events);
      at = page.next;
    }
    const rest = await walk(log, at, 10);
    seen.push(...rest.seen);
    expect(seen.map(({ id }) => id).sort((a, b) => a - b)).toEqual(
      appended.map(({ id }) => id).sort((a, b) => a - b),
    );
    for (const [, versions] of versionsByObject(seen))
      expect(versions).toEqual([...versions].sort((a, b) => a - b));
  });

  it('reads no further than a page: a shard’s events past its share stay for the next page', async () => {
    const table = await createTestTable();
    const log = feedLog(table);
    await log.append(Array.from({ length: 30 }, (_, n) => change(500, n + 1)));
    const shard = feedShardOf('Person', 500);
    const first = await log.page(FEED_START, 10);
    expect(first.events.map(({ seq }) => seq)).toEqual(Array.from({ length: 10 }, (_, n) => n + 1));
    expect(first.next[shard]).toBe(10);
    const { Item } = await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: feedHeadKey(shard) }),
    );
    expect(Item?.seq).toBe(30);
    const { Item: tenth } = await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: feedEventKey(shard, 10) }),
    );
    expect(tenth).toMatchObject({ object_id: 500, version: 10, seq: 10, eventType: 'person.updated' });
  });
});
