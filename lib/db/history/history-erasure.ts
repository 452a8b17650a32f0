/**
 * A person's ChangeHistory erased (API.md 15): every entry keeps its type, time, requester and changed
 * paths, and its object (the compressed snapshot) becomes what is left of the person. The rewrites are
 * actions of the erasure's chain (person/write/erasure-chain.ts), which sends them in transactions.
 */
import type { Storage } from '../table/client';
import { HISTORY_SORT_KEY_PREFIX, historyPartition, type Key } from '../table/keys';
import { sortKeyRange } from '../table/sort-key-range';
import type { Action } from '../write/actions';
import { encodeSnapshot } from './snapshots';

/** An entry's object replaced, the entry kept (never an entry made where there was none). */
const snapshotRewrite = (tableName: string, key: Key, snapshot: Uint8Array): Action => [
  {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: 'SET #snapshot = :snapshot',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#snapshot': 'snapshot' },
      ExpressionAttributeValues: { ':snapshot': snapshot },
    },
  },
  { kind: 'history' },
];

/** Rewrites of every entry of person `id`, each to hold `object`: actions of the erasure's chain. */
export const historyRewrites = async (storage: Storage, id: number, object: unknown): Promise<Action[]> => {
  const snapshot = encodeSnapshot(object);
  const keys = await sortKeyRange(storage, historyPartition('Person', id), HISTORY_SORT_KEY_PREFIX);
  return keys.map((key) => snapshotRewrite(storage.tableName, key, snapshot));
};
