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
import { type Claim, PERSON_TYPE } from '../../domain/person';
import { type Principal, principalName, type RequesterRuling } from '../../domain/principal';
import { claimKey, type Key, personKey, personPrincipalKey, principalKey } from '../table/keys';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Who holds a claim: the owner's type (for `existing` in a 409) and the claim item's attribute. */
export interface ClaimOwner {
  type: ResourceType;
  id: number;
}

/**
 * What each action of a write transaction is for, in the order of `TransactItems`, and in a write of
 * two persons (a merge) whose part it is.
 */
export type ActionRole = (
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
  | { kind: 'release'; claim: Claim }
  /** A claim passing from one owner to another (a merge), on condition that it still names the first. */
  | { kind: 'repoint'; claim: Claim }
  /** A principal bound to a new person (API.md 9.1), and the check that the requester is the caller's. */
  | { kind: 'binding' }
  | { kind: 'caller'; requester: number }
  /** A binding passing from a merged person to its survivor, on condition that it still names the first. */
  | { kind: 'rebind' }
) & { person?: number };

/** The action as a part of person `person`'s share of a composed write (person-write.ts). */
export const ownedBy = ([item, role]: Action, person: number): Action => [item, { ...role, person }];

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

/** A claim item: its key, field and value, and its owner. */
const claimItem = (claim: Claim, owner: ClaimOwner) => ({
  ...claimKey(claim),
  type: 'Claim',
  field: claim.field,
  value: claim.value,
  [ownerAttribute(owner.type)]: owner.id,
});

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
            Item: claimItem(claim, owner),
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

/**
 * Claims passing from `from` to `to` (a merge, API.md 13): each Put over the claim item on condition
 * that it still names `from`, so a claim that changed hands meanwhile cancels the write.
 */
export const claimRepoints = (
  tableName: string,
  from: ClaimOwner,
  to: ClaimOwner,
  claims: readonly Claim[],
): Action[] => {
  return claims.map(
    (claim): Action => [
      {
        Put: {
          TableName: tableName,
          Item: claimItem(claim, to),
          ConditionExpression: '#owner = :from',
          ExpressionAttributeNames: { '#owner': ownerAttribute(from.type) },
          ExpressionAttributeValues: { ':from': from.id },
        },
      },
      { kind: 'repoint', claim },
    ],
  );
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

/**
 * The condition that a person's item is a live person's: there, and neither merged into another nor
 * erased (their items have types of their own, person-items.ts).
 */
const IS_LIVE_PERSON = {
  ConditionExpression: '#type = :person',
  ExpressionAttributeNames: { '#type': 'type' },
  ExpressionAttributeValues: { ':person': PERSON_TYPE },
};

/**
 * A check that the requester is a live person: it exists, and was neither merged into another nor
 * erased. A merged one hands its item back, so the write can be made again as its survivor (API.md 13).
 */
export const requesterCheck = (tableName: string, requester: number): Action => [
  {
    ConditionCheck: {
      TableName: tableName,
      Key: personKey(requester),
      ...IS_LIVE_PERSON,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  },
  { kind: 'requester', requester },
];

/**
 * A principal bound to person `personId`: both sides of the binding, each put where none is. `role`
 * says what a side found taken means (a self-registration's `binding`: 409 at once); `by` is what
 * both sides keep of a binding a delegate made (PUT /Person/{id}/principal): who, and when.
 */
export const bindingActions = (
  tableName: string,
  principal: Principal,
  personId: number,
  { role = { kind: 'binding' }, by = {} }: { role?: ActionRole; by?: Record<string, unknown> } = {},
): Action[] => [
  [
    {
      Put: {
        TableName: tableName,
        Item: { ...principalKey(principalName(principal)), type: 'Binding', principal, personId, ...by },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    role,
  ],
  [
    {
      Put: {
        TableName: tableName,
        Item: { ...personPrincipalKey(personId), type: 'PersonPrincipal', principal, ...by },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    role,
  ],
];

/** The condition that a principal's binding item names person `personId`. */
const namesPerson = (personId: number) => ({
  ConditionExpression: '#person = :person',
  ExpressionAttributeNames: { '#person': 'personId' },
  ExpressionAttributeValues: { ':person': personId },
});

/**
 * Person `personId`'s binding to `principal` undone (DELETE /Person/{id}/principal): both sides
 * deleted while they still name each other; a binding that moved meanwhile (a merge) makes the write
 * read again.
 */
export const bindingRemoval = (tableName: string, principal: Principal, personId: number): Action[] => [
  [
    {
      Delete: {
        TableName: tableName,
        Key: principalKey(principalName(principal)),
        ...namesPerson(personId),
      },
    },
    { kind: 'rebind' },
  ],
  [
    {
      Delete: {
        TableName: tableName,
        Key: personPrincipalKey(personId),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    { kind: 'rebind' },
  ],
];

/** A check that person `personId` is stored and live (not merged): else the write reads again. */
export const liveCheck = (tableName: string, personId: number): Action => [
  {
    ConditionCheck: {
      TableName: tableName,
      Key: personKey(personId),
      ...IS_LIVE_PERSON,
    },
  },
  { kind: 'object' },
];

/**
 * A check that person `personId` is bound to no principal (an erasure of an unbound person): a binding
 * made meanwhile makes the write read again, and release it.
 */
export const unboundCheck = (tableName: string, personId: number): Action => [
  {
    ConditionCheck: {
      TableName: tableName,
      Key: personPrincipalKey(personId),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  { kind: 'rebind' },
];

/**
 * A principal's binding passing from person `from` to person `to` (a merge, API.md 9.1 and 13): its
 * item re-pointed while it still names `from`, `to`'s side put where none is (a survivor bound to
 * another principal cancels the write: 409), `from`'s side deleted.
 */
export const bindingMove = (tableName: string, principal: Principal, from: number, to: number): Action[] => [
  [
    {
      Put: {
        TableName: tableName,
        Item: { ...principalKey(principalName(principal)), type: 'Binding', principal, personId: to },
        ...namesPerson(from),
      },
    },
    { kind: 'rebind' },
  ],
  [
    {
      Put: {
        TableName: tableName,
        Item: { ...personPrincipalKey(to), type: 'PersonPrincipal', principal },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    { kind: 'binding' },
  ],
  [{ Delete: { TableName: tableName, Key: personPrincipalKey(from) } }, { kind: 'rebind' }],
];

/** A check that `principal` is bound to person `requester`, as part of the write it authorizes. */
export const callerCheck = (tableName: string, principal: Principal, requester: number): Action => [
  {
    ConditionCheck: {
      TableName: tableName,
      Key: principalKey(principalName(principal)),
      ...namesPerson(requester),
    },
  },
  { kind: 'caller', requester },
];

/**
 * What a write's requester ruling (domain/principal.ts) adds to it: a self-registration binds the
 * new person `personId`; a write by a bound caller checks that the requester is its person.
 */
export const rulingActions = (
  tableName: string,
  ruling: RequesterRuling,
  { requester, personId }: { requester: number; personId: number },
): Action[] => {
  if (ruling.kind === 'register') return bindingActions(tableName, ruling.principal, personId);
  if (ruling.kind === 'own') return [callerCheck(tableName, ruling.principal, requester)];
  return [];
};

export interface WriteTransaction {
  input: TransactWriteCommandInput;
  roles: ActionRole[];
}

export const transactionOf = (actions: readonly Action[]): WriteTransaction => ({
  input: { TransactItems: actions.map(([item]) => item) },
  roles: actions.map(([, role]) => role),
});
