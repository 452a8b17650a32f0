/**
 * How many postings each gram has (issue #36), kept off the write path by the table's stream: a
 * posting's INSERT adds one to its gram's count, its REMOVE takes one away, and a posting put again
 * (a rename puts each, they carry the fullname) is a MODIFY and changes nothing. A batch's changes
 * are summed per gram first, so a gram many persons of the batch hold costs one UpdateItem. The
 * filtered list (posting-search.ts) compares the counts of its probes to choose the one it reads whole.
 *
 * Lambda delivers a stream batch at least once: after a failure the whole batch comes again, and the
 * grams already added are then added twice. A count is a size to compare, not an answer (the list
 * counts its matches itself), and one retried batch moves it by a few postings.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Probe } from '../../../domain/search';
import { batchGet, keyString } from '../../table/batch-get';
import type { Storage } from '../../table/client';
import {
  gramOfPostingKey,
  type Key,
  PERSON_COUNTER_KEYS,
  postingCountKey,
  postingCountPartition,
  postingCountsCompleteKey,
} from '../../table/keys';
import { storageCall } from '../../table/storage-errors';

/** The gram of a stream record's posting and what it does to its count (null: not a posting's). */
const changeOf = (record: DynamoDBRecord): { gram: string; by: number } | null => {
  const by = record.eventName === 'INSERT' ? 1 : record.eventName === 'REMOVE' ? -1 : 0;
  const keys = record.dynamodb?.Keys;
  if (by === 0 || !keys) return null;
  const gram = gramOfPostingKey(unmarshall(keys as never) as Key);
  return gram === null ? null : { gram, by };
};

/** What a batch of stream records does to the counts: per gram, inserts less removes (zeros left out). */
export const postingCountChanges = (records: readonly DynamoDBRecord[]): Map<string, number> => {
  const changes = new Map<string, number>();
  for (const record of records) {
    const change = changeOf(record);
    if (change) changes.set(change.gram, (changes.get(change.gram) ?? 0) + change.by);
  }
  for (const [gram, by] of changes) if (by === 0) changes.delete(gram);
  return changes;
};

/** UpdateItems sent at once: a batch of 100 records touches up to 100 grams. */
const CONCURRENT_UPDATES = 16;

/** Adds each change to its gram's count (an UpdateItem ADD each, the item made by the first). */
export const addPostingCounts = async (
  { client, tableName }: Storage,
  changes: ReadonlyMap<string, number>,
): Promise<void> => {
  const pending = [...changes];
  const worker = async () => {
    for (let next = pending.pop(); next; next = pending.pop()) {
      const [gram, by] = next;
      await storageCall(() =>
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: postingCountKey(gram),
            UpdateExpression: 'SET #type = :type ADD postings :by',
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: { ':type': 'PostingCount', ':by': by },
          }),
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_UPDATES, pending.length) }, worker));
};

/**
 * The postings of each of a plan's probes, when the counts hold every posting of the table (their
 * mark, `postingCountsCompleteKey`), else null: the list then measures its probes by sampling. In
 * one round: one BatchGetItem of the mark and the grams' counts (eventually consistent, about 50
 * bytes each: half a read unit an item), and one Query per prefix probe of its prefix's partition
 * (every gram starting with it, summed). A gram with no count item has no posting.
 */
export const readPostingCounts = async (
  storage: Storage,
  probes: readonly Probe[],
  onCall: (items: number, capacityUnits: number) => void,
): Promise<Map<Probe, number> | null> => {
  const grams = probes.flatMap((probe) => (probe.kind === 'gram' ? [probe.gram] : []));
  const prefixSum = async (prefix: string) => {
    let sum = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await storageCall(() =>
        storage.client.send(
          new QueryCommand({
            TableName: storage.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': postingCountPartition(prefix) },
            ReturnConsumedCapacity: 'TOTAL',
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
          }),
        ),
      );
      for (const item of page.Items ?? []) sum += Number(item.postings);
      onCall(page.ScannedCount ?? 0, page.ConsumedCapacity?.CapacityUnits ?? 0);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return sum;
  };
  const [found, ...sums] = await Promise.all([
    batchGet(storage, [postingCountsCompleteKey, ...grams.map(postingCountKey)], {
      consistent: false,
      onCall,
    }),
    ...probes.map((probe) => (probe.kind === 'prefix' ? prefixSum(probe.prefix) : Promise.resolve(0))),
  ]);
  if (!found.has(keyString(postingCountsCompleteKey))) return null;
  return new Map(
    probes.map((probe, index) => [
      probe,
      probe.kind === 'prefix'
        ? (sums[index] as number)
        : Number(found.get(keyString(postingCountKey(probe.gram)))?.postings ?? 0),
    ]),
  );
};

/**
 * Marks the counts complete when the table holds no person yet (so no posting): from then on the
 * stream's counts are every posting's. Run where the stream is counted from the table's start (the
 * deploy's reference-data resource, `npm start` with its stream poller); a table that already holds
 * persons stays unmarked, and its lists measure by sampling.
 */
export const markPostingCountsIfEmpty = async (storage: Storage, now: string): Promise<boolean> => {
  const counters = await batchGet(storage, PERSON_COUNTER_KEYS);
  if ([...counters.values()].some((item) => Number(item.value) > 0)) return false;
  try {
    await storageCall(() =>
      storage.client.send(
        new PutCommand({
          TableName: storage.tableName,
          Item: { ...postingCountsCompleteKey, type: 'PostingCountsComplete', at: now },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  return true;
};

/** The stream handler's work: the batch's changes added to the counts; a failure hands the batch back. */
export const countPostings =
  (storage: Storage) =>
  async (event: DynamoDBStreamEvent): Promise<void> => {
    await addPostingCounts(storage, postingCountChanges(event.Records));
  };
