/**
 * Section 10: the change feed (issue #41, API.md 14). On a table of its own with the stack's stream,
 * fed to the feed's appender by the local stream poller as `npm start` wires it (lib/local/service.ts:
 * the `append-events` subscription, `startStreamPoller` every 250 ms, batches of up to 100 records);
 * the appender has a DynamoDB client of its own, as its Lambda does. Writes go through the create and
 * update handlers, reads through the list-events handler (`GET /events`), as merge.ts calls its handler.
 * - Lag at idle: writes one after another (a create, then a PATCH of the person it created, and so on),
 *   each sent at a random moment of the poller's interval and followed by `GET /events` from the cursor
 *   kept, every 25 ms until its event is there: lag = when that read answered − when the write answered.
 *   API.md 14 says within 5 s.
 * - Lag under a burst: creates sent `burstConcurrency` at a time while one reader polls (`pageLimit`)
 *   without pause (25 ms after an empty page); per create, when the read that held its event answered −
 *   when the create answered. No API threshold.
 * - What a page costs: the feed filled to `pagedEvents` events, then read from its start a page of
 *   `pageLimit` at a time through the handler with every DynamoDB call recorded, against keys.ts's model
 *   ("The change feed": one BatchGetItem of the 8 heads, at most one Query per shard with events past
 *   the cursor; about L / 26 read units for L events of ~0.3 KB, plus the heads).
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { buildHandler as buildList } from '../../functions/list-events';
import { buildHandler as buildUpdate } from '../../functions/update-person';
import { appendEvents } from '../../lib/db/feed/feed-appender';
import { feedLog } from '../../lib/db/feed/feed-log';
import { idempotencyStore } from '../../lib/db/idempotency/idempotency-store';
import { personRepository } from '../../lib/db/person-repository';
import { dynamoClients, type Storage } from '../../lib/db/table/client';
import { itemSize } from '../../lib/db/table/item-size';
import { STREAM_SUBSCRIPTIONS } from '../../lib/db/table/stream-subscriptions';
import { decodeFeedCursor } from '../../lib/domain/feed';
import { CreatePersonBody } from '../../lib/domain/schemas';
import { startLocalBus } from '../../lib/local/bus';
import { localClientConfig } from '../../lib/local/dynamo-local';
import { lambdaContext } from '../../lib/local/lambda-context';
import type { HttpFunction } from '../../lib/local/server';
import { startStreamPoller } from '../../lib/local/streams';
import { type EventSpec, httpEvent } from '../support/events';
import { capacityOf, type Instrument, newTally, type RecordedCall } from './capacity';
import type { BenchConfig } from './config';
import {
  GIVE_UP_MS,
  modelEventsRcu,
  modelPageRcu,
  PAGE_MODEL,
  POLL_MS,
  POLLER_INTERVAL_MS,
} from './feed-model';
import { type Summary, summarise } from './stats';

export interface FeedLag {
  writes: number;
  /** Write answered → the read that held its event answered, ms. */
  lag: Summary;
}

export interface FeedIdle extends FeedLag {
  creates: number;
  patches: number;
}

export interface FeedBurst extends FeedLag {
  concurrency: number;
  /** First create sent → last create answered. */
  seconds: number;
  perSecond: number;
  /** Pages the reader asked for while it waited for the burst's events. */
  reads: number;
  /** Of the burst's events, those readable by the time its last create answered. */
  readableDuringWrites: number;
  /** Its last create answered → the last of its events readable, ms. */
  drainMs: number;
}

/** A figure over the pages read: mean and most. */
export interface PerPage {
  mean: number;
  max: number;
}

export interface FeedPages {
  /** Events the feed held when its pages were read. */
  feedEvents: number;
  limit: number;
  /** Pages that held events (the last read, past the end, apart). */
  pages: number;
  /** `min` is the least of any page; `beforeLast` the mean of the pages before the last (the feed's end). */
  eventsPerPage: PerPage & { min: number; beforeLast: number };
  calls: PerPage;
  callsByCommand: Record<string, number>;
  /** Items the calls answered: the heads found, the events each Query read. */
  itemsRead: PerPage;
  rcu: PerPage;
  /** What the model allows each page (its Queries' shares), and the page most over it. */
  modelRcu: PerPage;
  worst: { rcu: number; model: number; events: number; queries: number };
  /** keys.ts's "L / 26 + the heads" for a full page of `limit`. */
  modelFullPage: number;
  /** The size DynamoDB counts of each event item read (whole items: the Query projects nothing). */
  eventBytes: PerPage;
  /** The read past the last event: what a consumer's poll of an idle feed costs. */
  empty: { calls: number; rcu: number };
  /** Pages whose calls and read units stayed within the model. */
  withinCalls: number;
  withinRcu: number;
}

