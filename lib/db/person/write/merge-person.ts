/**
 * POST /Person/{id}/merge (API.md 13): both persons, their unfinished postings and bindings and the
 * requester read in one round trip, the merge planned (person-merge.ts) and sent as one write of both,
 * read again while it meets concurrent writes of either. A preview reads and plans once, and sends
 * nothing.
 */
import { NO_ORIGIN } from '../../../domain/change-history';
import { isErasedPerson } from '../../../domain/erasure';
import { PersonErased, PersonMerged, PersonNotFound, ValidationFailed } from '../../../domain/errors';
import { isMergedPerson } from '../../../domain/merge';
import type { Person } from '../../../domain/person';
import type { MergeOptions } from '../../../domain/ports/persons';
import { OPEN } from '../../../domain/principal';
import { addMetric } from '../../../metrics';
import { retryDeadline } from '../../../timeouts';
import { personKey, personPrincipalKey, postingsPendingKey } from '../../table/keys';
import type { ReservedIds } from '../../write/ids';
import { checkPreconditions } from '../../write/send';
import { type MergePlan, planMerge } from './person-merge';
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

interface MergeRequest {
  survivorId: number;
  sourceId: number;
  requester: number;
  options: Required<Omit<MergeOptions, 'preview' | 'deadline'>>;
}

/** The merge planned on what one read found, or the survivor when the source is merged into it already. */
type Planned = { plan: MergePlan; survivor: Person } | { done: Person };

const readForMerge = (ctx: WriteContext, { survivorId, sourceId, requester, options }: MergeRequest) => {
  const persons = [survivorId, sourceId];
  return readItems(ctx, [
    ...persons.flatMap((id) => [personKey(id), postingsPendingKey(id), personPrincipalKey(id)]),
    ...(persons.includes(requester) ? [] : [personKey(requester)]),
    ...bindingToRead(options.ruling),
  ]);
};

const planOn = async (
  ctx: WriteContext,
  { survivorId, sourceId, requester, options }: MergeRequest,
  item: ReadItems,
  reserved: ReservedIds | null,
): Promise<Planned> => {
  const survivor = await livePerson(ctx, survivorId, personIn(item, survivorId));
  const source = personIn(item, sourceId);
  if (!source) throw new PersonNotFound(sourceId);
  if (isMergedPerson(source)) {
    // Merged before: into this survivor, a retry that changes nothing; into another, 409.
    const liveEnd = await ctx.liveEndOf(source);
    if (liveEnd === survivorId) return { done: survivor };
    throw new PersonMerged(sourceId, liveEnd);
  }
  if (isErasedPerson(source)) throw new PersonErased(source);
  if (requester !== survivorId && requester !== sourceId)
    checkRequester(requester, item(personKey(requester)));
  checkCaller(options.ruling, requester, item);
  checkPreconditions(options.conditions, survivor.CoreMetaData.version, 'person');

  const sideOf = (person: Person) => ({
    person,
    pending: pendingTermsIn(item, person.id),
    principal: principalIn(item, person.id),
  });
  const plan = planMerge({
    tableName: ctx.tableName,
    survivor: sideOf(survivor),
    source: sideOf(source),
    requester,
    now: ctx.clock().toISOString(),
    changeIds: reserved
      ? { survivor: reserved.first, source: reserved.first + 1 }
      : { survivor: 0, source: 0 },
    origin: options.origin,
    ruling: options.ruling,
  });
  return { plan, survivor };
};

/** What the merge would make; no entry is written, so the survivor's last one stays the one its metadata names. */
const preview = async (ctx: WriteContext, request: MergeRequest): Promise<Person> => {
  const planned = await planOn(ctx, request, await readForMerge(ctx, request), null);
  if ('done' in planned) return planned.done;
  const { person } = planned.plan.result;
  return {
    ...person,
    CoreMetaData: {
      ...person.CoreMetaData,
      modified_audit_id: planned.survivor.CoreMetaData.modified_audit_id,
    },
  };
};

export const mergePerson = (
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
): Promise<Person> => {
  if (survivorId === sourceId)
    throw new ValidationFailed([{ path: '/source', message: 'A person cannot be merged into itself' }]);
  const request: MergeRequest = { survivorId, sourceId, requester, options: { conditions, origin, ruling } };
  // A preview writes nothing, not even a block of ids.
  if (previewOnly) return preview(ctx, request);
  return onSurvivor(ctx, survivorId, deadline, async (reserving) => {
    const [reserved, item] = await Promise.all([reserving, readForMerge(ctx, request)]);
    const planned = await planOn(ctx, request, item, reserved);
    if ('done' in planned) return planned.done;
    const { parts, result } = planned.plan;
    if (!(await sendParts(ctx, parts, deadline))) return undefined;
    addMetric('PersonsMerged');
    return result.person;
  });
};
