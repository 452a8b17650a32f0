/**
 * The versioned write every resource shares (Person, NamePrefix, NameSuffix, enrichment): the object's
 * Put, its ChangeHistory entry and change counter, the claims it takes and releases and the checks it
 * needs, in one TransactWriteItems. Builders here are pure (DynamoDB-Toolbox's params()/send() split);
 * `sendWrite` sends and reads a cancellation back into domain errors.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { ChangeEntry, Endpoint, ProviderData } from '../domain/change-history';
import { ServiceUnavailable, ValidationFailed } from '../domain/errors';
import type { ClaimToTake, VocabularyReference } from '../domain/merge';
import type { Claim } from '../domain/person';
import { decodeCancellation } from './cancellation';
import { changeCounterKeyOf, changeListKey, claimKey, historyKey, type Key } from './keys';
import { storageCall } from './storage-errors';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Who holds a claim: the owner's type (for `existing` in a 409) and the claim item's attribute. */
export interface ClaimOwner {
  endpoint: Endpoint;
  id: number;
}

/** What each action of a write transaction is for, in the order of `TransactItems`. */
export type ActionRole =
  | { kind: 'object' }
  | { kind: 'history' }
  | { kind: 'counter' }
  | { kind: 'mark' }
  | { kind: 'requester'; requester: number }
  | { kind: 'vocabulary'; reference: VocabularyReference }
  | { kind: 'take'; claim: ClaimToTake }
  | { kind: 'release'; claim: Claim };

export type Action = [TransactItem, ActionRole];

/** DynamoDB refuses a transaction of more actions than this. */
export const MAX_TRANSACTION_ACTIONS = 100;

/**
 * DynamoDB refuses items over 400 KB. JSON text over-counts an item's size a little (quotes, braces),
 * so this is a safe bound; each field's limits keep an object well inside it, and this turns the
 * unforeseen case into a clear 400 instead of a 500.
 */
export const MAX_ITEM_BYTES = 390_000;

export const withinItemLimit = <T>(item: T, what: string): T => {
  if (Buffer.byteLength(JSON.stringify(item)) > MAX_ITEM_BYTES)
    throw new ValidationFailed(
      [
        {
          path: '',
          message: `The ${what} would be larger than storage allows: shorten or remove some values`,
        },
      ],
      `The ${what} is too large`,
    );
  return item;
};

/**
 * An object's Put: a create never overwrites (`attribute_not_exists`), an update never creates and
 * lands only over the version it was merged onto.
 */
export const objectPut = (
  tableName: string,
  item: Record<string, unknown>,
  previousVersion: number | null,
): Action => [
  {
    Put: {
      TableName: tableName,
      Item: item,
      ...(previousVersion === null
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: 'attribute_exists(pk) AND #meta.#version = :previous',
            ExpressionAttributeNames: { '#meta': 'CoreMetaData', '#version': 'version' },
            ExpressionAttributeValues: { ':previous': previousVersion },
          }),
    },
  },
  { kind: 'object' },
];

/** The object as stored, compressed: an entry must fit beside a person near the body limit. */
export const encodeSnapshot = (object: unknown): Uint8Array => gzipSync(JSON.stringify(object));
export const decodeSnapshot = <T>(snapshot: Uint8Array | undefined): T | null =>
  snapshot ? (JSON.parse(gunzipSync(snapshot).toString('utf8')) as T) : null;

