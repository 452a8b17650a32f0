/**
 * The chain of an erasure (API.md 15), after its transaction: every copy of the person that the
 * service keeps beside the Person item made what is left of it. For the person and each person merged
 * into it (merged-from.ts): its ChangeHistory entries' objects rewritten
 * (history/history-erasure.ts), the stored answers of keyed writes about it made the tombstone
 * (idempotency/idempotency-store.ts), each merged person's merged reference deleted (its client's own
 * key no longer finds anyone: write/local-references.ts), and each merge's record removed from its
 * link. Sent in transactions of at most 100, the last one also removing
 * the tombstone's `historyPending` mark (person-items.ts). A chain cut short leaves the mark, and
 * running it again (the next DELETE of the person does, erase-person.ts) finishes it: every step
 * writes the same again.
 */
import type { ErasedPerson } from '../../../domain/erasure';
import { isMergedPerson } from '../../../domain/merge';
import { historyRewrites } from '../../history/history-erasure';
import { eraseAnswers } from '../../idempotency/idempotency-store';
import { personKey } from '../../table/keys';
import { type Action, MAX_TRANSACTION_ACTIONS, transactionOf } from '../../write/actions';
import { retrying, sendWrite } from '../../write/send';
import { keysOfEarlierMerges, mergedLinks, mergeRecordRemoval } from '../merged-from';
import { historyErased } from '../person-items';
import { mergedReferenceRemoval } from './local-references';
import { personIn, readItems, type WriteContext } from './read-for-write';

/**
 * The persons whose copies go, each with the object its history holds afterwards: the erased person
 * its tombstone, each person merged into it its merged item (its id, its survivor, its dates: what its
 * GET shows beside the 301).
 */
const erasedObjects = async (ctx: WriteContext, tombstone: ErasedPerson, sources: readonly number[]) => {
  const item = await readItems(ctx, sources.map(personKey));
  return [
    { id: tombstone.id, object: tombstone as unknown },
    ...sources.flatMap((id) => {
      const stored = personIn(item, id);
      return stored && isMergedPerson(stored) ? [{ id, object: stored as unknown }] : [];
    }),
  ];
};

export const eraseCopies = async (ctx: WriteContext, tombstone: ErasedPerson, deadline: number) => {
  const links = await mergedLinks(ctx, tombstone.id);
  const sources = links.map(({ sourceId }) => sourceId);
  // The merged references of merges whose links keep no record (the backfill gave them theirs), by
  // the key their history holds: first, before any history is rewritten, so a chain cut short and run
  // again has deleted them whenever that key is gone.
  const earlier = await keysOfEarlierMerges(
    ctx,
    links.filter((link) => link.localReferenceId === undefined).map(({ sourceId }) => sourceId),
  );
  const actions: Action[] = [...earlier].map(([id, value]) =>
    mergedReferenceRemoval(ctx.tableName, value, id),
  );
  for (const { id, object } of await erasedObjects(ctx, tombstone, sources))
    actions.push(...(await historyRewrites(ctx, id, object)), ...(await eraseAnswers(ctx, id, tombstone)));
  // Each merged reference deleted before its link's record, which keeps its key: a chain cut short
  // and run again still finds it.
  for (const link of links)
    actions.push(
      ...(link.localReferenceId
        ? [mergedReferenceRemoval(ctx.tableName, link.localReferenceId, link.sourceId)]
        : []),
      mergeRecordRemoval(ctx.tableName, link),
    );
  actions.push(historyErased(ctx.tableName, tombstone.id));
  for (let start = 0; start < actions.length; start += MAX_TRANSACTION_ACTIONS) {
    const transaction = transactionOf(actions.slice(start, start + MAX_TRANSACTION_ACTIONS));
    await retrying(
      { deadline, backoff: ctx.backoff },
      async () => (await sendWrite(ctx.client, transaction)) || undefined,
    );
  }
};
