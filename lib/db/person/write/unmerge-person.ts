/**
 * POST /Person/{id}/unmerge (API.md 13.1, issue #58): both persons, their unfinished postings and
 * bindings and the requester read in one round trip, the merge's record beside them, the unmerge
 * planned (person-unmerge.ts) and sent as one write of both, read again while it meets concurrent
 * writes of either. A preview reads and plans once, and sends nothing.
 */
import { NO_ORIGIN } from '../../../domain/change-history';
import { isErasedPerson } from '../../../domain/erasure';
import { PersonErased, PersonNotFound, PersonNotMerged } from '../../../domain/errors';
import { isMergedPerson, type MergedPerson, type MergeRecord } from '../../../domain/merge';
import { NO_ABBREVIATIONS, type Person } from '../../../domain/person';
import type { MergeOptions, UnmergeOutcome } from '../../../domain/ports/persons';
import { OPEN } from '../../../domain/principal';
import { addMetric } from '../../../metrics';
import { retryDeadline } from '../../../timeouts';
import { personKey, personPrincipalKey, postingsPendingKey } from '../../table/keys';
import type { ReservedIds } from '../../write/ids';
import { checkPreconditions } from '../../write/send';
import { planUnmerge, type UnmergePlan } from './person-unmerge';
import {
  bindingToRead,
  checkCaller,
  checkRequester,
  livePerson,
  onSurvivor,
  pendingTermsIn,
  personIn,
  principalIn,
  type ReadItems,
  readItems,
  sendParts,
  type WriteContext,
} from './read-for-write';

interface UnmergeRequest {
  survivorId: number;
  sourceId: number;
  requester: number;
  options: Required<Omit<MergeOptions, 'preview' | 'deadline'>>;
}

const readForUnmerge = async (
  ctx: WriteContext,
  { survivorId, sourceId, requester, options }: UnmergeRequest,
) => {
  const persons = [survivorId, sourceId];
  const [item, record] = await Promise.all([
    readItems(ctx, [
      ...persons.flatMap((id) => [personKey(id), postingsPendingKey(id), personPrincipalKey(id)]),
      ...(persons.includes(requester) ? [] : [personKey(requester)]),
      ...bindingToRead(options.ruling),
    ]),
    ctx.mergeRecordOf(survivorId, sourceId),
  ]);
  return { item, record };
};

/** The source as an unmerge into `survivorId` needs it: merged into that person, with the merge's record. */
const mergedSource = (
  sourceId: number,
  survivorId: number,
  item: ReadItems,
  record: MergeRecord | undefined,
): { merged: MergedPerson; record: MergeRecord } => {
  const source = personIn(item, sourceId);
  if (!source) throw new PersonNotFound(sourceId);
  if (isErasedPerson(source)) throw new PersonErased(source);
  if (!isMergedPerson(source)) throw new PersonNotMerged(sourceId, survivorId, null);
  if (source.superceded_by !== survivorId || !record)
    throw new PersonNotMerged(sourceId, survivorId, source.superceded_by);
  return { merged: source, record };
};

/** The names' abbreviations the two persons' fullnames are computed with; no call when they point at none. */
const abbreviationsOf = (ctx: WriteContext, survivor: Person, record: MergeRecord) => {
  const names: Record<string, unknown>[] = [
    ...survivor.Names,
    ...record.dropped.flatMap(({ set, item }) => (set === 'Names' ? [item] : [])),
  ];
  const ids = (field: string) => [
    ...new Set(names.flatMap((name) => (typeof name[field] === 'number' ? [name[field] as number] : []))),
  ];
  const referenced = { NamePrefix: ids('name_prefix_fk'), NameSuffix: ids('name_suffix_fk') };
  const none = referenced.NamePrefix.length === 0 && referenced.NameSuffix.length === 0;
  return none ? NO_ABBREVIATIONS : ctx.vocabulary.abbreviations(referenced);
};

const planOn = async (
  ctx: WriteContext,
  { survivorId, sourceId, requester, options }: UnmergeRequest,
  { item, record: stored }: Awaited<ReturnType<typeof readForUnmerge>>,
  reserved: ReservedIds | null,
): Promise<UnmergePlan> => {
  const survivor = await livePerson(ctx, survivorId, personIn(item, survivorId));
  const { merged, record } = mergedSource(sourceId, survivorId, item, stored);
  // A requester naming the merged source acts as its survivor until the write lands (API.md 13).
  const actor = requester === sourceId ? survivorId : requester;
  if (actor !== survivorId) checkRequester(actor, item(personKey(actor)));
  checkCaller(options.ruling, actor, item);
  checkPreconditions(options.conditions, survivor.CoreMetaData.version, 'person');
  return planUnmerge({
    tableName: ctx.tableName,
    survivor: {
      person: survivor,
      pending: pendingTermsIn(item, survivorId),
      principal: principalIn(item, survivorId),
    },
    source: { merged, pending: pendingTermsIn(item, sourceId) },
    record,
    requester: actor,
    now: ctx.clock().toISOString(),
    changeIds: reserved
      ? { survivor: reserved.first, source: reserved.first + 1 }
      : { survivor: 0, source: 0 },
    abbreviations: await abbreviationsOf(ctx, survivor, record),
    origin: options.origin,
    ruling: options.ruling,
  });
};

/** What the unmerge would make; no entry is written, so each person's last one stays the one its metadata names. */
const preview = async (ctx: WriteContext, request: UnmergeRequest): Promise<UnmergeOutcome> => {
  const { item, record } = await readForUnmerge(ctx, request);
  const plan = await planOn(ctx, request, { item, record }, null);
  // The last entry of each stays the one its metadata names: both persons were read as stored.
  const lastEntry = (person: Person) => {
    const stored = personIn(item, person.id)?.CoreMetaData as Person['CoreMetaData'] | undefined;
    return {
      ...person,
      CoreMetaData: { ...person.CoreMetaData, modified_audit_id: stored?.modified_audit_id },
    };
  };
  return {
    survivor: lastEntry(plan.result.survivor),
    source: lastEntry(plan.result.source),
  };
};

export const unmergePerson = (
  ctx: WriteContext,
  survivorId: number,
  sourceId: number,
  requester: number,
  {
    conditions = {},
    origin = NO_ORIGIN,
    ruling = OPEN,
    deadline = retryDeadline(),
    preview: previewOnly = false,
  }: MergeOptions = {},
): Promise<UnmergeOutcome> => {
  const request: UnmergeRequest = {
    survivorId,
    sourceId,
    requester,
    options: { conditions, origin, ruling },
  };
  // A preview writes nothing, not even a block of ids.
  if (previewOnly) return preview(ctx, request);
  return onSurvivor(ctx, survivorId, deadline, async (reserving) => {
    const [reserved, read] = await Promise.all([reserving, readForUnmerge(ctx, request)]);
    const { parts, result } = await planOn(ctx, request, read, reserved);
    if (!(await sendParts(ctx, parts, deadline))) return undefined;
    addMetric('PersonsUnmerged');
    return { survivor: result.survivor, source: result.source };
  });
};
