/**
 * Pure builders of a person's reference item (API.md 4, `local_reference_id=<value>`; keys.ts has the
 * design and the cost): the item a person's root `local_reference_id` implies, and what a write puts
 * and deletes of it, in the write's own transaction. local-reference-search.ts reads them.
 */
import { fullnameOfPerson, type Person } from '../../../domain/person';
import { type Key, localReferenceKey } from '../../table/keys';
import type { Action } from '../../write/actions';

export type LocalReferenceItem = Key & { type: 'LocalReference'; id: number; fullname: string };

/** The reference item a stored person implies: none when its root value is null or empty. */
export const localReferenceItemOf = (person: Person): LocalReferenceItem | null =>
  person.local_reference_id
    ? {
        ...localReferenceKey(person.local_reference_id, person.id),
        type: 'LocalReference',
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
export const localReferencePut = (tableName: string, item: LocalReferenceItem): Action => [
  { Put: { TableName: tableName, Item: item } },
  { kind: 'reference' },
];
