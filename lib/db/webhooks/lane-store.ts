/**
 * A webhook subscription's delivery lane in the table (API.md 16): the feed position delivered up to,
 * the retries of the event at that position, and a lease, so that one runner at a time delivers a
 * subscription's events, in feed order. Beside it, in the subscription's own partition, each
 * attempt, newest first, kept 30 days (the table's TTL).
 */

import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FeedPosition } from '../../domain/feed';
import type { DeliveryRecord, Lane, LaneStore } from '../../domain/ports/subscriptions';
import { OPEN } from '../../domain/principal';
import { retryDeadline } from '../../timeouts';
import type { Storage } from '../table/client';
import { TIME_TO_LIVE_ATTRIBUTE } from '../table/definition';
import { DELIVERY_SORT_PREFIX, deliveryKey, subscriptionLaneKey } from '../table/keys';
import { storageCall } from '../table/storage-errors';
import { type Action, requesterCheck, rulingActions, transactionOf } from '../write/actions';
import { asRequester, jitteredBackoff, retrying, sendWrite } from '../write/send';

/** How long a lease holds without being renewed: a runner that died frees its lane after this. */
export const LEASE_MS = 30_000;

/** How long an attempt's record is kept. */
export const DELIVERY_RETENTION_SECONDS = 30 * 24 * 60 * 60;

/** A new subscription's lane, as a part of its create: it starts where the feed ends now. */
export const laneStart = (tableName: string, id: string, position: FeedPosition): Action => [
  {
    Put: {
      TableName: tableName,
      Item: { ...subscriptionLaneKey(id), type: 'Lane', position: [...position], attempt: 0 },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  { kind: 'object' },
];

/** A deleted subscription's lane, as a part of its delete. */
export const laneRemoval = (tableName: string, id: string): Action => [
  { Delete: { TableName: tableName, Key: subscriptionLaneKey(id) } },
  { kind: 'object' },
];

const laneFrom = (item: Record<string, unknown>): Lane => ({
  position: item.position as number[],
  attempt: (item.attempt as number | undefined) ?? 0,
  ...(typeof item.first_failure === 'number' ? { first_failure: item.first_failure } : {}),
  ...(typeof item.next_attempt === 'number' ? { next_attempt: item.next_attempt } : {}),
});

/** A conditional write: its answer, or undefined when its condition did not hold. */
const conditional = async <T>(write: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await storageCall(write);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
};

/** A lane stored with its lease renewed: the retry fields it has set, those it has not removed. */
const laneUpdate = (tableName: string, id: string, token: string, lane: Lane, now: number) => {
  const retry = Object.entries({ first_failure: lane.first_failure, next_attempt: lane.next_attempt });
  const set = retry.flatMap(([name, value]) => (value === undefined ? [] : [`${name} = :${name}`]));
  const removed = retry.flatMap(([name, value]) => (value === undefined ? [name] : []));
  return new UpdateCommand({
    TableName: tableName,
    Key: subscriptionLaneKey(id),
    UpdateExpression: [
      `SET ${['#position = :position', 'attempt = :attempt', 'lease_until = :until', ...set].join(', ')}`,
      ...(removed.length > 0 ? [`REMOVE ${removed.join(', ')}`] : []),
    ].join(' '),
    ConditionExpression: 'lease = :token',
    ExpressionAttributeNames: { '#position': 'position' },
    ExpressionAttributeValues: {
      ':position': [...lane.position],
      ':attempt': lane.attempt,
      ':until': now + LEASE_MS,
      ':token': token,
      ...Object.fromEntries(
        retry.flatMap(([name, value]) => (value === undefined ? [] : [[`:${name}`, value]])),
      ),
    },
  });
};

/** An attempt's item: its event's type as `event_type`, beside the item's own `type`. */
const recordOf = ({
  pk: _pk,
  sk: _sk,
  type: _type,
  event_type,
  [TIME_TO_LIVE_ATTRIBUTE]: _ttl,
  ...record
}: Record<string, unknown>) => ({ ...record, type: event_type }) as unknown as DeliveryRecord;

/** A subscription's lane, read strongly; undefined when it has none. */
const laneOf = async ({ client, tableName }: Storage, id: string) => {
  const { Item } = await storageCall(() =>
    client.send(new GetCommand({ TableName: tableName, Key: subscriptionLaneKey(id), ConsistentRead: true })),
  );
  return Item ? laneFrom(Item) : undefined;
};

/** A lane set back to `position`, its retries and lease gone, as a part of a replay. */
const laneReset = (tableName: string, id: string, position: FeedPosition): Action => [
  {
    Update: {
      TableName: tableName,
      Key: subscriptionLaneKey(id),
      UpdateExpression:
        'SET #position = :position, attempt = :zero REMOVE first_failure, next_attempt, lease, lease_until',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#position': 'position' },
      ExpressionAttributeValues: { ':position': [...position], ':zero': 0 },
    },
  },
  { kind: 'object' },
];

/** The lane with a new lease, where no lease holds (none, or one past its time). */
const takeLane = async ({ client, tableName }: Storage, id: string, now: number) => {
  const token = randomUUID();
  const taken = await conditional(() =>
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: subscriptionLaneKey(id),
        UpdateExpression: 'SET lease = :token, lease_until = :until',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(lease_until) OR lease_until < :now)',
        ExpressionAttributeValues: { ':token': token, ':until': now + LEASE_MS, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return taken?.Attributes ? { token, lane: laneFrom(taken.Attributes) } : undefined;
};

/** Attempts newest first, a page at a time. */
const deliveriesOf = async ({ client, tableName }: Storage, id: string, limit: number, after?: string) => {
  const pk = subscriptionLaneKey(id).pk;
  const { Items = [], LastEvaluatedKey } = await storageCall(() =>
    client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': DELIVERY_SORT_PREFIX },
        Limit: limit,
        ...(after ? { ExclusiveStartKey: { pk, sk: after } } : {}),
      }),
    ),
  );
  return { deliveries: Items.map(recordOf), next: LastEvaluatedKey ? String(LastEvaluatedKey.sk) : null };
};

