/**
 * The list of the persons whose root `local_reference_id` is one value (API.md 4; keys.ts has the
 * design and the cost): the value's reference items (local-references.ts) read to their end, the other
 * filters checked on those candidates as posting-search.ts checks them, the matches sorted as every
 * list is.
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { PersonListRequest, PersonSummary } from '../../../domain/listing';
import type { PersonListResult } from '../../../domain/ports/lists';
import type { QueryPlan } from '../../../domain/search';
import type { Storage } from '../../table/client';
import { localReferencePartition } from '../../table/keys';
import { storageCall } from '../../table/storage-errors';
import { costRecorder, MAX_QUERY_LIMIT, sortedWindow } from './list-reads';
import { filterChecker } from './posting-search';

/**
 * The Query of one value's reference items: strongly consistent, so the list is as fresh as the
 * write that put them (an index would lag it in AWS), and only the stub.
 */
export const buildLocalReferenceQuery = (tableName: string, value: string): QueryCommandInput => ({
  TableName: tableName,
  KeyConditionExpression: 'pk = :pk',
  ExpressionAttributeValues: { ':pk': localReferencePartition(value) },
  ProjectionExpression: 'id, fullname',
  ConsistentRead: true,
  ReturnConsumedCapacity: 'TOTAL',
});

/**
 * The persons whose root `local_reference_id` is `value` and who match every filter of `plan`: the
 * value's items read to the end, then each filter checked on the candidates still in (one BatchGetItem
 * per 100), read as strongly as the items. Costs what the value holds, whatever the table holds.
 */
export const searchLocalReference = async (
  { client, tableName }: Storage,
  value: string,
  plan: QueryPlan,
  { descending, window }: Pick<PersonListRequest, 'descending' | 'window'>,
): Promise<PersonListResult> => {
  const { cost, record } = costRecorder();
  const candidates = new Map<number, PersonSummary>();
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
    for (const { id, fullname } of (page.Items ?? []) as PersonSummary[])
      candidates.set(id, { id, fullname });
    startKey = page.LastEvaluatedKey;
  } while (startKey);

  const references = candidates.size;
  for (const filter of plan.filters) {
    if (candidates.size === 0) break;
    const holds = await filterChecker({ client, tableName }, filter, [...candidates.keys()], {
      consistent: true,
      onCall: record,
    });
    for (const id of candidates.keys()) if (!holds(id)) candidates.delete(id);
  }
  return {
    ...sortedWindow([...candidates.values()], { descending, window }),
    detail: { references },
    cost,
  };
};
