/**
 * One person read by id (GET /Person/{id}), the chain a merged person's id leads along (API.md 13),
 * and the person a principal is bound to (API.md 9.1): consistent reads of one item each.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { isErasedPerson } from '../../../domain/erasure';
import { PersonErased, PersonMerged, PersonNotFound } from '../../../domain/errors';
import { isMergedPerson, type MergedPerson } from '../../../domain/merge';
import type { Person } from '../../../domain/person';
import type { FoundPerson } from '../../../domain/ports/persons';
import { type Principal, principalName } from '../../../domain/principal';
import type { Storage } from '../../table/client';
import { personKey, principalKey } from '../../table/keys';
import { storageCall } from '../../table/storage-errors';
import { fromStoredPersonItem } from '../person-items';

/** How many merges a chain is followed through (a survivor merged later, and so on). */
export const MAX_CHAIN = 16;

/** The stored person, live or merged, if any. */
export const getStoredPerson = async ({ client, tableName }: Storage, id: number) => {
  const { Item } = await storageCall(() =>
    client.send(new GetCommand({ TableName: tableName, Key: personKey(id), ConsistentRead: true })),
  );
  return Item ? fromStoredPersonItem(Item) : undefined;
};

/** The live person at the end of a merged person's chain (it was merged, its survivor later, ...). */
export const liveEndOf = async (storage: Storage, merged: MergedPerson): Promise<number> => {
  let current = merged;
  for (let hop = 0; hop < MAX_CHAIN; hop++) {
    const next = await getStoredPerson(storage, current.superceded_by);
    if (!next || !isMergedPerson(next)) return current.superceded_by;
    current = next;
  }
  return current.superceded_by;
};

/**
 * The live person: 404 when there is none, 409 `merged` naming its chain's live end when merged, 410
 * `erased` when erased.
 */
export const getLivePerson = async (storage: Storage, id: number): Promise<Person> => {
  const found = await findPerson(storage, id);
  if ('merged' in found) throw new PersonMerged(id, found.liveEnd);
  if ('erased' in found) throw new PersonErased(found.erased);
  return found.person;
};

/**
 * The person as GET finds it: live, merged with the live end of its chain, or erased; 404 when there
 * is none.
 */
export const findPerson = async (storage: Storage, id: number): Promise<FoundPerson> => {
  const stored = await getStoredPerson(storage, id);
  if (!stored) throw new PersonNotFound(id);
  if (isMergedPerson(stored)) return { merged: stored, liveEnd: await liveEndOf(storage, stored) };
  return isErasedPerson(stored) ? { erased: stored } : { person: stored };
};

/** The person `principal` is bound to, if any. */
export const ownPerson = async ({ client, tableName }: Storage, principal: Principal) => {
  const { Item } = await storageCall(() =>
    client.send(
      new GetCommand({
        TableName: tableName,
        Key: principalKey(principalName(principal)),
        ConsistentRead: true,
      }),
    ),
  );
  return typeof Item?.personId === 'number' ? Item.personId : undefined;
};
