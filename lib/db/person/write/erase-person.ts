/**
 * DELETE /Person/{id} (API.md 15): the person, its unfinished postings, its binding, the requester and
 * the caller's binding read in one round trip, the erasure planned (person-erase.ts) and sent as one
 * write with its postings, read again while it meets concurrent writes of the person (a PATCH or a
 * merge landing first is erased with the rest); then its other copies erased in a chain
 * (erasure-chain.ts) before the answer. A person erased already answers its tombstone and nothing is
 * written, unless the chain of its erasure was cut short: then this one finishes it, as
 * `finishErasure` does for the bus's finisher (lib/erasure/finish-erasures.ts) whether or not a
 * client retries.
 */
import { NO_ORIGIN } from '../../../domain/change-history';
import { type ErasedPerson, isErasedPerson } from '../../../domain/erasure';
import { DelegateRequired, RequesterMismatch } from '../../../domain/errors';
import type { UpdateOptions } from '../../../domain/ports/writes';
import { OPEN, principalName, type RequesterRuling } from '../../../domain/principal';
import { addMetric } from '../../../metrics';
import { retryDeadline } from '../../../timeouts';
import { personKey, personPrincipalKey, postingsPendingKey } from '../../table/keys';
import { checkPreconditions, retrying } from '../../write/send';
import { historyPendingIn } from '../person-items';
import { eraseCopies } from './erasure-chain';
import { planErase } from './person-erase';
import { composeWrite } from './person-write';
import {
  bindingToRead,
  checkCaller,
  checkRequester,
  livePerson,
  pendingTermsIn,
  personIn,
  principalIn,
  readItems,
  sendPersonWrite,
  type WriteContext,
} from './read-for-write';

const readForErase = (ctx: WriteContext, id: number, requester: number, ruling: RequesterRuling) =>
  readItems(ctx, [
    personKey(id),
    postingsPendingKey(id),
    personPrincipalKey(id),
    ...(requester === id ? [] : [personKey(requester)]),
    ...bindingToRead(ruling),
  ]);

export const erasePerson = (
  ctx: WriteContext,
  id: number,
  requester: number,
  { conditions = {}, origin = NO_ORIGIN, ruling = OPEN, deadline = retryDeadline() }: UpdateOptions = {},
): Promise<ErasedPerson> => {
  // With binding on, a caller that is no delegate erases its own person only (API.md 15, 9.1).
  if (ruling.kind === 'own' && requester !== id) throw new DelegateRequired('erase another person');
  const reserving = ctx.ids.reserve(1);
  reserving.catch(() => undefined);
  return ctx.queue(personKey(id).pk, () =>
    retrying({ deadline, backoff: ctx.backoff }, async () => {
      const [reserved, item] = await Promise.all([reserving, readForErase(ctx, id, requester, ruling)]);
      if (requester !== id) checkRequester(requester, item(personKey(requester)));
      const stored = personIn(item, id);
      // Erased before (a retry, or another's erasure): the same tombstone, whatever the conditions,
      // once its history is erased.
      if (stored && isErasedPerson(stored)) {
        if (historyPendingIn(item(personKey(id)))) await eraseCopies(ctx, stored, deadline);
        return stored;
      }
      const person = await livePerson(ctx, id, stored);
      checkCaller(ruling, requester, item);
      const principal = principalIn(item, id);
      // The binding's delete is the caller check (one transaction may not touch its item twice).
      if (
        ruling.kind === 'own' &&
        principalName(ruling.principal) !== (principal && principalName(principal))
      )
        throw new RequesterMismatch(requester);
      checkPreconditions(conditions, person.CoreMetaData.version, 'person');
      const { tombstone, part } = planErase({
        tableName: ctx.tableName,
        person,
        pending: pendingTermsIn(item, id),
        principal,
        requester,
        now: ctx.clock().toISOString(),
        changeId: reserved.first,
        origin,
      });
      if (!(await sendPersonWrite(ctx, (token) => composeWrite(ctx.tableName, [part], token), deadline)))
        return undefined;
      addMetric('PersonsErased');
      await eraseCopies(ctx, tombstone, deadline);
      return tombstone;
    }),
  );
};

/**
 * The chain of person `id`'s erasure run again while its tombstone still carries the mark (a chain cut
 * short): true when there was something to finish. A person not erased, or erased completely, is one
 * read and nothing written.
 */
export const finishErasure = (ctx: WriteContext, id: number, deadline = retryDeadline()): Promise<boolean> =>
  ctx.queue(personKey(id).pk, async () => {
    const item = await readItems(ctx, [personKey(id)]);
    const stored = personIn(item, id);
    if (!stored || !isErasedPerson(stored) || !historyPendingIn(item(personKey(id)))) return false;
    await eraseCopies(ctx, stored, deadline);
    return true;
  });
