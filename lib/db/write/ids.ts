/**
 * Integer ids from one atomic counter item. A container reserves a block of ids with one `UpdateItem
 * ADD` and hands them out locally, so most writes need no counter call at all. Ids stay unique across
 * containers; they are not dense and not ordered by time across containers.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { idCounterKey } from '../table/keys';
import { storageCall } from '../table/storage-errors';
import { counterUpdate } from './actions';

/** A run of reserved ids; `sequence()` hands them out from the first, afresh on each call. */
export interface ReservedIds {
  first: number;
  count: number;
  sequence(): () => number;
}

export interface IdAllocator {
  reserve(count: number): Promise<ReservedIds>;
}

const reserved = (first: number, count: number): ReservedIds => ({
  first,
  count,
  sequence() {
    let next = first;
    return () => {
      if (next >= first + count) throw new Error(`Only ${count} ids were reserved`);
      return next++;
    };
  },
});

/** Ids a container takes from the counter at once: the counter is written once per this many ids. */
export const ID_BLOCK_SIZE = 50;

export const idAllocator = (
  client: DynamoDBDocumentClient,
  tableName: string,
  blockSize = ID_BLOCK_SIZE,
): IdAllocator => {
  let next = 0;
  let end = 0;
  let refilling: Promise<void> | undefined;
  const refill = async (count: number) => {
    const size = Math.max(count, blockSize);
    const { Attributes } = await storageCall(() =>
      client.send(
        new UpdateCommand({ ...counterUpdate(tableName, idCounterKey, size), ReturnValues: 'UPDATED_NEW' }),
      ),
    );
    end = (Attributes?.value as number) + 1;
    next = end - size;
  };
  return {
    async reserve(count) {
      // Requests that find the block spent at once (one process serving many, as the local server
      // does) wait for one refill instead of each taking a block of the counter.
      while (end - next < count) {
        refilling ??= refill(count).finally(() => {
          refilling = undefined;
        });
        await refilling;
      }
      const first = next;
      next += count;
      return reserved(first, count);
    },
  };
};
