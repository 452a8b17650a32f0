/**
 * The plan of a merge (API.md 13), pure: the two persons' parts of one write, composed as any person
 * write is (person-write.ts `composeWrite`). The survivor's part: its next version over the one read,
 * its MERGE entry, its link to the source (merged-from.ts), the source's email claims re-pointed to
 * it (each on condition that it still names the source), its own name claim released when it gained
 * emails, its postings. The source's part: the merged person over the version read, its MERGE entry,
 * its name claim released, its reference item replaced by a merged reference (the client's own key
 * still finds the survivor: API.md 13.1), one person fewer in its counter, every posting
 * deleted, its principal's binding (if any) passed to the survivor. A claim that changed hands or a
 * version that moved cancels the whole write, read back to the person it belongs to
 * (cancellation.ts), and the repository reads both again.
 */
import { type ChangeEntry, changeEntry, type RequestOrigin } from '../../../domain/change-history';
import { PrincipalAlreadyBound } from '../../../domain/errors';
import { holdingNothing, type MergeResult, mergePersons } from '../../../domain/merge';
import { heldParts, PERSON_TYPE, type Person } from '../../../domain/person';
import { OPEN, type Principal, principalName, type RequesterRuling } from '../../../domain/principal';
import type { SearchTerms } from '../../../domain/search';
import { historyActions } from '../../history/history-actions';
import { personCounterKey } from '../../table/keys';
import {
  type Action,
  bindingMove,
  type ClaimOwner,
  claimActions,
  claimRepoints,
  counterAdd,
  rulingActions,
} from '../../write/actions';
import { mergedFromItem, mergedFromPut } from '../merged-from';
import { mergedPersonPut, personPut } from '../person-items';
import { localReferenceActions, mergedReferenceActions } from './local-references';
import type { WritePart } from './person-write';

/**
 * A person as a merge reads it: the stored person, the terms of its unfinished postings, and the
 * principal bound to it (API.md 9.1), if any.
 */
export interface MergeSide {
  person: Person;
  pending: SearchTerms | null;
  principal?: Principal | null;
}

export interface MergeInput {
  tableName: string;
  survivor: MergeSide;
  source: MergeSide;
  /** The requester as named; a source naming itself is recorded as the survivor (planMerge). */
  requester: number;
  now: string;
  /** The ids of the two MERGE entries. */
  changeIds: { survivor: number; source: number };
  origin?: RequestOrigin;
  /** What the caller must prove about the requester (API.md 9.1): none when binding is off. */
  ruling?: RequesterRuling;
}

export interface MergePlan {
  result: MergeResult;
  entries: { survivor: ChangeEntry; source: ChangeEntry };
  /** The source's part, then the survivor's. */
  parts: [WritePart, WritePart];
}

export const PERSON = (id: number): ClaimOwner => ({ type: PERSON_TYPE, id });

/** The merge's two write parts, the source's first: what each writes, and its postings' before and after. */
const mergeParts = (
  { tableName, survivor, source, requester, ruling, now }: Required<Omit<MergeInput, 'changeIds' | 'origin'>>,
  plan: {
    result: MergeResult;
    entries: MergePlan['entries'];
    emptied: Person;
    binding: Action[];
    callerShownByMove: boolean;
  },
): [WritePart, WritePart] => {
  const { result, entries, emptied, binding, callerShownByMove } = plan;
  return [
    {
      personId: source.person.id,
      actions: [
        mergedPersonPut(tableName, result.source, source.person.CoreMetaData.version),
        ...historyActions(tableName, entries.source, result.source),
        ...claimActions(tableName, PERSON(source.person.id), [], result.releaseSource),
        ...mergedReferenceActions(tableName, source.person),
        counterAdd(tableName, personCounterKey(source.person.id), -1),
        ...binding,
      ],
      postings: source,
      after: emptied,
    },
    {
      personId: survivor.person.id,
      actions: [
        personPut(tableName, result.person, survivor.person.CoreMetaData.version),
        ...historyActions(tableName, entries.survivor, result.person),
        // Its link to the source: what an erasure of it follows (API.md 15), and what an unmerge
        // reads (13.1): the merge's record.
        mergedFromPut(tableName, mergedFromItem(survivor.person.id, source.person.id, now, result.record)),
        ...claimRepoints(tableName, PERSON(source.person.id), PERSON(survivor.person.id), result.repoint),
        ...claimActions(tableName, PERSON(survivor.person.id), [], result.releaseSurvivor),
        ...localReferenceActions(tableName, survivor.person, result.person),
        ...(callerShownByMove
          ? []
          : rulingActions(tableName, ruling, { requester, personId: survivor.person.id })),
      ],
      postings: survivor,
      after: result.person,
    },
  ];
};

/** Plans the merge of `source` into `survivor`; throws what `mergePersons` refuses (400). */
export const planMerge = ({
  tableName,
  survivor,
  source,
  requester,
  now,
  changeIds,
  origin,
  ruling = OPEN,
}: MergeInput): MergePlan => {
  // The source names itself as requester: after this write it acts as its survivor.
  const actor = requester === source.person.id ? survivor.person.id : requester;
  const result = mergePersons(survivor.person, source.person, {
    requester: actor,
    now,
    changeId: changeIds.survivor,
    sourceChangeId: changeIds.source,
  });
  // The binding that passes is part of what the merge did: an unmerge gives it back (API.md 13.1).
  if (source.principal) result.record.principal = source.principal;
  const change = { action: 'merge' as const, requester: actor, at: now, origin };
  const entries = {
    survivor: changeEntry(PERSON_TYPE, result.person, {
      ...change,
      id: changeIds.survivor,
      changed: result.changed,
    }),
    source: changeEntry(PERSON_TYPE, result.source, {
      ...change,
      id: changeIds.source,
      // The source loses every part it held, and gains its link.
      changed: [...heldParts(source.person), '/superceded_by'],
    }),
  };
  const emptied = holdingNothing(source.person);
  // The source's binding moves to the survivor (API.md 9.1), unless that one is bound already.
  if (source.principal && survivor.principal) throw new PrincipalAlreadyBound(null);
  const binding = source.principal
    ? bindingMove(tableName, source.principal, source.person.id, survivor.person.id)
    : [];
  // The source's own caller naming it: the move's condition that the binding still names the source
  // is the caller check (one transaction may not touch the binding item twice).
  const callerShownByMove =
    ruling.kind === 'own' &&
    requester === source.person.id &&
    source.principal != null &&
    principalName(source.principal) === principalName(ruling.principal);
  return {
    result,
    entries,
    // The source's part first: its postings' deletes get the write's room before the survivor's new
    // ones, so the source leaves search with the write itself whenever they fit.
    parts: mergeParts(
      { tableName, survivor, source, requester, ruling, now },
      { result, entries, emptied, binding, callerShownByMove },
    ),
  };
};
