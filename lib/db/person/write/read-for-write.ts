/**
 * What every person write shares: its context (storage, ids, clock, vocabulary, retries and the
 * container's queue of one person's writes), the reads before its plan and the sending after it. Each
 * operation (create-person.ts, update-person.ts, merge-person.ts, unmerge-person.ts,
 * bind-principal.ts) reads → plans → sends on these.
 */
import { randomUUID } from 'node:crypto';
import { isErasedPerson } from '../../../domain/erasure';
import {
  PersonErased,
  PersonMerged,
  PersonNotFound,
  RequesterMerged,
  RequesterMismatch,
  RequesterUnknown,
} from '../../../domain/errors';
import { isMergedPerson, type MergedPerson, type MergeRecord } from '../../../domain/merge';
import { NO_ABBREVIATIONS, type Person } from '../../../domain/person';
import type { WriteOutcome } from '../../../domain/ports/persons';
import type { VocabularyReader } from '../../../domain/ports/vocabulary';
import { type Principal, principalName, type RequesterRuling } from '../../../domain/principal';
import type { PersonBody } from '../../../domain/schemas';
import type { SearchTerms } from '../../../domain/search';
import type { VocabularyKind } from '../../../domain/vocabulary';
import type { logger } from '../../../logger';
import { batchGet, type Item, keyString } from '../../table/batch-get';
import type { Storage } from '../../table/client';
import { type Key, personKey, personPrincipalKey, postingsPendingKey, principalKey } from '../../table/keys';
import type { IdAllocator, ReservedIds } from '../../write/ids';
import { type objectQueue, retrying } from '../../write/send';
import { fromStoredPersonItem, type StoredPerson } from '../person-items';
import {
  composeWrite,
  type PersonWrite,
  type PersonWritePlan,
  personWrite,
  vocabularyToRead,
  type WritePart,
  type WriteStart,
} from './person-write';
import { sendWithPostings } from './send-with-postings';

export interface WriteContext extends Storage {
  ids: IdAllocator;
  clock: () => Date;
  vocabulary: VocabularyReader;
  backoff: (attempt: number) => number;
  logger: Pick<typeof logger, 'warn'>;
  /** This container's writes of one person, one at a time (send.ts). */
  queue: ReturnType<typeof objectQueue>;
  /** The live person at the end of a merged person's chain (read/person-reads.ts, given by the repository). */
  liveEndOf: (merged: MergedPerson) => Promise<number>;
  /** What the merge of `sourceId` into `survivorId` did, if it is stored (read/merge-record.ts, given by the repository). */
  mergeRecordOf: (survivorId: number, sourceId: number) => Promise<MergeRecord | undefined>;
}

/** The items a write read, by key. */
export type ReadItems = (key: Key) => Item | undefined;

/** The items under the keys, read consistently in one BatchGetItem (table/batch-get.ts). */
export const readItems = async (ctx: WriteContext, keys: Key[]): Promise<ReadItems> => {
  const items = await batchGet(ctx, keys);
  return (key) => items.get(keyString(key));
};

/** The person among items a write read, if stored. */
export const personIn = (item: ReadItems, id: number) => {
  const found = item(personKey(id));
  return found ? fromStoredPersonItem(found) : undefined;
};

/** The terms of postings an unfinished write of the person left (postings.ts), if any. */
export const pendingTermsIn = (item: ReadItems, id: number) =>
  (item(postingsPendingKey(id))?.terms as SearchTerms | undefined) ?? null;

/** The principal the person is bound to among items a write read, if any. */
export const principalIn = (item: ReadItems, id: number) =>
  (item(personPrincipalKey(id))?.principal as Principal | undefined) ?? null;

/** A person a write reads: live, else 404, 409 `merged` naming its chain's live end, or 410 `erased`. */
export const livePerson = async (
  ctx: WriteContext,
  id: number,
  stored: StoredPerson | undefined,
): Promise<Person> => {
  if (!stored) throw new PersonNotFound(id);
  if (isMergedPerson(stored)) throw new PersonMerged(id, await ctx.liveEndOf(stored));
  if (isErasedPerson(stored)) throw new PersonErased(stored);
  return stored;
};

/**
 * A requester a write reads: a live person, else 403 (an erased person is no one); a merged one acts
 * as its survivor (asRequester).
 */
export const checkRequester = (requester: number, item: Item | undefined) => {
  const stored = item && fromStoredPersonItem(item);
  if (!stored || isErasedPerson(stored)) throw new RequesterUnknown(requester);
  if (isMergedPerson(stored)) throw new RequesterMerged(requester, stored.superceded_by);
};

/** The binding a write must read to check its caller (API.md 9.1): none unless it is `own`. */
export const bindingToRead = (ruling: RequesterRuling): Key[] =>
  ruling.kind === 'own' ? [principalKey(principalName(ruling.principal))] : [];

/**
 * Refuses a requester that is not the caller's own person before anything is planned (a write that
 * would change nothing is refused too); the write's `callerCheck` holds it until it lands.
 */
export const checkCaller = (ruling: RequesterRuling, requester: number, item: ReadItems) => {
  if (ruling.kind === 'own' && item(principalKey(principalName(ruling.principal)))?.personId !== requester)
    throw new RequesterMismatch(requester);
};

/** The vocabulary entries the write may point at; no call at all when it points at none. */
export const abbreviationsFor = (ctx: WriteContext, start: WriteStart, body: PersonBody) => {
  const referenced = vocabularyToRead(start, body);
  const none = Object.values(referenced).every((list) => list.length === 0);
  return none
    ? NO_ABBREVIATIONS
    : ctx.vocabulary.abbreviations(referenced as Record<VocabularyKind, number[]>);
};

/** Sends a write with its postings (send-with-postings.ts): false when it should be retried. */
export const sendPersonWrite = (
  ctx: WriteContext,
  write: (token: string) => PersonWrite,
  deadline: number,
) => {
  const token = randomUUID();
  const { client, tableName, backoff, logger } = ctx;
  return sendWithPostings(client, write(token), { tableName, token, retry: { deadline, backoff }, logger });
};

/** Sends the parts of a write of two persons (a merge, an unmerge) composed into one. */
export const sendParts = (ctx: WriteContext, parts: readonly WritePart[], deadline: number) =>
  sendPersonWrite(ctx, (token) => composeWrite(ctx.tableName, parts, token), deadline);

/**
 * A write of two persons (a merge, an unmerge): one at a time on the survivor's queue, tried until it
 * lands or `deadline` passes (`attempt` answers undefined to read again), the ids of its two
 * ChangeHistory entries reserved once while the first attempt reads.
 */
export const onSurvivor = <T>(
  ctx: WriteContext,
  survivorId: number,
  deadline: number,
  attempt: (reserving: Promise<ReservedIds>) => Promise<T | undefined>,
): Promise<T> => {
  const reserving = ctx.ids.reserve(2);
  reserving.catch(() => undefined);
  return ctx.queue(personKey(survivorId).pk, () =>
    retrying({ deadline, backoff: ctx.backoff }, () => attempt(reserving)),
  );
};

/** Sends a create's or an update's plan. */
export const sendPlan = (ctx: WriteContext, plan: PersonWritePlan, deadline: number) =>
  sendPersonWrite(ctx, (token) => personWrite(ctx.tableName, plan, token), deadline);

export const outcomeOf = ({ patched }: PersonWritePlan): WriteOutcome => ({
  person: patched.person,
  tombstones: patched.tombstones,
});