export interface FeedSection {
  pollerIntervalMs: number;
  pollMs: number;
  idle: FeedIdle;
  burst: FeedBurst;
  pages: FeedPages;
}

interface WirePage {
  events: { id: string; subject: string; data: { version: number } }[];
  next: string;
}

const sleep = (ms: number) => new Promise((wait) => setTimeout(wait, ms));
const perPage = (values: readonly number[]): PerPage => ({
  mean: Number((values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length)).toFixed(3)),
  max: Math.max(...values),
});
/** The key the bench's list-events handler signs its cursors with. */
const CURSOR_KEY = randomBytes(32).toString('base64url');

/** Events the feed has handed a reader at this cursor: the sum of its positions. */
const eventsBehind = (cursor: string) =>
  (decodeFeedCursor(cursor, CURSOR_KEY) ?? []).reduce((sum, n) => sum + n, 0);

export const runFeed = async (
  storage: Storage,
  raw: DynamoDBClient,
  instrument: Instrument,
  config: BenchConfig,
  log: (message: string) => void,
  endpoint: string,
): Promise<FeedSection> => {
  const { idleWrites, burstWrites, burstConcurrency, pagedEvents, pageLimit } = config.feed;
  const runId = Date.now().toString(36);
  let unique = 0;
  const tag = (letter: string) => `${letter}${runId}${String(++unique).padStart(6, '0')}`;

  // The appender as its Lambda has it: a container of its own, the same subscription npm start runs.
  const subscription = STREAM_SUBSCRIPTIONS.find(({ handler }) => handler === 'append-events');
  if (!subscription) throw new Error('No append-events stream subscription');
  const appender = dynamoClients(localClientConfig(endpoint)).document;
  const poller = await startStreamPoller({
    endpoint,
    tableName: storage.tableName,
    consumers: [
      {
        name: subscription.handler,
        accepts: subscription.accepts,
        // Onto npm start's bus, which builds each event's message as EventBridge delivers it.
        handler: appendEvents(
          { client: appender, tableName: storage.tableName },
          { publish: startLocalBus({ baseUrl: 'http://127.0.0.1:3000', consumers: [] }).publish },
        ),
      },
    ],
    intervalMs: POLLER_INTERVAL_MS,
    log: (message, details) => log(`feed: ${message} ${details instanceof Error ? details.message : ''}`),
  });
  try {
    const { person: requesterPerson } = await personRepository(storage).create(
      CreatePersonBody.parse({ Names: { '@set': [{ first_name: 'Bench', last_name: `Feed ${tag('r')}` }] } }),
      0,
    );
    const requester = requesterPerson.id;
    const persons = personRepository(storage);
    const idempotency = { store: idempotencyStore({ client: raw, tableName: storage.tableName }) };
    const create = buildCreate({ persons, idempotency }) as HttpFunction;
    const update = buildUpdate({ persons, idempotency }) as HttpFunction;
    const list = buildList({ feed: feedLog(storage), cursorKey: async () => CURSOR_KEY }) as HttpFunction;

    const call = async (handler: HttpFunction, name: string, spec: EventSpec, status: number) => {
      const result = (await handler(
        httpEvent(spec),
        lambdaContext(name),
      )) as APIGatewayProxyStructuredResultV2;
      if (result.statusCode !== status)
        throw new Error(
          `${spec.method} ${spec.path ?? spec.route}: expected ${status}, got ${result.statusCode}: ${String(result.body).slice(0, 500)}`,
        );
      return JSON.parse(String(result.body)) as Record<string, unknown>;
    };
    /** A create of one name and one email; its event's key and when it answered. */
    const createOne = async () => {
      const label = tag('c');
      const body = await call(
        create,
        'create-person',
        {
          method: 'POST',
          route: '/Person',
          body: {
            Names: { '@set': [{ first_name: 'Bench', last_name: `Feed ${label}` }] },
            Emails: { '@set': [{ email: `${label}@bench.example.org` }] },
          },
          requester,
        },
        201,
      );
      return { id: body.id as number, key: `Person/${body.id}@1`, answered: performance.now() };
    };
    /** A PATCH adding one email to a person created at version 1. */
    const patchOne = async (id: number) => {
      const body = await call(
        update,
        'update-person',
        {
          method: 'PATCH',
          route: '/Person/{id}',
          path: `/Person/${id}`,
          pathParameters: { id: String(id) },
          body: { Emails: { '@set': [{ email: `${tag('p')}@bench.example.org` }] } },
          requester,
        },
        200,
      );
      return {
        id,
        key: `Person/${id}@${(body.CoreMetaData as { version: number }).version}`,
        answered: performance.now(),
      };
    };
    /** One page through the handler, and when it answered. */
    const read = async (cursor: string | undefined, limit: number) => {
      const page = (await call(
        list,
        'list-events',
        {
          method: 'GET',
          route: '/events',
          query: { limit: String(limit), ...(cursor ? { after: cursor } : {}) },
        },
        200,
      )) as unknown as WirePage;
      return { page, at: performance.now() };
    };
    const keyOf = ({ subject, data }: WirePage['events'][number]) => `${subject}@${data.version}`;

    /**
     * Reads on from `from` until `done` says so (told the cursor after each page); each event's key
     * with when the read that held it answered.
     */
    const follow = async (
      from: string | undefined,
      seen: Map<string, number>,
      done: (cursor: string) => boolean,
    ) => {
      let cursor = from;
      let reads = 0;
      const started = performance.now();
      for (;;) {
        const { page, at } = await read(cursor, pageLimit);
        reads += 1;
        cursor = page.next;
        for (const event of page.events) if (!seen.has(keyOf(event))) seen.set(keyOf(event), at);
        if (done(cursor)) return { cursor, reads };
        if (at - started > GIVE_UP_MS)
          throw new Error(
            `feed: an event awaited is not in the feed after ${GIVE_UP_MS} ms (cursor ${cursor})`,
          );
        if (page.events.length === 0) await sleep(POLL_MS);
      }
    };

    // The feed so far (the requester's create), read to its end: the cursor every reader goes on from.
    const start = new Map<string, number>();
    let { cursor } = await follow(undefined, start, () => start.has(`Person/${requester}@1`));

    log(`feed: lag at idle, ${idleWrites} writes one after another`);
    const idleLags: number[] = [];
    let creates = 0;
    let patches = 0;
    let last: number | undefined;
    for (let k = 0; k < idleWrites; k++) {
      // At a random moment of the poller's interval, not in step with it.
      await sleep(Math.random() * POLLER_INTERVAL_MS);
      const write = last === undefined ? await createOne() : await patchOne(last);
      if (last === undefined) creates += 1;
      else patches += 1;
      last = last === undefined ? write.id : undefined;
      const seen = new Map<string, number>();
      ({ cursor } = await follow(cursor, seen, () => seen.has(write.key)));
      idleLags.push((seen.get(write.key) as number) - write.answered);
    }

    log(`feed: lag under a burst, ${burstWrites} creates ${burstConcurrency} at a time`);
    const answered = new Map<string, number>();
    const readable = new Map<string, number>();
    let writing = true;
    const reader = follow(
      cursor,
      readable,
      () => !writing && [...answered.keys()].every((key) => readable.has(key)),
    );
    let sent = 0;
    const burstStarted = performance.now();
    await Promise.all(
      Array.from({ length: burstConcurrency }, async () => {
        while (sent < burstWrites) {
          sent += 1;
          const { key, answered: at } = await createOne();
          answered.set(key, at);
        }
      }),
    );
    const writesEnd = performance.now();
    const burstSeconds = (writesEnd - burstStarted) / 1000;
    writing = false;
    const followed = await reader;
    cursor = followed.cursor;
    const burstLags = [...answered].map(([key, at]) => (readable.get(key) as number) - at);
    const burstReadable = [...answered.keys()].map((key) => readable.get(key) as number);

    // Filled up to `pagedEvents` with more creates as fast, then every event awaited in the feed.
    const fill = Math.max(0, pagedEvents - eventsBehind(cursor));
    if (fill > 0) log(`feed: ${fill} more creates, for a feed of ${pagedEvents} events`);
    let filled = 0;
    await Promise.all(
      Array.from({ length: burstConcurrency }, async () => {
        while (filled < fill) {
          filled += 1;
          await createOne();
        }
      }),
    );
    const expected = eventsBehind(cursor) + fill;
    ({ cursor } = await follow(cursor, new Map(), (at) => eventsBehind(at) >= expected));
    const feedEvents = eventsBehind(cursor);

    log(`feed: the feed's ${feedEvents} events read in pages of ${pageLimit}, every call recorded`);
    const pages: {
      events: number;
      calls: number;
      byCommand: Record<string, number>;
      items: number;
      rcu: number;
      model: number;
      queries: number;
      eventBytes: number[];
    }[] = [];
    let pageCursor: string | undefined;
    let empty: FeedPages['empty'] | undefined;
    while (!empty) {
      const recording: RecordedCall[] = [];
      const tally = newTally();
      instrument.recording = recording;
      instrument.tally = tally;
      const { page } = await read(pageCursor, pageLimit);
      instrument.recording = undefined;
      instrument.tally = undefined;
      pageCursor = page.next;
      const { rcu } = capacityOf(recording, 0);
      if (page.events.length === 0) {
        empty = { calls: tally.calls, rcu };
        break;
      }
      const queries = recording.filter(({ command }) => command === 'Query');
      const eventItems = queries.flatMap(({ output }) => (output.Items ?? []) as Record<string, unknown>[]);
      const heads = recording
        .filter(({ command }) => command === 'BatchGetItem')
        .reduce(
          (sum, { output }) =>
            sum + Object.values((output.Responses ?? {}) as Record<string, unknown[]>).flat().length,
          0,
        );
      pages.push({
        events: page.events.length,
        calls: tally.calls,
        byCommand: tally.byCommand,
        items: heads + eventItems.length,
        rcu,
        model: modelPageRcu(queries.map(({ input }) => Number(input.Limit))),
        queries: queries.length,
        eventBytes: eventItems.map(itemSize),
      });
    }
    if (!empty) throw new Error('feed: the pages did not reach the end');
    const events = pages.reduce((sum, page) => sum + page.events, 0);
    if (events !== feedEvents)
      throw new Error(`feed: the pages held ${events} events, the feed ${feedEvents}`);
    const byCommand: Record<string, number> = {};
    for (const page of pages)
      for (const [command, calls] of Object.entries(page.byCommand))
        byCommand[command] = (byCommand[command] ?? 0) + calls;
    const worst = pages.reduce((a, b) => (b.rcu - b.model > a.rcu - a.model ? b : a));

    return {
      pollerIntervalMs: POLLER_INTERVAL_MS,
      pollMs: POLL_MS,
      idle: { writes: idleWrites, creates, patches, lag: summarise(idleLags) },
      burst: {
        writes: burstWrites,
        concurrency: burstConcurrency,
        seconds: Number(burstSeconds.toFixed(2)),
        perSecond: Number((burstWrites / burstSeconds).toFixed(1)),
        reads: followed.reads,
        readableDuringWrites: burstReadable.filter((at) => at <= writesEnd).length,
        drainMs: Math.round(Math.max(...burstReadable) - writesEnd),
        lag: summarise(burstLags),
      },
      pages: {
        feedEvents,
        limit: pageLimit,
        pages: pages.length,
        eventsPerPage: {
          ...perPage(pages.map((page) => page.events)),
          min: Math.min(...pages.map((page) => page.events)),
          beforeLast: perPage((pages.length > 1 ? pages.slice(0, -1) : pages).map((page) => page.events))
            .mean,
        },
        calls: perPage(pages.map((page) => page.calls)),
        callsByCommand: Object.fromEntries(
          Object.entries(byCommand).map(([command, calls]) => [
            command,
            Number((calls / pages.length).toFixed(3)),
          ]),
        ),
        itemsRead: perPage(pages.map((page) => page.items)),
        rcu: perPage(pages.map((page) => page.rcu)),
        modelRcu: perPage(pages.map((page) => page.model)),
        worst: { rcu: worst.rcu, model: worst.model, events: worst.events, queries: worst.queries },
        modelFullPage: Number((modelEventsRcu(pageLimit) + PAGE_MODEL.headsRcu).toFixed(2)),
        eventBytes: perPage(pages.flatMap((page) => page.eventBytes)),
        empty,
        withinCalls: pages.filter((page) => page.calls <= PAGE_MODEL.maxCalls).length,
        withinRcu: pages.filter((page) => page.rcu <= page.model).length,
      },
    };
  } finally {
    await poller.stop();
    appender.destroy();
  }
};
