/**
 * Issue #55 step 4: the capacity model prices the bus and its queues from the catalogues. The feed's
 * appender puts each change's event on the bus (PutEvents, ten a call); every consumer of
 * lib/api/bus-subscriptions.ts takes the events of its types through its own queue, priced at SQS's
 * requests and its function's Lambda time, and a quiet queue still costs its pollers' long polls.
 */
import { describe, expect, it } from 'vitest';
import { BUS_SUBSCRIPTIONS, type BusSubscription } from '../../../lib/api/bus-subscriptions';
import { Mix } from '../../../lib/capacity/mix';
import {
  ASSUMED_DURATION_MS,
  CONSUMER_OPERATIONS,
  capacity,
  FUNCTION_MEMORY_MB,
} from '../../../lib/capacity/model';
import { LIMITS, PRICES, SECONDS_PER_MONTH, SQS_POLLING } from '../../../lib/capacity/prices';
import { renderAnswer } from '../../../lib/capacity/report';
import { STREAM_SUBSCRIPTIONS } from '../../../lib/db/table/stream-subscriptions';

const answer = (mix: unknown, busSubscriptions: readonly BusSubscription[] = BUS_SUBSCRIPTIONS) =>
  capacity(Mix.parse(mix), { persons: 1_000_000, defaultThrottleRate: 10_000, busSubscriptions });
const queueOf = (result: ReturnType<typeof answer>, handler: string) =>
  result.queues.rows.find((row) => row.handler === handler);

/** A consumer a later issue may add, which the duration table does not name: creates and updates. */
const SYNC: BusSubscription = {
  handler: 'sync-directory',
  eventTypes: ['person.created', 'person.updated'],
  deliverySafety: 'by event id',
  batchSize: 10,
  maxReceiveCount: 5,
};
const WITH_SYNC = [...BUS_SUBSCRIPTIONS, SYNC];

/** SQS requests a second of a queue with no message: its pollers' long polls. */
const IDLE = SQS_POLLING.idlePollers.value / SQS_POLLING.longPollSeconds.value;
const month = (perSecond: number) => perSecond * SECONDS_PER_MONTH;
const gbSeconds = (ms: number) => (ms / 1000) * (FUNCTION_MEMORY_MB / 1024);

