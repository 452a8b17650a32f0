/**
 * Pure builders of a person's reference item (API.md 4, `local_reference_id=<value>`; keys.ts has the
 * design and the cost): the item a person's root `local_reference_id` implies, and what a write puts
 * and deletes of it, in the write's own transaction; and the merged reference a merged person leaves
 * under its root key (API.md 13.1: a client's own key still finds its survivor), which the erasure of
 * the survivor deletes. local-reference-search.ts reads them.
 */
import { fullnameOfPerson, type Person } from '../../../domain/person';
import { type Key, localReferenceKey } from '../../table/keys';
import type { Action } from '../../write/actions';

export const LOCAL_REFERENCE_TYPE = 'LocalReference';

export type LocalReferenceItem = Key & { type: typeof LOCAL_REFERENCE_TYPE; id: number; fullname: string };

/**
 * The reference a person merged into another leaves under its root key: its own id, marked merged,
 * and no stub (a merged person holds no personal data). A list by the key follows the id to the live
 * end of its chain (a survivor merged later leaves its own, and this one still names the first).
 */
export type MergedReferenceItem = Key & { type: typeof LOCAL_REFERENCE_TYPE; id: number; merged: true };

/** The reference item a stored person implies: none when its root value is null or empty. */
export const localReferenceItemOf = (person: Person): LocalReferenceItem | null =>
  person.local_reference_id
    ? {
        ...localReferenceKey(person.local_reference_id, person.id),
        type: LOCAL_REFERENCE_TYPE,
        id: person.id,
        fullname: fullnameOfPerson(person),
      }
    : null;

/**
 * What a write does to the person's reference item: the old one deleted when the value changed or
 * went, the new one put when the value is new or the stub (fullname) changed; nothing otherwise. The
 * person's version-conditioned Put in the same transaction guards both.
 */
export const localReferenceActions = (tableName: string, before: Person | null, after: Person): Action[] => {
  const previous = before ? localReferenceItemOf(before) : null;
  const next = localReferenceItemOf(after);
  const moved = previous !== null && previous.pk !== next?.pk;
  const put = next !== null && (previous === null || moved || previous.fullname !== next.fullname);
  return [
    ...(moved
      ? [
          [
            { Delete: { TableName: tableName, Key: { pk: previous.pk, sk: previous.sk } } },
            { kind: 'reference' },
          ] satisfies Action,
        ]
      : []),
    ...(put ? [localReferencePut(tableName, next)] : []),
  ];
};

/** A reference item's Put (the write, or the backfill, guards it with the person's version). */
export const localReferencePut = (
  tableName: string,
  item: LocalReferenceItem | MergedReferenceItem,
): Action => [{ Put: { TableName: tableName, Item: item } }, { kind: 'reference' }];

/** The merged reference person `id` leaves under its root key `value`. */
export const mergedReferenceItem = (value: string, id: number): MergedReferenceItem => ({
  ...localReferenceKey(value, id),
  type: LOCAL_REFERENCE_TYPE,
  id,
  merged: true,
});

/**
 * What a merge does to the source's reference item: puts the merged reference over it, under the same
 * key (one action, as the delete it replaces); nothing for a source without a root value. The merged
 * item's version-conditioned Put in the same transaction guards it.
 */
export const mergedReferenceActions = (tableName: string, source: Person): Action[] =>
  source.local_reference_id
    ? [localReferencePut(tableName, mergedReferenceItem(source.local_reference_id, source.id))]
    : [];

/**
 * The merged reference's delete, when the survivor at the end of its chain is erased (API.md 15): its
 * key is the source's root value, which the merge's record keeps (erasure-chain.ts).
 */
export const mergedReferenceRemoval = (tableName: string, value: string, id: number): Action => [
  { Delete: { TableName: tableName, Key: localReferenceKey(value, id) } },
  { kind: 'reference' },
];
