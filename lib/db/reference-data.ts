/** Writes the Prefix and Suffix reference data into the table: tests now, local start-up and deploy later. */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PREFIXES, SUFFIXES } from '../domain/reference-data';
import { prefixKey, suffixKey } from './keys';

const BATCH_SIZE = 25;

export const seedReferenceData = async (client: DynamoDBDocumentClient, tableName: string): Promise<void> => {
  const items = [
    ...PREFIXES.map((prefix) => ({ ...prefixKey(prefix.id), type: 'Prefix', ...prefix })),
    ...SUFFIXES.map((suffix) => ({ ...suffixKey(suffix.id), type: 'Suffix', ...suffix })),
  ];
  for (let start = 0; start < items.length; start += BATCH_SIZE) {
    let pending = items.slice(start, start + BATCH_SIZE).map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const { UnprocessedItems } = await client.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: pending } }),
      );
      pending = (UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  }
};
