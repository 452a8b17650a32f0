/**
 * The actions that write a ChangeHistory entry, as pure builders beside the write's own
 * (`write/actions.ts`): the entry with its compressed snapshot (`snapshots.ts`), one per version and
 * never overwritten, and the step of its resource type's change counter. `change-history.ts` reads them.
 */
import { CHANGE_HISTORY_TYPE, type ChangeEntry, type ResourceType } from '../../domain/change-history';
import { changeCounterKeyOf, changeListKey, historyKey } from '../table/keys';
import { type Action, counterAdd } from '../write/actions';
import { encodeSnapshot } from './snapshots';

/** The ChangeHistory entry of a write: one per version, never overwritten. */
export const historyPut = (tableName: string, entry: ChangeEntry, snapshot: unknown): Action => [
  {
    Put: {
      TableName: tableName,
      Item: {
        ...historyKey(entry.endpoint, entry.object_id, entry.version),
        ...changeListKey(entry.endpoint, entry.id, entry.at),
        type: CHANGE_HISTORY_TYPE,
        ...entry,
        snapshot: encodeSnapshot(snapshot),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  { kind: 'history' },
];

/** Counts `count` new entries in the change counter of the shard entry `id` falls in. */
export const counterStep = (tableName: string, endpoint: ResourceType, id: number, count = 1): Action =>
  counterAdd(tableName, changeCounterKeyOf(endpoint, id), count);

/** The ChangeHistory entry of a write and its counter's step. */
export const historyActions = (tableName: string, entry: ChangeEntry, snapshot: unknown): Action[] => [
  historyPut(tableName, entry, snapshot),
  counterStep(tableName, entry.endpoint, entry.id),
];
