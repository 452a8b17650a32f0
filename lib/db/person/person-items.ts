/**
 * The Person item's codec: the item from a domain Person and back (also from a stream record's image),
 * and its version-conditioned Put; and the item of a person merged into another (API.md 13), which
 * takes its place under the same key, as an erased person's tombstone does (API.md 15). What a write
 * sends around them is person-write.ts's plan.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { type ErasedPerson, isErasedPerson } from '../../domain/erasure';
import { searchableForms } from '../../domain/listing';
import { holdingNothing, isMergedPerson, type MergedPerson } from '../../domain/merge';
import { fullnameOfPerson, PERSON_TYPE, type Person } from '../../domain/person';
import { SET_NAMES } from '../../domain/schemas';
import { fold } from '../../domain/text';
import { personKey, personListKey } from '../table/keys';
import { type Action, objectPut, withinItemLimit } from '../write/actions';

/** The Person item: the stored Person plus its place and searchable forms in the `byName` index. */
export const toPersonItem = (person: Person) => {
  const fullname = fullnameOfPerson(person);
  const search = searchableForms(person);
  return withinItemLimit(
    {
      ...personKey(person.id),
      type: PERSON_TYPE,
      ...person,
      ...personListKey(fold(fullname), person.id),
      fullname,
      search_first_name: search.first_name,
      search_last_name: search.last_name,
      search_email: search.email,
      search_rest: search.rest,
    },
    'person',
  );
};

const PERSON_FIELDS = [
  'id',
  'fullname',
  'local_reference_id',
  ...SET_NAMES,
  'SocialAddresses',
  'CoreMetaData',
] as const satisfies readonly (keyof Person)[];

/** The stored Person; sets added since the person was written read as empty. */
export const fromPersonItem = (item: Record<string, unknown>): Person =>
  Object.fromEntries(
    PERSON_FIELDS.map((field) => [
      field,
      field in item ? item[field] : (SET_NAMES as string[]).includes(field) ? [] : undefined,
    ]),
  ) as Person;

/**
 * The Person of a stream record's image (DynamoDB's attribute values), read as the repository reads
 * its items; an image that is not a Person item is refused, so its record fails alone.
 */
export const personFromImage = (image: Record<string, AttributeValue> | undefined): Person => {
  const item = image ? unmarshall(image) : {};
  if (item.type !== PERSON_TYPE || !Number.isSafeInteger(item.id))
    throw new Error(`Not a Person item: ${String(item.pk ?? 'no key')}`);
  return fromPersonItem(item);
};

/** The Person's version-conditioned Put (create: never overwrite; update: only over `previousVersion`). */
export const personPut = (tableName: string, person: Person, previousVersion: number | null): Action =>
  objectPut(tableName, toPersonItem(person), previousVersion);

/**
 * A merged person's item: under the Person's key, its id, survivor and metadata only. It has no
 * `listPk`, so the `byName` index (lists, the export) no longer holds it, and no `type` a stream
 * filter of Person items matches.
 */
export const MERGED_PERSON_TYPE = 'MergedPerson';

/** The merged person's Put, over the version of the Person it replaces. */
export const mergedPersonPut = (tableName: string, merged: MergedPerson, previousVersion: number): Action =>
  objectPut(
    tableName,
    { ...personKey(merged.id), type: MERGED_PERSON_TYPE, ...merged } satisfies Record<string, unknown>,
    previousVersion,
  );

/**
 * An erased person's tombstone (API.md 15): under the Person's key, its id, when it was erased and its
 * dates and version only. Like a merged person's item, no `listPk` and no Person `type`.
 */
export const ERASED_PERSON_TYPE = 'ErasedPerson';

/**
 * The tombstone's mark while the person's ChangeHistory (and that of the persons merged into it) is
 * still to be erased (history/history-erasure.ts): put with the tombstone, removed by the chain's last
 * transaction.
 */
const HISTORY_PENDING = 'historyPending';

/** The tombstone's Put, over the version of the Person it replaces, marked: its history is to follow. */
export const erasedPersonPut = (tableName: string, erased: ErasedPerson, previousVersion: number): Action =>
  objectPut(
    tableName,
    {
      ...personKey(erased.id),
      type: ERASED_PERSON_TYPE,
      ...erased,
      [HISTORY_PENDING]: true,
    } satisfies Record<string, unknown>,
    previousVersion,
  );

/** Whether an erased person's item still says its history is to be erased. */
export const historyPendingIn = (item: Record<string, unknown> | undefined) =>
  item?.[HISTORY_PENDING] === true;

/** The tombstone's mark removed: its history is erased (the last action of the chain). */
export const historyErased = (tableName: string, id: number): Action => [
  {
    Update: {
      TableName: tableName,
      Key: personKey(id),
      UpdateExpression: 'REMOVE #pending',
      ConditionExpression: '#type = :erased',
      ExpressionAttributeNames: { '#pending': HISTORY_PENDING, '#type': 'type' },
      ExpressionAttributeValues: { ':erased': ERASED_PERSON_TYPE },
    },
  },
  { kind: 'object' },
];

/** What is stored under a Person's key: the person, the person merged into another, or the tombstone. */
export type StoredPerson = Person | MergedPerson | ErasedPerson;

/** A stored item under a Person's key, read. */
export const fromStoredPersonItem = (item: Record<string, unknown>): StoredPerson => {
  if (item.type === MERGED_PERSON_TYPE)
    return {
      id: item.id,
      superceded_by: item.superceded_by,
      CoreMetaData: item.CoreMetaData,
    } as MergedPerson;
  if (item.type === ERASED_PERSON_TYPE)
    return { id: item.id, erased: item.erased, CoreMetaData: item.CoreMetaData } as ErasedPerson;
  return fromPersonItem(item);
};

/** Whether an item under a Person's key is a live person's (not a merged or erased one's). */
export const isLivePersonItem = (item: Record<string, unknown>) =>
  item.type !== MERGED_PERSON_TYPE && item.type !== ERASED_PERSON_TYPE;

/**
 * The person whose postings and reference item an item under a Person's key implies: the person, or
 * for a merged or erased one a person holding nothing (it implies none).
 */
export const impliedPerson = (item: Record<string, unknown>): Person => {
  const stored = fromStoredPersonItem(item);
  return isMergedPerson(stored) || isErasedPerson(stored) ? holdingNothing(stored) : stored;
};
