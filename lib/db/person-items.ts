/**
 * Pure builders of what the repository sends (DynamoDB-Toolbox's params()/send() split): items from
 * domain objects and back, and the write transaction of a create or a patch, with what each action is
 * for so that a cancellation can be read back into domain errors.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '../domain/audit';
import { ValidationFailed } from '../domain/errors';
import { searchableForms } from '../domain/listing';
import type { ClaimToTake, MergeResult } from '../domain/merge';
import { type Claim, fullnameOfPerson, type Person } from '../domain/person';
import { fold } from '../domain/text';
import { auditKey, claimKey, personCounterKey, personKey, personListKey } from './keys';

/** The Person item: the stored Person plus its place and searchable forms in the `byName` index. */
export const toPersonItem = (person: Person) => {
  const fullname = fullnameOfPerson(person);
  const search = searchableForms(person);
  return {
    ...personKey(person.id),
    type: 'Person',
    ...person,
    ...personListKey(fold(fullname), person.id),
    fullname,
    search_first_name: search.first_name,
    search_last_name: search.last_name,
    search_email: search.email,
    search_rest: search.rest,
  };
};

const PERSON_FIELDS = [
  'id',
  'local_reference_id',
  'Names',
  'Emails',
  'PhoneNumbers',
  'PersonRoles',
  'PostalAddresses',
  'SocialAddresses',
  'CoreMetaData',
] as const satisfies readonly (keyof Person)[];

export const fromPersonItem = (item: Record<string, unknown>): Person =>
  Object.fromEntries(PERSON_FIELDS.map((field) => [field, item[field]])) as Person;

/** What each action of a write transaction is for, in the order of `TransactItems`. */
export type ActionRole =
  | { kind: 'person' }
  | { kind: 'audit' }
  | { kind: 'counter' }
  | { kind: 'requester'; requester: number }
  | { kind: 'take'; claim: ClaimToTake }
  | { kind: 'release'; claim: Claim };

export interface WritePlan {
  tableName: string;
  /** The merge's outcome; `previousVersion` null means create. */
  merge: MergeResult;
  previousVersion: number | null;
  audit: AuditEntry;
  /** A person id that must exist for the write to be attributed to it, or null when none is needed. */
  requesterToCheck: number | null;
}

export interface WriteTransaction {
  input: TransactWriteCommandInput;
  roles: ActionRole[];
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * DynamoDB refuses items over 400 KB. JSON text over-counts an item's size a little (quotes, braces),
 * so this is a safe bound; each field's limits keep a person well inside it, and this turns the
 * unforeseen case into a clear 400 instead of a 500.
 */
export const MAX_PERSON_ITEM_BYTES = 390_000;

const withinItemLimit = <T>(item: T): T => {
  if (Buffer.byteLength(JSON.stringify(item)) > MAX_PERSON_ITEM_BYTES)
    throw new ValidationFailed(
      [
        {
          path: '',
          message: 'The person would be larger than storage allows: shorten or remove some values',
        },
      ],
      'The person is too large',
    );
  return item;
};

/**
 * The Person's Put: a create never overwrites (`attribute_not_exists`), an update never creates and
 * lands only over the version it was merged onto.
 */
export const personPut = (
  tableName: string,
  person: Person,
  previousVersion: number | null,
): TransactItem => ({
  Put: {
    TableName: tableName,
    Item: withinItemLimit(toPersonItem(person)),
    ...(previousVersion === null
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : {
          ConditionExpression: 'attribute_exists(pk) AND #meta.#version = :previous',
          ExpressionAttributeNames: { '#meta': 'CoreMetaData', '#version': 'version' },
          ExpressionAttributeValues: { ':previous': previousVersion },
        }),
  },
});

/** The AuditEntry of the write that makes `version`: one per version, never overwritten. */
export const auditPut = (tableName: string, audit: AuditEntry, version: number): TransactItem => ({
  Put: {
    TableName: tableName,
    Item: { ...auditKey(audit.person_id, version), type: 'AuditEntry', ...audit },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** DynamoDB refuses a transaction of more actions than this. */
export const MAX_TRANSACTION_ACTIONS = 100;

export const buildWriteTransaction = ({
  tableName,
  merge,
  previousVersion,
  audit,
  requesterToCheck,
}: WritePlan): WriteTransaction => {
  const { person } = merge;
  const actions: [TransactItem, ActionRole][] = [
    [personPut(tableName, person, previousVersion), { kind: 'person' }],
    [auditPut(tableName, audit, person.CoreMetaData.version), { kind: 'audit' }],
    ...merge.take.map((claim): [TransactItem, ActionRole] => [
      {
        Put: {
          TableName: tableName,
          Item: {
            ...claimKey(claim),
            type: 'Claim',
            field: claim.field,
            value: claim.value,
            personId: person.id,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      { kind: 'take', claim },
    ]),
    ...merge.release.map((claim): [TransactItem, ActionRole] => [
      {
        Delete: {
          TableName: tableName,
          Key: claimKey(claim),
          ConditionExpression: 'personId = :me',
          ExpressionAttributeValues: { ':me': person.id },
        },
      },
      { kind: 'release', claim },
    ]),
  ];
  if (previousVersion === null) {
    actions.push([
      {
        Update: {
          TableName: tableName,
          Key: personCounterKey,
          UpdateExpression: 'ADD #value :one',
          ExpressionAttributeNames: { '#value': 'value' },
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      { kind: 'counter' },
    ]);
  }
  if (requesterToCheck !== null) {
    actions.push([
      {
        ConditionCheck: {
          TableName: tableName,
          Key: personKey(requesterToCheck),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      { kind: 'requester', requester: requesterToCheck },
    ]);
  }
  return {
    input: { TransactItems: actions.map(([item]) => item) },
    roles: actions.map(([, role]) => role),
  };
};
