/**
 * The plan of an erasure (API.md 15), pure: one write part, composed as any person write is
 * (person-write.ts `composeWrite`). The tombstone over the version read, the ERASE ChangeHistory entry
 * (the tombstone its object; its `changed` the parts the person held), every claim released, the
 * reference item deleted, one person fewer in its counter, every posting deleted, its binding (if
 * any) released, else checked still absent; the requester checked when it is another person. A
 * version that moved, a claim or a binding that changed hands cancels the whole write, and the
 * repository reads again.
 */
import { changeEntry, type RequestOrigin } from '../../../domain/change-history';
import { type ErasedPerson, tombstoneOf } from '../../../domain/erasure';
import { holdingNothing } from '../../../domain/merge';
import { claimsOf, heldParts, PERSON_TYPE, type Person } from '../../../domain/person';
import type { Principal } from '../../../domain/principal';
import type { SearchTerms } from '../../../domain/search';
import { historyActions } from '../../history/history-actions';
import { personCounterKey } from '../../table/keys';
import { bindingRemoval, claimActions, counterAdd, requesterCheck, unboundCheck } from '../../write/actions';
import { erasedPersonPut } from '../person-items';
import { localReferenceActions } from './local-references';
import { PERSON } from './person-merge';
import type { WritePart } from './person-write';

export interface EraseInput {
  tableName: string;
  /** The live person as read, the terms of its unfinished postings, its principal (API.md 9.1). */
  person: Person;
  pending: SearchTerms | null;
  principal: Principal | null;
  requester: number;
  now: string;
  /** The id of the ERASE entry. */
  changeId: number;
  origin?: RequestOrigin;
}

export interface ErasePlan {
  tombstone: ErasedPerson;
  part: WritePart;
}

export const planErase = ({
  tableName,
  person,
  pending,
  principal,
  requester,
  now,
  changeId,
  origin,
}: EraseInput): ErasePlan => {
  const tombstone = tombstoneOf(person, now);
  const entry = changeEntry(PERSON_TYPE, tombstone, {
    id: changeId,
    action: 'erase',
    requester,
    at: now,
    changed: heldParts(person),
    origin,
  });
  const emptied = holdingNothing(person);
  return {
    tombstone,
    part: {
      personId: person.id,
      actions: [
        erasedPersonPut(tableName, tombstone, person.CoreMetaData.version),
        ...historyActions(tableName, entry, tombstone),
        ...claimActions(tableName, PERSON(person.id), [], claimsOf(person)),
        ...localReferenceActions(tableName, person, emptied),
        counterAdd(tableName, personCounterKey(person.id), -1),
        // A caller erasing its own person is shown by the binding's delete, which must still name it.
        ...(principal
          ? bindingRemoval(tableName, principal, person.id)
          : [unboundCheck(tableName, person.id)]),
        ...(requester === person.id ? [] : [requesterCheck(tableName, requester)]),
      ],
      postings: { person, pending },
      after: emptied,
    },
  };
};
