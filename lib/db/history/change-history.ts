/**
 * Reading ChangeHistory (API.md 11.5). What each read costs is written in keys.ts. An entry holds the
 * object as stored after its change; the object before it is read from the entry of the version before,
 * which a window's Query or BatchGetItem fetches along with the window.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type ChangeEntry, NO_ORIGIN, RESOURCE_TYPES, type ResourceType } from '../../domain/change-history';
import { NotFound } from '../../domain/errors';
import type { Window } from '../../domain/listing';
import type { ChangeHistory, ChangeQuery, StoredChange } from '../../domain/ports/history';
import { batchGet, type Item, keyString } from '../table/batch-get';
import type { Storage } from '../table/client';
import {
  CHANGE_ID_INDEX,
  CHANGE_LIST_INDEX,
  CHANGE_SHARDS,
  changeCounterKey,
  changeListPartition,
  historyKey,
  historyPartition,
  historySortKey,
  type Key,
  personKey,
  versionOfHistoryKey,
  vocabularyKey,
} from '../table/keys';
import { storageCall } from '../table/storage-errors';
import { decodeSnapshot } from './snapshots';

export const fromHistoryItem = (item: Item): ChangeEntry => ({
  id: item.id as number,
  endpoint: (item.endpoint as ResourceType | undefined) ?? 'Person',
  object_id: (item.object_id ?? item.person_id) as number,
  version: versionOfHistoryKey(item.sk as string),
  action: item.action as ChangeEntry['action'],
  requester: (item.requester as number | null | undefined) ?? null,
  at: item.at as string,
  changed: (item.changed as string[] | undefined) ?? [],
  provider_data: (item.provider_data as ChangeEntry['provider_data'] | undefined) ?? NO_ORIGIN,
});

const objectKey = (endpoint: ResourceType, id: number): Key =>
  endpoint === 'Person' ? personKey(id) : vocabularyKey(endpoint, id);

const predecessorKey = ({ pk, sk }: Key): Key | undefined => {
  const version = versionOfHistoryKey(sk);
  return version > 1 ? { pk, sk: historySortKey(version - 1) } : undefined;
};

/** An entry with the object after its change, and the object before it from its predecessor's entry. */
const storedChange = (item: Item, previous: Item | undefined): StoredChange => ({
  entry: fromHistoryItem(item),
  previous: decodeSnapshot(previous?.snapshot as Uint8Array | undefined),
  current: decodeSnapshot(item.snapshot as Uint8Array | undefined),
});

/** Entries of these keys, each with its predecessor's object, in the keys' order. */
const withObjects = async (storage: Storage, keys: Key[]): Promise<StoredChange[]> => {
  const items = await batchGet(storage, [...keys, ...keys.flatMap((key) => predecessorKey(key) ?? [])]);
  return keys.flatMap((key) => {
    const item = items.get(keyString(key));
    if (!item) return [];
    const before = predecessorKey(key);
    return [storedChange(item, before ? items.get(keyString(before)) : undefined)];
  });
};

/** The object's version, which is how many entries it has; undefined when there is no such object. */
const versionOf = async (
  { client, tableName }: Storage,
  endpoint: ResourceType,
  id: number,
): Promise<number | undefined> => {
  const { Item } = await storageCall(() =>
    client.send(
      new GetCommand({
        TableName: tableName,
        Key: objectKey(endpoint, id),
        ProjectionExpression: 'CoreMetaData.version',
        ConsistentRead: true,
      }),
    ),
  );
  return (Item?.CoreMetaData as { version: number } | undefined)?.version;
};

/** The versions a window covers in an object's history of `total` entries, newest first or not. */
const versionsOf = (total: number, { offset, limit }: Window, descending: boolean) => {
  const count = Math.max(0, Math.min(limit, total - offset));
  return Array.from({ length: count }, (_, index) =>
    descending ? total - offset - index : offset + 1 + index,
  );
};

/** One Query of the versions a window needs (and, with `previous`, the one before them). */
const readVersions = async (
  { client, tableName }: Storage,
  endpoint: ResourceType,
  id: number,
  versions: number[],
  previous: boolean,
) => {
  if (versions.length === 0) return new Map<number, Item>();
  const low = Math.max(1, Math.min(...versions) - (previous ? 1 : 0));
  const high = Math.max(...versions);
  const { Items = [] } = await storageCall(() =>
    client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
        ExpressionAttributeValues: {
          ':pk': historyPartition(endpoint, id),
          ':low': historyKey(endpoint, id, low).sk,
          ':high': historyKey(endpoint, id, high).sk,
        },
        ...(previous
          ? {}
          : {
              ProjectionExpression:
                'pk, sk, id, endpoint, object_id, person_id, #action, requester, #at, changed, provider_data',
              ExpressionAttributeNames: { '#action': 'action', '#at': 'at' },
            }),
        ConsistentRead: true,
      }),
    ),
  );
  return new Map(Items.map((item) => [versionOfHistoryKey(item.sk as string), item]));
};

