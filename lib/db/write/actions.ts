/**
 * The actions of a write transaction, as pure builders (DynamoDB-Toolbox's params()/send() split): the
 * object's Put, counters, the claims it takes and releases and the checks it needs. Every resource
 * (Person, NamePrefix, NameSuffix, enrichment) builds its write from these, with its ChangeHistory
 * entry from `history/history-actions.ts`; `send.ts` sends it.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ResourceType } from '../../domain/change-history';
import { ValidationFailed } from '../../domain/errors';
import type { ClaimToTake, VocabularyReference } from '../../domain/patch';
import type { Claim } from '../../domain/person';
import { claimKey, type Key } from '../table/keys';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Who holds a claim: the owner's type (for `existing` in a 409) and the claim item's attribute. */
export interface ClaimOwner {
  type: ResourceType;
  id: number;
}

/** What each action of a write transaction is for, in the order of `TransactItems`. */
export type ActionRole =
  | { kind: 'object' }
  | { kind: 'history' }
  | { kind: 'counter' }
  | { kind: 'mark' }
  /** A search posting, and the `POSTINGS` item of a write whose postings follow it (postings.ts). */
  | { kind: 'posting' }
  | { kind: 'pending' }
  /** A person's reference item for its root `local_reference_id` (local-references.ts). */
  | { kind: 'reference' }
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
 * lands only over the version it was patched from.
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

/** Adds `count` to a counter item (the update alone, for a single UpdateItem outside a write). */
export const counterUpdate = (tableName: string, key: Key, count = 1) => ({
  TableName: tableName,
  Key: key,
  UpdateExpression: 'ADD #value :count',
  ExpressionAttributeNames: { '#value': 'value' },
  ExpressionAttributeValues: { ':count': count },
});

/** Adds `count` to a counter item, as a part of a write. */
export const counterAdd = (tableName: string, key: Key, count = 1): Action => [
  { Update: counterUpdate(tableName, key, count) },
  { kind: 'counter' },
];

/** The claim item's attribute naming its owner. */
const ownerAttribute = (type: ResourceType) => (type === 'Person' ? 'personId' : 'entryId');

/** Claims taken with `attribute_not_exists`, released only while they still name this owner. */
export const claimActions = (
  tableName: string,
  owner: ClaimOwner,
  take: readonly ClaimToTake[],
  release: readonly Claim[],
): Action[] => {
  const attribute = ownerAttribute(owner.type);
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

/** A check that an object is still at `version` (a write that lands meanwhile makes it fail). */
export const versionCheck = (tableName: string, key: Key, version: number): Action => [
  {
    ConditionCheck: {
      TableName: tableName,
      Key: key,
      ConditionExpression: 'attribute_exists(pk) AND #meta.#version = :previous',
      ExpressionAttributeNames: { '#meta': 'CoreMetaData', '#version': 'version' },
      ExpressionAttributeValues: { ':previous': version },
    },
  },
  { kind: 'object' },
];

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
