/**
 * The items of one partition whose sort keys start with a prefix, every page, read strongly consistent:
 * the small per-person ranges the erasure and the merge links read (a person's ChangeHistory entries,
 * its links to the persons merged into it and to stored keyed answers). Only the attributes (or
 * document paths) asked for come back.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Storage } from './client';
import type { Key } from './keys';
import { storageCall } from './storage-errors';

/**
 * A projection of attributes and document paths (`record.local_reference_id`), every name a
 * placeholder: a name DynamoDB reserves (`record`) is asked for as any other.
 */
export const projectionOf = (attributes: readonly string[]) => {
  const placeholders = new Map<string, string>();
  const placeholder = (name: string) => {
    if (!placeholders.has(name)) placeholders.set(name, `#a${placeholders.size}`);
    return placeholders.get(name) as string;
  };
  const expression = attributes.map((path) => path.split('.').map(placeholder).join('.')).join(', ');
  return {
    ProjectionExpression: expression,
    ExpressionAttributeNames: Object.fromEntries([...placeholders].map(([name, held]) => [held, name])),
  };
};

/** The items, as `T` (by default their keys: `pk` and `sk` only are asked for). */
export const sortKeyRange = async <T = Key>(
  { client, tableName }: Storage,
  pk: string,
  prefix: string,
  attributes: readonly string[] = ['pk', 'sk'],
): Promise<T[]> => {
  const items: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await storageCall(() =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
          ...projectionOf(attributes),
          ConsistentRead: true,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      ),
    );
    items.push(...((page.Items ?? []) as T[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};
