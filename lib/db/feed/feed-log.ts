/**
 * The change feed's storage (API.md 14; keys.ts says what it costs): `FEED_SHARDS` logs, each
 * numbering its own events without gaps under a head moved by a conditional write, and a mark per
 * event so that an event is appended once however often the stream delivers it. lib/domain/feed.ts
 * says which shard an event goes to and how a page is put together.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  assemblePage,
  FEED_EVENT_TYPE,
  FEED_SHARDS,
  type FeedEvent,
  type PlacedEvent,
  pageShares,
  shardOfEvent,
} from '../../domain/feed';
import type { FeedLog } from '../../domain/ports/feed';
import { addMetric } from '../../metrics';
import { retryDeadline } from '../../timeouts';
import { batchGet, type Item, keyString } from '../table/batch-get';
import type { Storage } from '../table/client';
import { feedEventKey, feedHeadKey, feedMarkKey } from '../table/keys';
import { storageCall } from '../table/storage-errors';
import { type Action, MAX_TRANSACTION_ACTIONS, transactionOf } from '../write/actions';
import { jitteredBackoff, type RetryOptions, retrying, sendWrite } from '../write/send';

/** Events one transaction appends to a shard: two actions each (the event, its mark) and the head. */
export const APPEND_CHUNK = Math.floor((MAX_TRANSACTION_ACTIONS - 1) / 2);

const seqOf = (item: Item | undefined) => (typeof item?.seq === 'number' ? item.seq : 0);

const placedOf = ({ pk: _pk, sk: _sk, type: _type, eventType, ...event }: Item): PlacedEvent =>
  ({ ...event, type: eventType }) as PlacedEvent;

/** The head moved from `from` to `to`: only if no other append moved it first. */
const headMove = (tableName: string, shard: number, from: number, to: number): Action => [
  {
    Put: {
      TableName: tableName,
      Item: { ...feedHeadKey(shard), type: 'FeedHead', seq: to },
      ...(from === 0
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: '#seq = :from',
            ExpressionAttributeNames: { '#seq': 'seq' },
            ExpressionAttributeValues: { ':from': from },
          }),
    },
  },
  { kind: 'object' },
];

const eventPuts = (tableName: string, shard: number, event: FeedEvent, seq: number): Action[] => {
  const { type: eventType, ...rest } = event;
  return [
    [
      {
        Put: {
          TableName: tableName,
          Item: { ...feedEventKey(shard, seq), type: FEED_EVENT_TYPE, eventType, ...rest, shard, seq },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { kind: 'object' },
    ],
    [
      {
        Put: {
          TableName: tableName,
          Item: { ...feedMarkKey(event.id), type: 'FeedMark', shard, seq },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { kind: 'mark' },
    ],
  ];
};

/**
 * The transaction that appends `fresh` to `shard` after its head `head`: the head moved (on condition
 * that it still reads `head`), each event and its mark put where none is (keys.ts: 2k + 1 actions).
 */
export const appendActions = (
  tableName: string,
  shard: number,
  head: number,
  fresh: readonly FeedEvent[],
): Action[] => [
  headMove(tableName, shard, head, head + fresh.length),
  ...fresh.flatMap((event, index) => eventPuts(tableName, shard, event, head + index + 1)),
];

/**
 * Appends one shard's events, a chunk at a time, in their order: each round reads the chunk's marks
 * and the head, drops what is in already, and writes the rest under the head it read; a round that
 * meets another append reads again. Each event appended counts its lag (FeedLag): from its entry's
 * time to the append that landed it; one delivered again and skipped is not counted twice.
 */
const appendToShard = async (
  { client, tableName }: Storage,
  backoff: RetryOptions['backoff'],
  shard: number,
  events: readonly FeedEvent[],
  deadline: number,
) => {
  let appended = 0;
  for (let start = 0; start < events.length; start += APPEND_CHUNK) {
    const chunk = events.slice(start, start + APPEND_CHUNK);
    appended += await retrying({ deadline, backoff }, async () => {
      const found = await batchGet({ client, tableName }, [
        feedHeadKey(shard),
        ...chunk.map(({ id }) => feedMarkKey(id)),
      ]);
      const fresh = chunk.filter(({ id }) => !found.has(keyString(feedMarkKey(id))));
      if (fresh.length === 0) return 0;
      const head = seqOf(found.get(keyString(feedHeadKey(shard))));
      const write = appendActions(tableName, shard, head, fresh);
      if (!(await sendWrite(client, transactionOf(write)))) return undefined;
      const appendedAt = Date.now();
      for (const { time } of fresh) addMetric('FeedLag', appendedAt - Date.parse(time));
      return fresh.length;
    });
  }
  return appended;
};

const SHARDS = Array.from({ length: FEED_SHARDS }, (_, shard) => shard);

const readShare = async (
  { client, tableName }: Storage,
  shard: number,
  after: number,
  share: number,
): Promise<PlacedEvent[]> => {
  if (share === 0) return [];
  const { Items = [] } = await storageCall(() =>
    client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
        ExpressionAttributeValues: {
          ':pk': feedEventKey(shard, 0).pk,
          ':first': feedEventKey(shard, after + 1).sk,
          ':last': feedEventKey(shard, after + share).sk,
        },
        Limit: share,
      }),
    ),
  );
  return Items.map(placedOf);
};

export const feedLog = (
  { client, tableName }: Storage,
  { backoff = jitteredBackoff }: Partial<Pick<RetryOptions, 'backoff'>> = {},
): FeedLog => {
  return {
    async append(events, { deadline = retryDeadline() } = {}) {
      const byShard = new Map<number, FeedEvent[]>();
      for (const event of events) {
        const shard = shardOfEvent(event);
        byShard.set(shard, [...(byShard.get(shard) ?? []), event]);
      }
      const counts = await Promise.all(
        [...byShard].map(([shard, shardEvents]) =>
          appendToShard({ client, tableName }, backoff, shard, shardEvents, deadline),
        ),
      );
      return counts.reduce((sum, count) => sum + count, 0);
    },

    async head() {
      const heads = await batchGet({ client, tableName }, SHARDS.map(feedHeadKey), { consistent: true });
      return SHARDS.map((shard) => seqOf(heads.get(keyString(feedHeadKey(shard)))));
    },

    async page(position, limit) {
      const shards = SHARDS;
      const heads = await batchGet({ client, tableName }, shards.map(feedHeadKey), { consistent: false });
      const pending = shards.map((shard) =>
        Math.max(0, seqOf(heads.get(keyString(feedHeadKey(shard)))) - (position[shard] ?? 0)),
      );
      const shares = pageShares(pending, limit);
      const read = await Promise.all(
        shards.map((shard) =>
          readShare({ client, tableName }, shard, position[shard] ?? 0, shares[shard] ?? 0),
        ),
      );
      return assemblePage(position, read, pending, limit);
    },
  };
};
