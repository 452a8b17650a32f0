/** Writes the Prefix and Suffix reference data into the table: tests now, local start-up and deploy later. */
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { PREFIXES, SUFFIXES } from '../domain/reference-data';
import type { Storage } from './client';
import { prefixKey, suffixKey } from './keys';
import { storageCall } from './storage-errors';

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

export type ReferenceKind = 'Prefix' | 'Suffix';

export interface ReferenceItem {
  id: number;
  /** The `prefix` or `suffix` text. */
  [field: string]: string | number;
}

export interface ReferenceData {
  list(kind: ReferenceKind): Promise<ReferenceItem[]>;
  get(kind: ReferenceKind, id: number): Promise<ReferenceItem | undefined>;
}

const referenceKey = (kind: ReferenceKind, id: number) => (kind === 'Prefix' ? prefixKey(id) : suffixKey(id));

/** Prefixes and Suffixes as seeded in the table: one small partition each, read whole. */
export const referenceData = ({ client, tableName }: Storage): ReferenceData => {
  const field = (kind: ReferenceKind) => (kind === 'Prefix' ? 'prefix' : 'suffix');
  const strip = (kind: ReferenceKind, item: Record<string, unknown>): ReferenceItem => ({
    id: item.id as number,
    [field(kind)]: item[field(kind)] as string,
  });
  return {
    async list(kind) {
      const { Items } = await storageCall(() =>
        client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': referenceKey(kind, 0).pk },
          }),
        ),
      );
      return (Items ?? []).map((item) => strip(kind, item));
    },
    async get(kind, id) {
      const { Item } = await storageCall(() =>
        client.send(new GetCommand({ TableName: tableName, Key: referenceKey(kind, id) })),
      );
      return Item ? strip(kind, Item) : undefined;
    },
  };
};