/** One attempt, kept 30 days. */
const attemptPut = (tableName: string, id: string, record: DeliveryRecord) => {
  const atMs = Date.parse(record.at);
  return new PutCommand({
    TableName: tableName,
    Item: {
      ...deliveryKey(id, atMs, record.event, record.attempt),
      ...record,
      type: 'Delivery',
      event_type: record.type,
      [TIME_TO_LIVE_ATTRIBUTE]: Math.floor(atMs / 1000) + DELIVERY_RETENTION_SECONDS,
    },
  });
};

export const laneStore = (storage: Storage): LaneStore => {
  const { client, tableName } = storage;
  return {
    get: (id) => laneOf(storage, id),
    take: (id, now) => takeLane(storage, id, now),
    save: async (id, token, lane, now) =>
      (await conditional(() => client.send(laneUpdate(tableName, id, token, lane, now)))) !== undefined,
    async release(id, token) {
      await conditional(() =>
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: subscriptionLaneKey(id),
            UpdateExpression: 'REMOVE lease, lease_until',
            ConditionExpression: 'lease = :token',
            ExpressionAttributeValues: { ':token': token },
          }),
        ),
      );
    },
    // From `position` again, retries forgotten; a runner holding the lease loses it (its next save
    // fails). With its requester checked as a person write's, in the same transaction; read first, so
    // that no lane (no subscription) is told apart from a write that met another and is sent again.
    replay: (id, position, requester, { ruling = OPEN } = {}) =>
      asRequester(requester, (acting) =>
        retrying({ deadline: retryDeadline(), backoff: jitteredBackoff }, async () => {
          if (!(await laneOf(storage, id))) return false;
          const actions = [
            laneReset(tableName, id, position),
            requesterCheck(tableName, acting),
            ...rulingActions(tableName, ruling, { requester: acting, personId: acting }),
          ];
          return (await sendWrite(client, transactionOf(actions))) ? true : undefined;
        }),
      ),
    async record(id, record) {
      await storageCall(() => client.send(attemptPut(tableName, id, record)));
    },
    deliveries: (id, limit, after) => deliveriesOf(storage, id, limit, after),
  };
};