/** The ChangeHistory entry of a write: one per version, never overwritten. */
export const historyPut = (tableName: string, entry: ChangeEntry, snapshot: unknown): Action => [
  {
    Put: {
      TableName: tableName,
      Item: {
        ...historyKey(entry.endpoint, entry.object_id, entry.version),
        ...changeListKey(entry.endpoint, entry.id, entry.at),
        type: 'ChangeHistory',
        ...entry,
        snapshot: encodeSnapshot(snapshot),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  { kind: 'history' },
];

/** Adds `count` to a counter item, as a part of a write. */
export const counterAdd = (tableName: string, key: Key, count = 1): Action => [
  {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: 'ADD #value :count',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':count': count },
    },
  },
  { kind: 'counter' },
];

/** Counts `count` new entries in the change counter of the shard entry `id` falls in. */
export const counterStep = (tableName: string, endpoint: Endpoint, id: number, count = 1): Action =>
  counterAdd(tableName, changeCounterKeyOf(endpoint, id), count);

/** The ChangeHistory entry of a write and its counter's step. */
export const historyActions = (tableName: string, entry: ChangeEntry, snapshot: unknown): Action[] => [
  historyPut(tableName, entry, snapshot),
  counterStep(tableName, entry.endpoint, entry.id),
];

/** The claim item's attribute naming its owner. */
const ownerAttribute = (endpoint: Endpoint) => (endpoint === 'Person' ? 'personId' : 'entryId');

/** Claims taken with `attribute_not_exists`, released only while they still name this owner. */
export const claimActions = (
  tableName: string,
  owner: ClaimOwner,
  take: readonly ClaimToTake[],
  release: readonly Claim[],
): Action[] => {
  const attribute = ownerAttribute(owner.endpoint);
  return [
    ...take.map(
      (claim): Action => [
        {
          Put: {
            TableName: tableName,
            Item: {
              ...claimKey(claim),
              type: 'Claim',
              field: claim.field,
              value: claim.value,
              [attribute]: owner.id,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        { kind: 'take', claim },
      ],
    ),
    ...release.map(
      (claim): Action => [
        {
          Delete: {
            TableName: tableName,
            Key: claimKey(claim),
            ConditionExpression: '#owner = :me',
            ExpressionAttributeNames: { '#owner': attribute },
            ExpressionAttributeValues: { ':me': owner.id },
          },
        },
        { kind: 'release', claim },
      ],
    ),
  ];
};

/** A check that an item exists, as part of the write (the requester, a vocabulary entry). */
export const existsCheck = (tableName: string, key: Key, role: ActionRole): Action => [
  { ConditionCheck: { TableName: tableName, Key: key, ConditionExpression: 'attribute_exists(pk)' } },
  role,
];

export interface WriteTransaction {
  input: TransactWriteCommandInput;
  roles: ActionRole[];
}

export const transactionOf = (actions: readonly Action[]): WriteTransaction => ({
  input: { TransactItems: actions.map(([item]) => item) },
  roles: actions.map(([, role]) => role),
});

/** Sends a write; true when it landed, false when it met a concurrent write and should be retried. */
export const sendWrite = async (client: DynamoDBDocumentClient, { input, roles }: WriteTransaction) => {
  if (roles.length > MAX_TRANSACTION_ACTIONS) {
    throw new ValidationFailed(
      [{ path: '', message: 'The request changes more than one write can hold: split it over several' }],
      'The request changes more than one write can hold',
    );
  }
  try {
    await storageCall(() => client.send(new TransactWriteCommand(input)));
    return true;
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const outcome = decodeCancellation(error.CancellationReasons ?? [], roles);
    if (!outcome) throw error;
    if (outcome.retry) return false;
    throw outcome.error;
  }
};

/** Full jitter, capped: spreads colliding writers apart without long waits. */
export const jitteredBackoff = (attempt: number) => Math.random() * Math.min(1_000, 10 * 2 ** attempt);

/**
 * The timeout of every HTTP function (the stack's and the local runtime's): just under API Gateway's,
 * so that a write storm on one object has the whole of it to retry in (`retryDeadline`).
 */
export const HTTP_FUNCTION_TIMEOUT_MS = 29_000;
/** API Gateway ends an integration after 30 s, whatever the function's timeout. */
export const API_GATEWAY_TIMEOUT_MS = 30_000;
/** Kept back from the retry budget for the last attempt and the response. */
export const RESPONSE_RESERVE_MS = 1_000;

/**
 * The retry budget of a request, as a function of the Lambda timeout: a write that meets concurrent
 * ones keeps retrying until the invocation has `RESPONSE_RESERVE_MS` left (counting from at most API
 * Gateway's 30 s), then answers 503. With the stack's 29 s timeout that is 28 s. One object's writes
 * land one after another (each must read the version the last one made), so a storm of N concurrent
 * writers needs about N round trips of read and transaction: 100 PATCHes of one person from 100
 * containers take 9-13 s against a fresh DynamoDB Local on a 2-core machine (far longer once it holds
 * many tables); at DynamoDB's single-digit-millisecond latencies the same count of round trips is a
 * few seconds (not measured here).
 */
export const retryDeadline = (remainingMs = HTTP_FUNCTION_TIMEOUT_MS, now = Date.now()) =>
  now + Math.max(0, Math.min(remainingMs, API_GATEWAY_TIMEOUT_MS) - RESPONSE_RESERVE_MS);

/** How a write is sent: where the request came from, and until when it may retry. */
export interface WriteOptions {
  /** For the ChangeHistory entry. */
  provider?: ProviderData;
  /** Epoch ms (`retryDeadline`); the default is the budget of a fresh HTTP invocation. */
  deadline?: number;
}

export interface RetryOptions {
  /** Epoch ms past which a write that still meets concurrent ones gives up with 503. */
  deadline: number;
  /** Milliseconds to wait before retry `attempt` (1-based). */
  backoff: (attempt: number) => number;
}

/**
 * Runs the writes of one object that this process makes one after another. Concurrent writes of one
 * object only cancel each other (each reads a version the first to land makes stale, and a cancelled
 * transaction costs as much as one that lands), so a process serving many requests at once (the local
 * server) queues them and each lands on its first attempt. A Lambda container serves one request at a
 * time: there, writes from other containers meet at the version check and retry (`retrying`).
 */
export const objectQueue = () => {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(object: string, write: () => Promise<T>): Promise<T> => {
    const run = (tails.get(object) ?? Promise.resolve()).then(write);
    const tail = run.catch(() => undefined);
    tails.set(object, tail);
    void tail.then(() => {
      if (tails.get(object) === tail) tails.delete(object);
    });
    return run;
  };
};

/**
 * Runs `attempt` until it gives a result (undefined means "met a concurrent write: read again"), as
 * long as another attempt, which takes about as long as the last one, still ends before the deadline;
 * a backoff longer than what is left is shortened, not a reason to give up.
 */
export const retrying = async <T>(
  { deadline, backoff }: RetryOptions,
  attempt: () => Promise<T | undefined>,
): Promise<T> => {
  for (let n = 1; ; n++) {
    const started = Date.now();
    const result = await attempt();
    if (result !== undefined) return result;
    // Another attempt takes about as long as this one did; the wait is cut to what is left before it.
    const left = deadline - Date.now() - (Date.now() - started);
    if (left <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(backoff(n), left)));
  }
  throw new ServiceUnavailable('The object is being changed by many requests at once', 1);
};
