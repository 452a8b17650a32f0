/** POST /Person: one write of the new person, its sub-objects and its ChangeHistory entry (API.md 5). */
import { NO_ORIGIN } from '../../../domain/change-history';
import type { WriteOutcome } from '../../../domain/ports/persons';
import type { WriteOptions } from '../../../domain/ports/writes';
import { OPEN } from '../../../domain/principal';
import type { PersonBody } from '../../../domain/schemas';
import { addMetric } from '../../../metrics';
import { retryDeadline } from '../../../timeouts';
import { retrying } from '../../write/send';
import { CREATE, idsToReserve, planIds, planPersonWrite } from './person-write';
import { abbreviationsFor, outcomeOf, sendPlan, type WriteContext } from './read-for-write';

export const createPerson = async (
  ctx: WriteContext,
  body: PersonBody,
  requester: number,
  { origin = NO_ORIGIN, ruling = OPEN, deadline = retryDeadline() }: WriteOptions = {},
): Promise<WriteOutcome> => {
  // Read: an id block (when this container needs one) and the vocabulary entries it points at.
  const [reserved, abbreviations] = await Promise.all([
    ctx.ids.reserve(idsToReserve('create', body)),
    abbreviationsFor(ctx, CREATE, body),
  ]);
  // Plan: one block, the person, its sub-objects, then the ChangeHistory entry.
  const plan = planPersonWrite({
    tableName: ctx.tableName,
    start: CREATE,
    body,
    requester,
    now: ctx.clock().toISOString(),
    ...planIds(reserved),
    abbreviations,
    origin,
    ruling,
  });
  // Send: again while it meets concurrent writes (of the claims it takes).
  const outcome = await retrying({ deadline, backoff: ctx.backoff }, async () =>
    (await sendPlan(ctx, plan, deadline)) ? outcomeOf(plan) : undefined,
  );
  addMetric('PersonsCreated');
  return outcome;
};