/** The resource type of an object id: ids are unique across every object (API.md 3). */
const endpointOf = async (storage: Storage, id: number): Promise<ResourceType | undefined> => {
  const items = await batchGet(
    storage,
    RESOURCE_TYPES.map((endpoint) => objectKey(endpoint, id)),
  );
  return RESOURCE_TYPES.find((endpoint) => items.has(keyString(objectKey(endpoint, id))));
};

/** A window of one object's history, oldest or newest first. */
const objectPage = async (
  storage: Storage,
  endpoint: ResourceType,
  id: number,
  { descending, window }: ChangeQuery,
) => {
  const total = (await versionOf(storage, endpoint, id)) ?? 0;
  const versions = versionsOf(total, window, descending);
  const items = await readVersions(storage, endpoint, id, versions, true);
  const changes = versions.flatMap((version) => {
    const item = items.get(version);
    return item ? [storedChange(item, items.get(version - 1))] : [];
  });
  return { total, changes };
};

/** The first `wanted` keys of one shard of a resource type's index partition, in time order. */
const readShard = async (
  { client, tableName }: Storage,
  partition: string,
  descending: boolean,
  wanted: number,
) => {
  const keys: Item[] = [];
  let startKey: Item | undefined;
  while (keys.length < wanted) {
    const page = await storageCall(() =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: CHANGE_LIST_INDEX,
          KeyConditionExpression: 'changePk = :pk',
          ExpressionAttributeValues: { ':pk': partition },
          ScanIndexForward: !descending,
          Limit: wanted - keys.length,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      ),
    );
    keys.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
    if (!startKey) break;
  }
  return keys;
};

/** Every shard of the resource types' index partitions, merged in time order. */
const listPage = async (storage: Storage, { endpoint, descending, window }: ChangeQuery) => {
  const partitions = (endpoint ? [endpoint] : RESOURCE_TYPES).flatMap((name) =>
    Array.from({ length: CHANGE_SHARDS[name] }, (_, shard) => ({ endpoint: name, shard })),
  );
  const wanted = window.offset + window.limit;
  const [counters, shards] = await Promise.all([
    batchGet(
      storage,
      partitions.map(({ endpoint: name, shard }) => changeCounterKey(name, shard)),
    ),
    wanted > 0
      ? Promise.all(
          partitions.map(({ endpoint: name, shard }) =>
            readShard(storage, changeListPartition(name, shard), descending, wanted),
          ),
        )
      : Promise.resolve([]),
  ]);
  const total = [...counters.values()].reduce((sum, item) => sum + (item.value as number), 0);
  const order = descending ? -1 : 1;
  const keys = shards
    .flat()
    .sort((a, b) => order * String(a.changeSk).localeCompare(String(b.changeSk)))
    .slice(window.offset, wanted)
    .map(({ pk, sk }) => ({ pk, sk }) as Key);
  return { total, changes: await withObjects(storage, keys) };
};

/** One entry by its id, through the index of entry ids. */
const entryById = async (storage: Storage, id: number) => {
  const { Items = [] } = await storageCall(() =>
    storage.client.send(
      new QueryCommand({
        TableName: storage.tableName,
        IndexName: CHANGE_ID_INDEX,
        KeyConditionExpression: 'changeId = :id',
        ExpressionAttributeValues: { ':id': id },
      }),
    ),
  );
  const [key] = Items;
  const [change] = key ? await withObjects(storage, [{ pk: key.pk, sk: key.sk } as Key]) : [];
  if (!change) throw new NotFound('ChangeHistory', id);
  return change;
};

/** A window of an object's entries, newest first, without their objects; undefined for no such object. */
const entriesOf = async (storage: Storage, endpoint: ResourceType, objectId: number, window: Window) => {
  const total = await versionOf(storage, endpoint, objectId);
  if (total === undefined) return undefined;
  const versions = versionsOf(total, window, true);
  const items = await readVersions(storage, endpoint, objectId, versions, false);
  return {
    total,
    changes: versions.flatMap((version) => {
      const item = items.get(version);
      return item ? [fromHistoryItem(item)] : [];
    }),
  };
};

export const changeHistory = ({ client, tableName }: Storage): ChangeHistory => {
  const storage = { client, tableName };
  return {
    async page(query) {
      if (query.object_id === undefined) return listPage(storage, query);
      const endpoint = query.endpoint ?? (await endpointOf(storage, query.object_id));
      return endpoint ? objectPage(storage, endpoint, query.object_id, query) : { total: 0, changes: [] };
    },
    get: (id) => entryById(storage, id),
    entriesOf: (endpoint, objectId, window) => entriesOf(storage, endpoint, objectId, window),
  };
};
