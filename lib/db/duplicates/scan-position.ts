/**
 * Where `npm run duplicates -- --scan` stands (lib/duplicates/scan-duplicates.ts): one item, the
 * export cursor after the last page it checked whole, how many persons it checked, and whether it
 * reached the end. Written after each page, so a run stopped anywhere goes on from its last page (whose
 * persons may be checked again: a check that finds its pairs as they stand writes nothing).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ScanPosition, ScanPositions } from '../../domain/ports/duplicates';
import type { Storage } from '../table/client';
import { duplicateScanKey } from '../table/keys';
import { storageCall } from '../table/storage-errors';

export const scanPositions = ({ client, tableName }: Storage): ScanPositions => ({
  async read() {
    const { Item } = await storageCall(() =>
      client.send(new GetCommand({ TableName: tableName, Key: duplicateScanKey, ConsistentRead: true })),
    );
    return Item
      ? {
          checked: Item.checked as number,
          done: Item.done === true,
          ...(typeof Item.cursor === 'string' ? { cursor: Item.cursor } : {}),
        }
      : undefined;
  },
  async write(position: ScanPosition) {
    await storageCall(() =>
      client.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...duplicateScanKey, type: 'DuplicateScan', ...position, at: new Date().toISOString() },
        }),
      ),
    );
  },
});
