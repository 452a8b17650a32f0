/**
 * The survivor's link to a person merged into it (API.md 13; keys.ts has the design): one item in the
 * survivor's own partition per source, so what was merged into a person is found by a Query of that
 * partition (`mergedSources` below), never a Scan. The merge puts it in its transaction
 * (write/person-merge.ts); the backfill puts it for merges made before the links (write/backfill.ts).
 */
import type { MergeRecord } from '../../domain/merge';
import type { Person } from '../../domain/person';
import { decodeSnapshot } from '../history/snapshots';
import { batchGet, keyString } from '../table/batch-get';
import type { Storage } from '../table/client';
import { historyKey, type Key, MERGED_FROM_SORT_KEY_PREFIX, mergedFromKey, personKey } from '../table/keys';
import { sortKeyRange } from '../table/sort-key-range';
import type { Action } from '../write/actions';
import { MERGED_PERSON_TYPE } from './person-items';

export const MERGED_FROM_TYPE = 'MergedFrom';

export type MergedFromItem = Key & {
  type: typeof MERGED_FROM_TYPE;
  sourceId: number;
  at: string;
  /**
   * What the merge did, as its undo needs it (API.md 13.1): kept by every merge since issue #58;
   * absent from a link of an earlier merge (or the backfill's), whose record its MERGE entries give
   * (merge-records.ts).
   */
  record?: MergeRecord;
};

/** The link saying that person `sourceId` was merged into `survivorId` at `at`, with what it did. */
export const mergedFromItem = (
  survivorId: number,
  sourceId: number,
  at: string,
  record?: MergeRecord,
): MergedFromItem => ({
  ...mergedFromKey(survivorId, sourceId),
  type: MERGED_FROM_TYPE,
  sourceId,
  at,
  ...(record ? { record } : {}),
});

/**
 * The link's Put, unconditional: a source is merged once (its merged item's version condition in the
 * same transaction guards it), and the backfill's Put of the same link is idempotent.
 */
export const mergedFromPut = (tableName: string, item: MergedFromItem): Action => [
  { Put: { TableName: tableName, Item: item } },
  { kind: 'object' },
];

/**
 * The link's Delete when an unmerge gives the source back (API.md 13.1), on condition that it is there:
 * an unmerge of the same merge that landed meanwhile cancels this one.
 */
export const mergedFromDelete = (tableName: string, survivorId: number, sourceId: number): Action => [
  {
    Delete: {
      TableName: tableName,
      Key: mergedFromKey(survivorId, sourceId),
      ConditionExpression: 'attribute_exists(sk)',
    },
  },
  { kind: 'object' },
];

/** The most sources one survivor's chain may hold before the read gives up (a bound, not a use). */
export const MAX_MERGED_SOURCES = 10_000;

/** Persons of one level of the chain whose links are read at once. */
const QUERIES_AT_ONCE = 16;

/**
 * Person `personId`'s own links, every page of its partition's `MERGEDFROM#` range: the ids they name
 * and the root key each record keeps (not the rest of the record).
 */
const directSources = async (storage: Storage, personId: number): Promise<MergedLink[]> =>
  (
    await sortKeyRange<{ sourceId: number; record?: { local_reference_id?: string | null } }>(
      storage,
      mergedFromKey(personId, 0).pk,
      MERGED_FROM_SORT_KEY_PREFIX,
      ['sourceId', 'record.local_reference_id'],
    )
  ).map(({ sourceId, record }) => ({
    survivorId: personId,
    sourceId,
    ...(record ? { localReferenceId: record.local_reference_id || null } : {}),
  }));

/** A survivor's link to a person merged into it, as the chain's read answers it. */
export interface MergedLink {
  survivorId: number;
  sourceId: number;
  /**
   * The source's root `local_reference_id`, as the merge's record keeps it until an erasure removes
   * the record: the key of its merged reference (write/local-references.ts); null when it had none.
   * Absent when the link keeps no record (a merge made before records were kept, or the record is
   * removed): `keysOfEarlierMerges` finds it then.
   */
  localReferenceId?: string | null;
}

