/** BatchGetItem of any number of keys: chunks of 100 (DynamoDB's limit), unprocessed keys asked again. */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { Storage } from './client';
import type { Key } from './keys';
import { storageCall } from './storage-errors';

export const BATCH_GET_LIMIT = 100;

export type Item = Record<string, unknown>;

/** One string per key, to find an item of a batch by its key. */
export const keyString = ({ pk, sk }: Key) => `${pk}\n${sk}`;

export interface BatchGetOptions {
  consistent?: boolean;
  /** Told of every call: the items it returned and the read units it consumed. */
  onCall?: (items: number, capacityUnits: number) => void;
}

/** The items of these keys (duplicates read once), by `keyString`; keys with no item are absent. */
export const batchGet = async (
  { client, tableName }: Storage,
  keys: readonly Key[],
  { consistent = true, onCall }: BatchGetOptions = {},
): Promise<Map<string, Item>> => {
  const found = new Map<string, Item>();
  const unique = [...new Map(keys.map((key) => [keyString(key), key])).values()];
  for (let start = 0; start < unique.length; start += BATCH_GET_LIMIT) {
    let pending: Key[] = unique.slice(start, start + BATCH_GET_LIMIT);
    while (pending.length > 0) {
      const { Responses, UnprocessedKeys, ConsumedCapacity } = await storageCall(() =>
        client.send(
          new BatchGetCommand({
            RequestItems: { [tableName]: { Keys: pending, ConsistentRead: consistent } },
            ...(onCall ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
          }),
        ),
      );
      const items = Responses?.[tableName] ?? [];
      for (const item of items) found.set(keyString(item as Key), item);
      onCall?.(
        items.length,
        (ConsumedCapacity ?? []).reduce((sum, { CapacityUnits = 0 }) => sum + CapacityUnits, 0),
      );
      pending = (UnprocessedKeys?.[tableName]?.Keys ?? []) as Key[];
    }
  }
  return found;
};
