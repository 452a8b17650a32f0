/**
 * The change feed's cursor under concurrency (API.md 14, issue #41 step 4), as a fast-check property
 * against DynamoDB Local: changes of a few objects are committed in a random order, the table's stream
 * (a few shards, each holding some objects' records in commit order) delivers them to concurrent
 * appenders in random batches, some delivered twice, while consumers poll pages of random sizes. Every
 * consumer ends with every change exactly once, each object's in version order; and a consumer that
 * resumes from any cursor it was given sees exactly the changes it had not seen before it, once each.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feedLog } from '../../lib/db/feed/feed-log';
import { NO_ORIGIN } from '../../lib/domain/change-history';
import {
  type ChangeEvent,
  FEED_START,
  type FeedEvent,
  type FeedPosition,
  feedEventOf,
} from '../../lib/domain/feed';
import { createTestTable } from '../support/dynamo';
import { changeEventsOf } from '../support/events';
import { fuzz, timeoutFor } from './harness';

const RUNS = 12;
const MS_PER_RUN = 2_500;

interface Plan {
  /** Versions of each object (its changes). */
  versions: number[];
  /** The commit order: each pick commits the next version of that object (others follow in order). */
  picks: number[];
  /** Which stream shard carries each object's records. */
  streamShardOf: number[];
  /** Batch sizes the stream hands its appender, in turn, and which batches come twice. */
  batchSizes: number[];
  twice: boolean[];
  /** Page sizes the two consumers ask for, in turn. */
  limits: [number[], number[]];
  /** Which of its cursors the first consumer resumes from afterwards. */
  resumeFrom: number[];
}

const plan: fc.Arbitrary<Plan> = fc.integer({ min: 1, max: 6 }).chain((objects) =>
  fc.record({
    versions: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: objects, maxLength: objects }),
    picks: fc.array(fc.nat({ max: objects - 1 }), { maxLength: 40 }),
    streamShardOf: fc.array(fc.nat({ max: 2 }), { minLength: objects, maxLength: objects }),
    batchSizes: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 12 }),
    twice: fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
    limits: fc.tuple(
      fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 8 }),
      fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 8 }),
    ),
    resumeFrom: fc.array(fc.nat(), { maxLength: 3 }),
  }),
);

/** The changes in commit order: each object's versions 1..n, interleaved as the picks say. */
const commitOrder = ({ versions, picks }: Plan, firstId: number): ChangeEvent[] => {
  const next = versions.map(() => 1);
  const order: number[] = [];
  for (const pick of [...picks, ...versions.flatMap((count, object) => Array(count).fill(object))])
    if ((next[pick] ?? 1) <= (versions[pick] ?? 0)) {
      order.push(pick);
      next[pick] = (next[pick] ?? 1) + 1;
    }
  const seen = versions.map(() => 0);
  return order.map((object, index) => {
    seen[object] = (seen[object] ?? 0) + 1;
    return feedEventOf({
      id: firstId + index,
      endpoint: 'Person',
      object_id: 70_000 + object * 13,
      version: seen[object] ?? 1,
      action: seen[object] === 1 ? 'create' : 'update',
      requester: null,
      at: new Date(Date.UTC(2026, 10, 26) + index).toISOString(),
      changed: [],
      provider_data: NO_ORIGIN,
    });
  });
};

const cycle = <T>(list: readonly T[], index: number): T => list[index % list.length] as T;

const expectVersionOrder = (events: readonly FeedEvent[]) => {
  const last = new Map<number, number>();
  for (const { object_id, version } of changeEventsOf(events)) {
    expect(version, `object ${object_id}`).toBeGreaterThan(last.get(object_id) ?? 0);
    last.set(object_id, version);
  }
};

let nextId = 1;

const run = async (p: Plan) => {
  const table = await createTestTable();
  const log = feedLog(table);
  const changes = commitOrder(p, nextId);
  nextId += changes.length;
  const objectIds = [...new Set(changes.map(({ object_id }) => object_id))].sort((a, b) => a - b);
  // Each stream shard's records: its objects' changes in commit order, cut into batches.
  const streams = [0, 1, 2].map((shard) => {
    const records = changes.filter(
      ({ object_id }) => cycle(p.streamShardOf, objectIds.indexOf(object_id)) === shard,
    );
    const batches: FeedEvent[][] = [];
    for (let at = 0, n = 0; at < records.length; n++) {
      const size = cycle(p.batchSizes, n);
      batches.push(records.slice(at, at + size));
      at += size;
    }
    return batches;
  });
  const consumers = p.limits.map((limits) => ({
    limits,
    at: FEED_START,
    seen: [] as FeedEvent[],
    cursors: [] as { position: FeedPosition; seenBefore: number }[],
    polls: 0,
  }));
  const poll = async (consumer: (typeof consumers)[number]) => {
    const page = await log.page(consumer.at, cycle(consumer.limits, consumer.polls++));
    consumer.seen.push(...page.events);
    consumer.at = page.next;
    consumer.cursors.push({ position: page.next, seenBefore: consumer.seen.length });
    return page.events.length;
  };

  // Rounds: each stream shard's appender takes its next batch (some twice, one right after the
  // other), while both consumers poll, all at once.
  for (let round = 0; streams.some((batches) => round < batches.length); round++) {
    await Promise.all([
      ...streams.flatMap((batches) => {
        const batch = batches[round];
        if (!batch) return [];
        const twice = cycle(p.twice, round);
        return [log.append(batch).then(() => (twice ? log.append(batch) : 0))];
      }),
      ...consumers.map(poll),
    ]);
  }
  // Then each consumer polls until a page comes back empty.
  for (const consumer of consumers) while ((await poll(consumer)) > 0);

  const ids = changes.map(({ id }) => id).sort((a, b) => a - b);
  for (const consumer of consumers) {
    expect(consumer.seen.map(({ id }) => id).sort((a, b) => a - b)).toEqual(ids);
    expectVersionOrder(consumer.seen);
  }
  // Resumed from a cursor it was given, a consumer sees exactly what it had not seen before it.
  const [first] = consumers;
  for (const pick of p.resumeFrom) {
    const cursor = cycle(first?.cursors ?? [], pick);
    const after: FeedEvent[] = [];
    for (let at = cursor.position; ; ) {
      const page = await log.page(at, 5);
      if (page.events.length === 0) break;
      after.push(...page.events);
      at = page.next;
    }
    const expected = (first?.seen ?? []).slice(cursor.seenBefore).map(({ id }) => id);
    expect(after.map(({ id }) => id).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    expectVersionOrder(after);
  }
};

describe('the change feed under concurrent appenders and pollers', () => {
  it(
    'gives every consumer every change once, in version order, from any cursor it was given',
    async () => {
      await fuzz('change feed: concurrent appends and polls', plan, run, RUNS, MS_PER_RUN);
    },
    timeoutFor(RUNS, MS_PER_RUN),
  );
});