describe('the capacity model of the event bus and its queues', () => {
  it("puts each change's event on the bus once, typed as the feed's appender types it", () => {
    const result = answer({ rates: { create: 2, patch: 3, merge: 1 } });
    // A merge is the survivor's update and the source's `person.merged`.
    expect(result.eventBridge.eventsPerSecond).toEqual({
      'person.created': 2,
      'person.updated': 4,
      'person.merged': 1,
    });
    expect(result.eventBridge.eventsMonthly).toBeCloseTo(month(7));
    expect(result.eventBridge.monthly).toBeCloseTo(month(7) * PRICES.eventBridgeEvent.usd);
  });

  it("makes the PutEvents calls part of the feed append's cost: one a stream batch's ten events", () => {
    // A batch holds what a second brings (append-events gathers for 1 s), up to 100 records.
    for (const [creates, callsPerSecond, batches] of [
      [0.5, 0.5, 0.5],
      [25, 3, 1],
      [200, 20, 2],
    ] as const) {
      const result = answer({ rates: { create: creates } });
      expect(result.eventBridge.putEventsCallsMonthly, `${creates} creates`).toBeCloseTo(
        month(callsPerSecond),
      );
      const append = result.rows.find((row) => row.operation === 'feed-append');
      expect(append?.invocationsPerSecond).toBeCloseTo(batches);
      expect(append?.gbSecondsMonthly).toBeCloseTo(
        month(
          gbSeconds(
            batches * (ASSUMED_DURATION_MS['feed-append'] ?? 0) +
              callsPerSecond * (ASSUMED_DURATION_MS['put-events'] ?? 0),
          ),
        ),
      );
    }
    expect(ASSUMED_DURATION_MS['put-events']).toBeGreaterThan(0);
  });

  it('costs each subscription more with the events of the types it takes', () => {
    const one = answer({ rates: { create: 1, patch: 1 } });
    const more = answer({ rates: { create: 3, patch: 5 } });
    const perMessage = (handler: string) =>
      (queueOf(more, handler)?.sqsMonthly ?? 0) - (queueOf(one, handler)?.sqsMonthly ?? 0);
    // enrich-person takes creates (2 more), the detector creates and updates (6 more): a SendMessage,
    // a ReceiveMessage and a DeleteMessageBatch each, at most.
    expect(queueOf(more, 'enrich-person')?.messagesPerSecond).toBe(3);
    expect(queueOf(more, 'detect-duplicates')?.messagesPerSecond).toBe(8);
    expect(perMessage('enrich-person')).toBeCloseTo(month(2 * 3) * PRICES.sqsRequest.usd);
    expect(perMessage('detect-duplicates')).toBeCloseTo(month(6 * 3) * PRICES.sqsRequest.usd);
    // Its function: an invocation a message at most, and its time a message.
    const lambda = (result: ReturnType<typeof answer>) =>
      queueOf(result, 'enrich-person')?.lambdaMonthly ?? 0;
    expect(lambda(more) - lambda(one)).toBeCloseTo(
      month(2) * PRICES.lambdaRequest.usd +
        month(2 * gbSeconds(ASSUMED_DURATION_MS.enrich ?? 0)) * PRICES.lambdaGbSecond.usd,
    );
    expect(queueOf(more, 'enrich-person')?.fullBatchInvocationsPerSecond).toBeCloseTo(
      3 / (BUS_SUBSCRIPTIONS[0]?.batchSize ?? 1),
    );
    expect(more.monthly.onDemand).toBeGreaterThan(one.monthly.onDemand);
  });

  it('costs nothing but the idle polls for events of types no subscription takes', () => {
    // Updates and merges: enrichment and the erasure finisher take none of them.
    const result = answer({ rates: { patch: 5, merge: 1 } });
    expect(result.eventBridge.monthly).toBeGreaterThan(0);
    const busy = ['detect-duplicates', 'wake-webhooks'];
    const idle = result.queues.rows.filter((row) => !busy.includes(row.handler));
    expect(idle.map((row) => row.handler).sort()).toEqual(['enrich-person', 'finish-erasure']);
    for (const row of idle) {
      expect(row).toMatchObject({ messagesPerSecond: 0, invocationsPerSecond: 0, concurrency: 0 });
      expect(row.requestsPerSecond).toBe(IDLE);
    }
    // The detector takes the updates (the survivor's included) and the merged source's `person.merged`;
    // a consumer of updates alone, not the `person.merged`.
    expect(queueOf(result, 'detect-duplicates')).toMatchObject({ messagesPerSecond: 7 });
    // The webhook waker takes every event.
    expect(queueOf(result, 'wake-webhooks')).toMatchObject({ messagesPerSecond: 7 });
    expect(queueOf(answer({ rates: { patch: 5, merge: 1 } }, WITH_SYNC), 'sync-directory')).toMatchObject({
      messagesPerSecond: 6,
    });
  });

  it('prices a quiet month at the pollers of each queue, not at zero', () => {
    const quiet = answer({});
    expect(quiet.eventBridge.monthly).toBe(0);
    expect(quiet.queues.monthly).toBeGreaterThan(0);
    expect(quiet.queues.requestsMonthly).toBeCloseTo(BUS_SUBSCRIPTIONS.length * month(IDLE));
    // 5 pollers, a long poll each 20 s: 900 requests an hour a queue.
    expect(IDLE * 3600).toBe(900);
    // One queue more, one queue's pollers more.
    expect(answer({}, WITH_SYNC).queues.monthly).toBeCloseTo(
      (quiet.queues.monthly * WITH_SYNC.length) / BUS_SUBSCRIPTIONS.length,
    );
    expect(quiet.notes.join(' ')).toContain('900 requests an hour');
  });

  it("times every consumer of the stream's and the bus's catalogues; publish-events is gone", () => {
    const handlers = [...STREAM_SUBSCRIPTIONS, ...BUS_SUBSCRIPTIONS].map(({ handler }) => handler);
    expect(Object.keys(CONSUMER_OPERATIONS).sort()).toEqual([...handlers].sort());
    for (const handler of handlers)
      expect(ASSUMED_DURATION_MS[CONSUMER_OPERATIONS[handler] ?? ''], handler).toBeGreaterThan(0);
    expect(Object.keys(ASSUMED_DURATION_MS)).not.toContain('publish-events');
    // A consumer the table does not name is timed as any consumer of the bus, and the answer says so.
    const sync = queueOf(answer({ rates: { create: 10 } }, WITH_SYNC), 'sync-directory');
    expect(sync).toMatchObject({ assumedDuration: true });
    expect(sync?.concurrency).toBeCloseTo((10 * (ASSUMED_DURATION_MS['bus-consumer'] ?? 0)) / 1000);
    expect(answer({ rates: { create: 10 } }, WITH_SYNC).notes.join(' ')).toContain(
      'sync-directory is timed at',
    );
  });

  it("counts a queue's consumer in the account's Lambda concurrency and in its mapping's 1 000 batches", () => {
    const migration = answer({ import: { rate: 2_000 }, enrichment: { share: 0.3 } });
    const enrich = queueOf(migration, 'enrich-person');
    // Every created person is a message, whatever enrichment then finds.
    expect(enrich?.concurrency).toBeCloseTo((2_000 * (ASSUMED_DURATION_MS.enrich ?? 0)) / 1000);
    const batches = migration.limits.find((row) => row.limit === 'queue batches at once');
    expect(batches).toMatchObject({
      load: enrich?.concurrency,
      capacity: LIMITS.sqsConcurrentBatches.value,
      design: false,
    });
    const lambda = migration.limits.find((row) => row.limit === 'Lambda concurrency');
    const http = migration.rows.filter((row) => row.http).reduce((sum, row) => sum + row.concurrency, 0);
    expect(lambda?.load).toBeGreaterThan(http + (enrich?.concurrency ?? 0));
    // Lambda reaches 800 batches from 5 in ceil(795 / 300) = 3 minutes.
    expect(migration.notes.join(' ')).toContain('reaches them in about 3 minute(s)');
    expect(renderAnswer(migration)).toMatch(
      /^enrich-person\s+person\.created\s+2,000\s+6,000\s+2,000\s+800\.0 /m,
    );
  });
});
