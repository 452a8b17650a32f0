/**
 * The plan of an unmerge (API.md 13.1, issue #58), pure: the two persons' parts of one write, composed
 * as a merge's are (person-write.ts `composeWrite`). The source's part: the person live again over its
 * merged item's version, its UNMERGE entry, the claims it takes where they are free (a third person
 * holding one cancels the whole write: 409 naming it), its reference item, one person more in its
 * counter, its postings from nothing, and the binding that passed to the survivor moved back. The
 * survivor's part: its next version over the one read, its UNMERGE entry, its link to the source
 * deleted, the source's email claims re-pointed back (each on condition that it still names the
 * survivor), its own claims taken and released, its postings.
 */
import { type ChangeEntry, changeEntry, type RequestOrigin } from '../../../domain/change-history';
import { holdingNothing, type MergedPerson, type MergeRecord } from '../../../domain/merge';
import { type Abbreviations, PERSON_TYPE } from '../../../domain/person';
import { OPEN, principalName, type RequesterRuling } from '../../../domain/principal';
import type { SearchTerms } from '../../../domain/search';
import { type UnmergeResult, unmergePersons } from '../../../domain/unmerge';
import { historyActions } from '../../history/history-actions';
import { personCounterKey } from '../../table/keys';
import {
  type Action,
  bindingMove,
  claimActions,
  claimRepoints,
  counterAdd,
  rulingActions,
} from '../../write/actions';
import { mergedFromDelete } from '../merged-from';
import { personPut } from '../person-items';
import { localReferenceActions } from './local-references';
import { type MergeSide, PERSON } from './person-merge';
import type { WritePart } from './person-write';

export interface UnmergeInput {
  tableName: string;
  survivor: MergeSide;
  /** The source as stored: merged into the survivor, with the terms of postings its merge left unfinished. */
  source: { merged: MergedPerson; pending: SearchTerms | null };
  record: MergeRecord;
  requester: number;
  now: string;
  /** The ids of the two UNMERGE entries. */
  changeIds: { survivor: number; source: number };
  abbreviations: Abbreviations;
  origin?: RequestOrigin;
  /** What the caller must prove about the requester (API.md 9.1): none when binding is off. */
  ruling?: RequesterRuling;
}

export interface UnmergePlan {
  result: UnmergeResult;
  entries: { survivor: ChangeEntry; source: ChangeEntry };
  /** The source's part, then the survivor's. */
  parts: [WritePart, WritePart];
}

/** The source's claims are asked for by the request's `source`. */
const asked = <C>(claims: C[]) => claims.map((claim) => ({ ...claim, path: '/source' }));

/**
 * The binding that passed to the survivor with the merge, moved back: only while the survivor is still
 * bound to that principal (unbound or bound anew since, it stays as it is).
 */
const bindingBack = (tableName: string, record: MergeRecord, survivor: MergeSide, sourceId: number) =>
  record.principal &&
  survivor.principal &&
  principalName(record.principal) === principalName(survivor.principal)
    ? {
        principal: record.principal,
        actions: bindingMove(tableName, record.principal, survivor.person.id, sourceId),
      }
    : { principal: null, actions: [] as Action[] };

const entriesOf = (
  result: UnmergeResult,
  change: { requester: number; at: string; origin?: RequestOrigin },
  changeIds: UnmergeInput['changeIds'],
) => ({
  survivor: changeEntry(PERSON_TYPE, result.survivor, {
    ...change,
    action: 'unmerge',
    id: changeIds.survivor,
    changed: result.changed.survivor,
  }),
  source: changeEntry(PERSON_TYPE, result.source, {
    ...change,
    action: 'unmerge',
    id: changeIds.source,
    changed: result.changed.source,
  }),
});

/** The unmerge's two write parts, the source's first: what each writes, and its postings' before and after. */
const unmergeParts = (
  { tableName, survivor, source, record, requester, ruling = OPEN }: UnmergeInput,
  { result, entries }: Omit<UnmergePlan, 'parts'>,
): [WritePart, WritePart] => {
  const sourceId = source.merged.id;
  const survivorId = survivor.person.id;
  const binding = bindingBack(tableName, record, survivor, sourceId);
  // The caller's own binding moving back: the move's condition that it names the survivor is the
  // caller check (one transaction may not touch the binding item twice).
  const callerShownByMove =
    ruling.kind === 'own' &&
    binding.principal !== null &&
    principalName(binding.principal) === principalName(ruling.principal);
  return [
    {
      personId: sourceId,
      actions: [
        personPut(tableName, result.source, source.merged.CoreMetaData.version),
        ...historyActions(tableName, entries.source, result.source),
        ...claimActions(tableName, PERSON(sourceId), asked(result.takeSource), []),
        ...localReferenceActions(tableName, null, result.source),
        counterAdd(tableName, personCounterKey(sourceId), 1),
        ...binding.actions,
      ],
      postings: { person: holdingNothing(source.merged), pending: source.pending },
      after: result.source,
    },
    {
      personId: survivorId,
      actions: [
        personPut(tableName, result.survivor, survivor.person.CoreMetaData.version),
        ...historyActions(tableName, entries.survivor, result.survivor),
        mergedFromDelete(tableName, survivorId, sourceId),
        ...claimRepoints(tableName, PERSON(survivorId), PERSON(sourceId), result.repoint),
        ...claimActions(tableName, PERSON(survivorId), asked(result.takeSurvivor), result.releaseSurvivor),
        ...localReferenceActions(tableName, survivor.person, result.survivor),
        ...(callerShownByMove ? [] : rulingActions(tableName, ruling, { requester, personId: survivorId })),
      ],
      postings: { person: survivor.person, pending: survivor.pending },
      after: result.survivor,
    },
  ];
};

/** Plans the unmerge; throws what `unmergePersons` refuses (a name both persons would hold: 409). */
export const planUnmerge = (input: UnmergeInput): UnmergePlan => {
  const { survivor, source, record, requester, now, changeIds, abbreviations, origin } = input;
  const result = unmergePersons(survivor.person, source.merged, record, {
    requester,
    now,
    changeId: changeIds.survivor,
    sourceChangeId: changeIds.source,
    abbreviations,
  });
  const entries = entriesOf(result, { requester, at: now, origin }, changeIds);
  return { result, entries, parts: unmergeParts(input, { result, entries }) };
};
