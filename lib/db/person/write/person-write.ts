/**
 * The plan of a person write, pure: whether it is a create or an update is decided here, once, from
 * where the write starts, and the plan yields the patched person, its ChangeHistory entry and the
 * actions of its transaction. `personWrite` adds the postings (write/postings.ts decides where they
 * travel); the repository reads what a plan needs and sends what it yields.
 */
import { type ChangeEntry, changeEntry, type RequestOrigin } from '../../../domain/change-history';
import { RequesterUnknown } from '../../../domain/errors';
import {
  applyPatch,
  countNewIds,
  type PatchContext,
  type PatchResult,
  referencedVocabulary,
} from '../../../domain/patch';
import { PERSON_TYPE, type Person } from '../../../domain/person';
import { OPEN, type RequesterRuling } from '../../../domain/principal';
import type { PersonBody } from '../../../domain/schemas';
import type { SearchTerms } from '../../../domain/search';
import type { VocabularyKind } from '../../../domain/vocabulary';
import { historyActions } from '../../history/history-actions';
import { personCounterKey, vocabularyKey } from '../../table/keys';
import {
  type Action,
  claimActions,
  counterAdd,
  existsCheck,
  MAX_TRANSACTION_ACTIONS,
  ownedBy,
  requesterCheck,
  rulingActions,
  transactionOf,
  type WriteTransaction,
} from '../../write/actions';
import type { ReservedIds } from '../../write/ids';
import { personPut } from '../person-items';
import { localReferenceActions } from './local-references';
import { NOTHING_BEFORE, type PostingsBefore, planPostings, postingChanges } from './postings';

/**
 * Where a person write starts: nothing, for a create (POST), or the stored person and the terms of the
 * postings an unfinished write left (postings.ts), for an update (PATCH).
 */
export type WriteStart = { kind: 'create' } | { kind: 'update'; stored: Person; pending: SearchTerms | null };

export const CREATE: WriteStart = { kind: 'create' };

/**
 * How many ids a write reserves: one per sub-object it adds, the new person's own on a create, and its
 * ChangeHistory entry's (the last of the block). An update reserves them before its read.
 */
export const idsToReserve = (kind: WriteStart['kind'], body: PersonBody): number =>
  countNewIds(body, kind === 'create') + 1;

/**
 * The ids a plan takes from its reserved block: the new person's and its sub-objects' from the first
 * on, the ChangeHistory entry's the last.
 */
export const planIds = (reserved: ReservedIds): Pick<PatchContext, 'nextId' | 'changeId'> => ({
  nextId: reserved.sequence(),
  changeId: reserved.first + reserved.count - 1,
});

/** The vocabulary entries a write may point at, to be read before it is planned (patch.ts). */
export const vocabularyToRead = (start: WriteStart, body: PersonBody): Record<VocabularyKind, number[]> =>
  referencedVocabulary(start.kind === 'create' ? null : start.stored, body);

export interface PersonWriteInput extends PatchContext {
  tableName: string;
  start: WriteStart;
  body: PersonBody;
  origin?: RequestOrigin;
  /** What the caller must prove about the requester (API.md 9.1): none when binding is off. */
  ruling?: RequesterRuling;
}

export interface PersonWritePlan {
  patched: PatchResult;
  entry: ChangeEntry;
  /** The actions of the write's transaction, its postings aside. */
  actions: Action[];
  /** The person's postings before the write (postings.ts). */
  postings: PostingsBefore;
}

/**
 * Plans a create or an update. A create puts the person where none is, counts it and checks that its
 * requester exists (a self-registration, requester 0, has none to check; the person it creates is its
 * requester); an update lands only over the version it patched, and its requester was read with the
 * person. A plan whose patch changed nothing (`patched.changed` empty) is not sent.
 */
