/**
 * The list of the persons whose root `local_reference_id` is one value (API.md 4; keys.ts has the
 * design and the cost): the value's reference items (local-references.ts) read to their end, a merged
 * person's followed to the live end of its chain (API.md 13.1: a client's own key still finds its
 * survivor), the other filters checked on those candidates as posting-search.ts checks them, the
 * matches sorted as every list is.
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { PersonListRequest, PersonSummary } from '../../../domain/listing';
import type { PersonListResult } from '../../../domain/ports/lists';
import type { QueryPlan } from '../../../domain/search';
import { batchGet, keyString } from '../../table/batch-get';
import type { Storage } from '../../table/client';
import { localReferencePartition, personKey } from '../../table/keys';
import { storageCall } from '../../table/storage-errors';
import { isLivePersonItem, MERGED_PERSON_TYPE } from '../person-items';
import { costRecorder, MAX_QUERY_LIMIT, type RecordCost, sortedWindow } from './list-reads';
import { MAX_CHAIN } from './person-reads';
import { filterChecker } from './posting-search';

/**
 * The Query of one value's reference items: strongly consistent, so the list is as fresh as the
 * write that put them (an index would lag it in AWS), and only the stub, or the mark of a merged
 * person's reference.
 */
export const buildLocalReferenceQuery = (tableName: string, value: string): QueryCommandInput => ({
  TableName: tableName,
  KeyConditionExpression: 'pk = :pk',
  ExpressionAttributeNames: { '#merged': 'merged' },
  ExpressionAttributeValues: { ':pk': localReferencePartition(value) },
  ProjectionExpression: 'id, fullname, #merged',
  ConsistentRead: true,
  ReturnConsumedCapacity: 'TOTAL',
});

/** A value's reference items, every page: the live persons' stubs, and the ids of merged persons. */
const readReferences = async ({ client, tableName }: Storage, value: string, record: RecordCost) => {
  const live = new Map<number, PersonSummary>();
  const merged: number[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await storageCall(() =>
      client.send(
        new QueryCommand({
          ...buildLocalReferenceQuery(tableName, value),
          Limit: MAX_QUERY_LIMIT,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      ),
    );
    record(page.ScannedCount ?? 0, page.ConsumedCapacity?.CapacityUnits ?? 0);
    for (const item of (page.Items ?? []) as (PersonSummary & { merged?: boolean })[])
      if (item.merged) merged.push(item.id);
      else live.set(item.id, { id: item.id, fullname: item.fullname });
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { live, merged };
};

/**
 * The live ends of merged persons' chains, as stubs, each once, those in `known` (whose stubs the
 * list has) not read again: one strongly consistent BatchGetItem per hop of every chain at once (the
 * merged persons, then their survivors, ...). A chain ending in an erased person (its merged
 * references not deleted yet) gives none.
 */
export const survivorsOf = async (
  storage: Storage,
  merged: readonly number[],
  known: ReadonlySet<number>,
  onCall: RecordCost,
): Promise<PersonSummary[]> => {
  const seen = new Set([...known, ...merged]);
  const survivors: PersonSummary[] = [];
  let level = [...new Set(merged)];
  for (let hop = 0; hop <= MAX_CHAIN && level.length > 0; hop++) {
    const items = await batchGet(storage, level.map(personKey), { consistent: true, onCall });
    const next: number[] = [];
    for (const id of level) {
      const item = items.get(keyString(personKey(id)));
      if (item?.type === MERGED_PERSON_TYPE) {
        const survivor = item.superceded_by as number;
        if (!seen.has(survivor)) next.push(survivor);
        seen.add(survivor);
      } else if (item && isLivePersonItem(item)) survivors.push({ id, fullname: item.fullname as string });
    }
    level = next;
  }
  return survivors;
};

/**
 * The persons whose root `local_reference_id` is `value`, or who are the live end of a merged
 * person's chain whose was, each once, and who match every filter of `plan`: the value's items read to
 * the end, the merged persons' chains followed, then each filter checked on the candidates still in
 * (one BatchGetItem per 100), read as strongly as the items. Costs what the value holds (and the
 * chains' hops), whatever the table holds.
 */
export const searchLocalReference = async (
  storage: Storage,
  value: string,
  plan: QueryPlan,
  { descending, window }: Pick<PersonListRequest, 'descending' | 'window'>,
): Promise<PersonListResult> => {
  const { cost, record } = costRecorder();
  const { live: candidates, merged } = await readReferences(storage, value, record);
  const references = candidates.size + merged.length;
  if (merged.length > 0)
    for (const survivor of await survivorsOf(storage, merged, new Set(candidates.keys()), record))
      candidates.set(survivor.id, survivor);
  for (const filter of plan.filters) {
    if (candidates.size === 0) break;
    const holds = await filterChecker(storage, filter, [...candidates.keys()], {
      consistent: true,
      onCall: record,
    });
    for (const id of candidates.keys()) if (!holds(id)) candidates.delete(id);
  }
  return {
    ...sortedWindow([...candidates.values()], { descending, window }),
    detail: { references, ...(merged.length > 0 ? { merged: merged.length } : {}) },
    cost,
  };
};
