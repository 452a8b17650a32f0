/**
 * Webhook subscriptions in the table (API.md 16): one partition of a handful of items, read whole, each
 * written in a transaction with its requester's check as a person write's (API.md 9.1), over the
 * version it was read at.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { NotFound } from '../../domain/errors';
import type { SubscriptionStore, SubscriptionWriteOptions } from '../../domain/ports/subscriptions';
import { OPEN } from '../../domain/principal';
import { pausedByService, type StoredSubscription } from '../../domain/subscriptions';
import { retryDeadline } from '../../timeouts';
import { feedLog } from '../feed/feed-log';
import type { Storage } from '../table/client';
import { SUBSCRIPTION_PARTITION, SUBSCRIPTION_SORT_PREFIX, subscriptionKey } from '../table/keys';
import { sortKeyRange } from '../table/sort-key-range';
import { storageCall } from '../table/storage-errors';
import { type Action, objectPut, requesterCheck, rulingActions, transactionOf } from '../write/actions';
import { asRequester, checkPreconditions, jitteredBackoff, retrying, sendWrite } from '../write/send';
import { laneRemoval, laneStart } from './lane-store';

const FIELDS = [
  'id',
  'url',
  'types',
  'description',
  'paused',
  'paused_reason',
  'CoreMetaData',
  'secrets',
] as const;

const toItem = (subscription: StoredSubscription) => ({
  ...subscriptionKey(subscription.id),
  type: 'Subscription',
  ...subscription,
});

const fromItem = (item: Record<string, unknown>) =>
  Object.fromEntries(FIELDS.map((field) => [field, item[field]])) as unknown as StoredSubscription;

/** What authorizes a write: its requester is a live person, and with binding on the caller's own. */
const authorized = (tableName: string, requester: number, { ruling = OPEN }: SubscriptionWriteOptions) => [
  requesterCheck(tableName, requester),
  ...rulingActions(tableName, ruling, { requester, personId: requester }),
];

const removal = (tableName: string, stored: StoredSubscription): Action => [
  {
    Delete: {
      TableName: tableName,
      Key: subscriptionKey(stored.id),
      ConditionExpression: 'attribute_exists(pk) AND #meta.#version = :previous',
      ExpressionAttributeNames: { '#meta': 'CoreMetaData', '#version': 'version' },
      ExpressionAttributeValues: { ':previous': stored.CoreMetaData.version },
    },
  },
  { kind: 'object' },
];

/** Every subscription, oldest first: the one partition, read whole. */
const listSubscriptions = async (storage: Storage) =>
  (
    await sortKeyRange<Record<string, unknown>>(
      storage,
      SUBSCRIPTION_PARTITION,
      SUBSCRIPTION_SORT_PREFIX,
      FIELDS,
    )
  )
    .map(fromItem)
    .sort(
      (a, b) =>
        a.CoreMetaData.date_created.localeCompare(b.CoreMetaData.date_created) || a.id.localeCompare(b.id),
    );

/** One subscription, read strongly (a write follows); NotFound when there is none. */
const getSubscription = async ({ client, tableName }: Storage, id: string) => {
  const { Item } = await storageCall(() =>
    client.send(new GetCommand({ TableName: tableName, Key: subscriptionKey(id), ConsistentRead: true })),
  );
  if (!Item) throw new NotFound('Subscription', id);
  return fromItem(Item);
};

/** Runs a write of what is stored now until it lands, reading again when another landed first. */
const overStored = <T>(
  storage: Storage,
  id: string,
  conditions: SubscriptionWriteOptions['conditions'],
  write: (stored: StoredSubscription) => Promise<T | undefined>,
) =>
  retrying({ deadline: retryDeadline(), backoff: jitteredBackoff }, async () => {
    const stored = await getSubscription(storage, id);
    checkPreconditions(conditions ?? {}, stored.CoreMetaData.version, 'Subscription');
    return write(stored);
  });

/**
 * A new subscription put where none is, as its requester (or the survivor it was merged into), with its
 * delivery lane at the feed's end: it is sent the events appended from now on.
 */
const createSubscription = async (
  storage: Storage,
  subscription: StoredSubscription,
  options: SubscriptionWriteOptions,
) => {
  const { client, tableName } = storage;
  const lane = laneStart(tableName, subscription.id, await feedLog(storage).head());
  return asRequester(subscription.CoreMetaData.created_by, async (acting) => {
    const made = {
      ...subscription,
      CoreMetaData: { ...subscription.CoreMetaData, created_by: acting, modified_by: acting },
    };
    const put = objectPut(tableName, toItem(made), null);
    // A new UUID is no other subscription's: a put that finds one there is a fault, not a retry.
    if (!(await sendWrite(client, transactionOf([put, lane, ...authorized(tableName, acting, options)]))))
      throw new Error(`Subscription ${made.id} exists already`);
    return made;
  });
};

export const subscriptionStore = (storage: Storage): SubscriptionStore => {
  const { client, tableName } = storage;
  return {
    list: () => listSubscriptions(storage),
    get: (id) => getSubscription(storage, id),
    create: (subscription, options = {}) => createSubscription(storage, subscription, options),

    update: (id, requester, change, options = {}) =>
      asRequester(requester, (acting) =>
        overStored(storage, id, options.conditions, async (stored) => {
          const next = await change(stored, acting);
          const checks = authorized(tableName, acting, options);
          if (next === null) {
            // Nothing changes, and nothing is written; a bound caller still proves the requester is its own.
            const landed =
              options.ruling?.kind === 'own' ? await sendWrite(client, transactionOf(checks)) : true;
            return landed ? stored : undefined;
          }
          const put = objectPut(tableName, toItem(next), stored.CoreMetaData.version);
          return (await sendWrite(client, transactionOf([put, ...checks]))) ? next : undefined;
        }),
      ),

    async pause(id, reason, version) {
      const stored = await getSubscription(storage, id);
      if (stored.CoreMetaData.version !== version || stored.paused) return false;
      const put = objectPut(tableName, toItem(pausedByService(stored, reason, new Date())), version);
      return sendWrite(client, transactionOf([put]));
    },

    remove: (id, requester, options = {}) =>
      asRequester(requester, (acting) =>
        overStored(storage, id, options.conditions, async (stored) => {
          const actions = [
            removal(tableName, stored),
            laneRemoval(tableName, id),
            ...authorized(tableName, acting, options),
          ];
          return (await sendWrite(client, transactionOf(actions))) ? true : undefined;
        }),
      ).then(() => undefined),
  };
};
