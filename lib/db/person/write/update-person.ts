/**
 * PATCH /Person/{id} (API.md 6): the stored person, the terms of postings an unfinished write left and
 * the requester read in one consistent round trip, the patch planned (person-write.ts) and sent, read
 * again while it meets concurrent writes.
 */
import { NO_ORIGIN } from '../../../domain/change-history';
import type { WriteOutcome } from '../../../domain/ports/persons';
import type { UpdateOptions } from '../../../domain/ports/writes';
import { OPEN, type RequesterRuling } from '../../../domain/principal';
import type { PersonBody } from '../../../domain/schemas';
import { addMetric } from '../../../metrics';
import { retryDeadline } from '../../../timeouts';
import { personKey, postingsPendingKey } from '../../table/keys';
import { checkPreconditions, retrying } from '../../write/send';
import { idsToReserve, planIds, planPersonWrite, type WriteStart } from './person-write';
import {
  abbreviationsFor,
  bindingToRead,
  checkCaller,
  checkRequester,
  livePerson,
  outcomeOf,
  pendingTermsIn,
  personIn,
  readItems,
  sendPlan,
  type WriteContext,
} from './read-for-write';

/** The person, its unfinished postings, the requester and the caller's binding, in one round trip. */
const readForUpdate = (ctx: WriteContext, id: number, requester: number, ruling: RequesterRuling) =>
  readItems(ctx, [
    personKey(id),
    postingsPendingKey(id),
    ...(requester === id ? [] : [personKey(requester)]),
    ...bindingToRead(ruling),
  ]);

export const updatePerson = (
  ctx: WriteContext,
  id: number,
  body: PersonBody,
  requester: number,
  { conditions = {}, origin = NO_ORIGIN, ruling = OPEN, deadline = retryDeadline() }: UpdateOptions = {},
): Promise<WriteOutcome> => {
  // The id block (when this container needs a new one) and the read go out together: one round
  // trip where there were two in a row, which a cold container always paid.
  const reserving = ctx.ids.reserve(idsToReserve('update', body));
  // Awaited only when the queue reaches this write: marked handled now, so an id block that fails
  // while the write waits (storage down) is this request's 503, not an unhandled rejection that
  // ends the process serving it.
  reserving.catch(() => undefined);
  return ctx.queue(personKey(id).pk, () =>
    retrying({ deadline, backoff: ctx.backoff }, async () => {
      const [reserved, item] = await Promise.all([reserving, readForUpdate(ctx, id, requester, ruling)]);
      const stored = await livePerson(ctx, id, personIn(item, id));
      if (requester !== id) checkRequester(requester, item(personKey(requester)));
      checkCaller(ruling, requester, item);
      checkPreconditions(conditions, stored.CoreMetaData.version, 'person');

      const start: WriteStart = { kind: 'update', stored, pending: pendingTermsIn(item, id) };
      const plan = planPersonWrite({
        tableName: ctx.tableName,
        start,
        body,
        requester,
        now: ctx.clock().toISOString(),
        ...planIds(reserved),
        abbreviations: await abbreviationsFor(ctx, start, body),
        origin,
        ruling,
      });
      if (plan.patched.changed.length === 0) return { person: stored, tombstones: plan.patched.tombstones };
      if (!(await sendPlan(ctx, plan, deadline))) return undefined;
      addMetric('PersonsPatched');
      return outcomeOf(plan);
    }),
  );
};