export const planPersonWrite = ({
  tableName,
  start,
  body,
  origin,
  ruling = OPEN,
  ...context
}: PersonWriteInput): PersonWritePlan => {
  const creating = start.kind === 'create';
  const stored = creating ? null : start.stored;
  const patched = applyPatch(stored, body, context);
  const { person } = patched;
  // The new person cannot ask for itself: only 0 (self-registration) names it.
  if (creating && context.requester === person.id) throw new RequesterUnknown(context.requester);
  const requesterToCheck = creating && context.requester !== 0 ? context.requester : null;
  const postings = creating ? NOTHING_BEFORE : { person: start.stored, pending: start.pending };
  const entry = changeEntry(PERSON_TYPE, person, {
    id: context.changeId,
    action: start.kind,
    requester: creating ? person.CoreMetaData.created_by : context.requester,
    at: context.now,
    changed: patched.changed,
    origin,
  });
  const actions: Action[] = [
    personPut(tableName, person, stored ? stored.CoreMetaData.version : null),
    ...historyActions(tableName, entry, person),
    ...claimActions(tableName, { type: PERSON_TYPE, id: person.id }, patched.take, patched.release),
    // In the write itself, never in a chain after it: the list by reference is as fresh as the write.
    ...localReferenceActions(tableName, stored, person),
    ...patched.references.map((reference) =>
      existsCheck(tableName, vocabularyKey(reference.kind, reference.id), { kind: 'vocabulary', reference }),
    ),
    ...(creating ? [counterAdd(tableName, personCounterKey(person.id))] : []),
    ...rulingActions(tableName, ruling, { requester: context.requester, personId: person.id }),
    ...(requesterToCheck === null ? [] : [requesterCheck(tableName, requesterToCheck)]),
  ];
  return { patched, entry, actions, postings };
};

/**
 * One person's part of a write: the actions of its own items and where its postings go, from what
 * they were (`postings`) to what `after` implies. A write of one person has one part; a merge two.
 */
export interface WritePart {
  personId: number;
  actions: Action[];
  postings: PostingsBefore;
  after: Person;
}

/** A plan's part: the person it patched, its actions, its postings. */
export const partOf = ({ patched, actions, postings }: PersonWritePlan): WritePart => ({
  personId: patched.person.id,
  actions,
  postings,
  after: patched.person,
});

/** A write's transactions: the write, and what goes before and after it for the postings. */
export interface PersonWrite {
  prelude?: WriteTransaction;
  write: WriteTransaction;
  chain: WriteTransaction[];
  /**
   * The persons whose `POSTINGS` item the prelude puts where there was none: it goes again when the
   * write does not land (one that was there before stays, with the terms of both).
   */
  preluded: number[];
  /** The persons whose postings follow in the chain (their `POSTINGS` items stay should it fail). */
  chained: number[];
}

/**
 * Composes parts into one write under one budget of 100 actions: every part's own actions first, each
 * tagged with its person (so a cancellation reason is read back to the part it belongs to,
 * cancellation.ts), then the postings of each part in turn with the room the parts before left. Those
 * that do not fit travel in the prelude and the chain (postings.ts); `token` names the chains.
 */
export const composeWrite = (tableName: string, parts: readonly WritePart[], token: string): PersonWrite => {
  const own = parts.flatMap(({ personId, actions }) => actions.map((action) => ownedBy(action, personId)));
  let room = MAX_TRANSACTION_ACTIONS - own.length;
  const prelude: Action[] = [];
  const inWrite: Action[] = [];
  const chain: WriteTransaction[] = [];
  const preluded: number[] = [];
  const chained: number[] = [];
  for (const [index, { personId, postings, after }] of parts.entries()) {
    const plan = planPostings({
      tableName,
      personId,
      before: postings,
      changes: postingChanges(postings, after),
      // One action kept for each part after this one: room for its POSTINGS item, at least, so no
      // part needs a prelude while the parts' own actions leave a slot each.
      room: room - (parts.length - 1 - index),
      token,
    });
    room -= plan.inWrite.length;
    prelude.push(...plan.prelude.map((action) => ownedBy(action, personId)));
    inWrite.push(...plan.inWrite.map((action) => ownedBy(action, personId)));
    chain.push(...plan.chain);
    if (plan.prelude.length > 0 && postings.pending === null) preluded.push(personId);
    if (plan.chain.length > 0) chained.push(personId);
  }
  return {
    ...(prelude.length > 0 ? { prelude: transactionOf(prelude) } : {}),
    write: transactionOf([...own, ...inWrite]),
    chain,
    preluded,
    chained,
  };
};

/** A plan's transactions: its actions with the postings that fit beside them, the rest around them. */
export const personWrite = (tableName: string, plan: PersonWritePlan, token: string): PersonWrite =>
  composeWrite(tableName, [partOf(plan)], token);
