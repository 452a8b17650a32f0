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
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Probe } from '../../domain/search';
import { batchGet, keyString } from '../table/batch-get';
import type { Storage } from '../table/client';
import { gramOfPostingKey, type Key, postingCountKey } from '../table/keys';
import { storageCall } from '../table/storage-errors';

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
 * The counts of a plan's gram probes: one BatchGetItem per 100, eventually consistent (a count item
 * is about 40 bytes: half a read unit each). Null when one of them has no count: a gram no stream
 * ever counted (a table written before the counts, or a gram no one holds), which the list then
 * measures by sampling instead. A prefix probe (a 2-code-point fragment) has no count of its own.
 */
export const readPostingCounts = async (
  storage: Storage,
  probes: readonly Probe[],
  onCall: (items: number, capacityUnits: number) => void,
): Promise<Map<Probe, number> | null> => {
  if (probes.some((probe) => probe.kind !== 'gram')) return null;
  const keyOf = (probe: Probe) => postingCountKey(probe.kind === 'gram' ? probe.gram : probe.prefix);
  const found = await batchGet(storage, probes.map(keyOf), { consistent: false, onCall });
  const counts = new Map<Probe, number>();
  for (const probe of probes) {
    const item = found.get(keyString(keyOf(probe)));
    if (item === undefined) return null;
    counts.set(probe, Number(item.postings));
  }
  return counts;
};

/** The stream handler's work: the batch's changes added to the counts; a failure hands the batch back. */
export const countPostings =
  (storage: Storage) =>
  async (event: DynamoDBStreamEvent): Promise<void> => {
    await addPostingCounts(storage, postingCountChanges(event.Records));
  };
