/**
 * PUT and DELETE /Person/{id}/principal (API.md 9.1): a person's binding to a principal, both sides
 * (the principal's item and the person's) read with the person and written in one transaction.
 */
import { PrincipalAlreadyBound } from '../../../domain/errors';
import type { BindingOptions } from '../../../domain/ports/persons';
import { type Principal, principalName } from '../../../domain/principal';
import { retryDeadline } from '../../../timeouts';
import { personKey, personPrincipalKey, principalKey } from '../../table/keys';
import { bindingActions, bindingRemoval, liveCheck, transactionOf } from '../../write/actions';
import { retrying, sendWrite } from '../../write/send';
import { livePerson, personIn, principalIn, readItems, type WriteContext } from './read-for-write';

/**
 * Puts both sides of the binding where none is, the person checked live in the same write. A side
 * taken meanwhile makes it read again, and the read then judges: the same binding (a PUT sent twice)
 * is no change (false), another one 409.
 */
export const bindPrincipal = (
  ctx: WriteContext,
  id: number,
  principal: Principal,
  { by, deadline = retryDeadline() }: BindingOptions,
): Promise<boolean> =>
  ctx.queue(personKey(id).pk, () =>
    retrying({ deadline, backoff: ctx.backoff }, async () => {
      const key = principalKey(principalName(principal));
      const item = await readItems(ctx, [personKey(id), personPrincipalKey(id), key]);
      await livePerson(ctx, id, personIn(item, id));
      const bound = item(key)?.personId;
      if (bound === id) return false;
      if (typeof bound === 'number') throw new PrincipalAlreadyBound(bound);
      if (item(personPrincipalKey(id))) throw new PrincipalAlreadyBound(null);
      const made = { boundBy: by, boundAt: ctx.clock().toISOString() };
      const write = [
        liveCheck(ctx.tableName, id),
        ...bindingActions(ctx.tableName, principal, id, { role: { kind: 'rebind' }, by: made }),
      ];
      return (await sendWrite(ctx.client, transactionOf(write))) || undefined;
    }),
  );

/** Deletes both sides of the person's binding: the principal it had, null when it had none. */
export const unbindPrincipal = (
  ctx: WriteContext,
  id: number,
  { deadline = retryDeadline() }: Pick<BindingOptions, 'deadline'> = {},
): Promise<Principal | null> =>
  ctx.queue(personKey(id).pk, () =>
    retrying({ deadline, backoff: ctx.backoff }, async () => {
      const item = await readItems(ctx, [personKey(id), personPrincipalKey(id)]);
      await livePerson(ctx, id, personIn(item, id));
      const principal = principalIn(item, id);
      if (!principal) return null;
      return (await sendWrite(ctx.client, transactionOf(bindingRemoval(ctx.tableName, principal, id))))
        ? principal
        : undefined;
    }),
  );