/**
 * Every link of `survivorId`'s chain: each person merged into it, directly or through a chain, with
 * the person it was merged into, nearest first (breadth-first), each once. Costs one Query per person
 * of the chain (the survivor and each source: a source with no links of its own answers an empty
 * Query, half a read unit). A merge never makes a cycle (a merged person cannot be a survivor), but
 * the read keeps a `seen` set anyway, and throws past `MAX_MERGED_SOURCES` rather than run on.
 */
export const mergedLinks = async (storage: Storage, survivorId: number): Promise<MergedLink[]> => {
  const seen = new Set<number>([survivorId]);
  const links: MergedLink[] = [];
  let level = [survivorId];
  while (level.length > 0) {
    const found: MergedLink[] = [];
    for (let start = 0; start < level.length; start += QUERIES_AT_ONCE)
      found.push(
        ...(
          await Promise.all(
            level.slice(start, start + QUERIES_AT_ONCE).map((id) => directSources(storage, id)),
          )
        ).flat(),
      );
    level = [];
    for (const link of found) {
      if (seen.has(link.sourceId)) continue;
      seen.add(link.sourceId);
      links.push(link);
      level.push(link.sourceId);
      if (links.length > MAX_MERGED_SOURCES)
        throw new Error(`Person ${survivorId} has more than ${MAX_MERGED_SOURCES} persons merged into it`);
    }
  }
  return links;
};

/** Every person merged into `survivorId`, directly or through a chain, nearest first (`mergedLinks`). */
export const mergedSources = async (storage: Storage, survivorId: number): Promise<number[]> =>
  (await mergedLinks(storage, survivorId)).map(({ sourceId }) => sourceId);

/**
 * What an erasure does to a link of its chain (API.md 15): the merge's record holds the source's
 * personal values (its dropped items, social values, root key) and goes; the link stays, for the
 * chain's 301s to end in the tombstone's 410. A merged person's undo is 410 then anyway.
 */
export const mergeRecordRemoval = (tableName: string, { survivorId, sourceId }: MergedLink): Action => [
  {
    Update: {
      TableName: tableName,
      Key: mergedFromKey(survivorId, sourceId),
      UpdateExpression: 'REMOVE #record',
      ConditionExpression: 'attribute_exists(sk)',
      ExpressionAttributeNames: { '#record': 'record' },
    },
  },
  { kind: 'object' },
];

/**
 * The root keys of merged persons whose links keep no record (merges made before records were kept):
 * each from the source as its merge read it, the object of its entry one version before its merged
 * item's (its MERGE entry's previous object, from which merge-record.ts rebuilds the whole record).
 * Two BatchGetItems, the merged items then those entries; none for no ids. A person not merged, or
 * whose history an erasure has rewritten, gives none.
 */
export const keysOfEarlierMerges = async (
  storage: Storage,
  sourceIds: readonly number[],
): Promise<Map<number, string>> => {
  const keys = new Map<number, string>();
  if (sourceIds.length === 0) return keys;
  const merged = await batchGet(storage, sourceIds.map(personKey));
  const entries = sourceIds.flatMap((id) => {
    const item = merged.get(keyString(personKey(id)));
    const version = (item?.CoreMetaData as { version?: number } | undefined)?.version;
    return item?.type === MERGED_PERSON_TYPE && typeof version === 'number' && version > 1
      ? [{ id, key: historyKey('Person', id, version - 1) }]
      : [];
  });
  const found = await batchGet(
    storage,
    entries.map(({ key }) => key),
  );
  for (const { id, key } of entries) {
    const before = decodeSnapshot<Partial<Person>>(
      found.get(keyString(key))?.snapshot as Uint8Array | undefined,
    );
    if (before?.local_reference_id) keys.set(id, before.local_reference_id);
  }
  return keys;
};
