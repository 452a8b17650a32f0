/**
 * What a planned write costs, priced from its actions as the code builds them: each action's item
 * sized by DynamoDB's rules (lib/db/table/item-size.ts), the items it replaces or deletes looked up in
 * what the model knows was there, and the index entries each item makes, drops or rewrites read from
 * the table definition. Nothing here knows what a create or a merge holds: person-write.ts and
 * person-merge.ts say that, so a change there changes the answer here.
 */
import { keyString } from '../db/table/batch-get';
import { tableDefinition } from '../db/table/definition';
import {
  ITEM_STORAGE_OVERHEAD_BYTES,
  itemSize,
  READ_UNIT_BYTES,
  unitsOf,
  writeUnits,
} from '../db/table/item-size';
import type { Key } from '../db/table/keys';
import type { Action } from '../db/write/actions';

export type Item = Record<string, unknown>;

/** What the model knows was stored before a write, by key string. */
export type Stored = ReadonlyMap<string, Item>;

export const storedOf = (items: readonly Item[]): Map<string, Item> =>
  new Map(items.map((item) => [keyString(item as unknown as Key), item]));

/** The items a write's Puts leave, for the model's `Stored` of the next write. */
export const itemsPut = (actions: readonly Action[]): Item[] =>
  actions.flatMap(([item]) => (item.Put?.Item ? [item.Put.Item as Item] : []));

const DEFINITION = tableDefinition('capacity-model');
const TABLE_KEYS = (DEFINITION.KeySchema ?? []).map(({ AttributeName }) => AttributeName as string);

/** Each index of the table: its name, its key attributes and what it projects (from definition.ts). */
export const INDEXES = (DEFINITION.GlobalSecondaryIndexes ?? []).map((index) => {
  const keys = (index.KeySchema ?? []).map(({ AttributeName }) => AttributeName as string);
  const projected = index.Projection?.NonKeyAttributes ?? [];
  return { name: index.IndexName as string, keys, attributes: [...keys, ...TABLE_KEYS, ...projected] };
});

export type IndexDefinition = (typeof INDEXES)[number];

/** The entry an item makes in an index, or none when it lacks the index's keys (a sparse index). */
export const indexEntryOf = (index: IndexDefinition, item: Item | undefined): Item | undefined => {
  if (!item || index.keys.some((key) => item[key] === undefined)) return undefined;
  return Object.fromEntries(index.attributes.flatMap((name) => (name in item ? [[name, item[name]]] : [])));
};

const sameEntry = (a: Item | undefined, b: Item | undefined) => JSON.stringify(a) === JSON.stringify(b);

/** A write landing on a partition: which partition (its key) and how many write units. */
export interface PartitionWrite {
  /** The partition key value (`pk`, or an index's partition key with the index's name before it). */
  partition: string;
  wcu: number;
}

/** What a set of writes costs and leaves. */
export interface WriteCost {
  /** Write units of the table's items (what the bench counts). */
  wcu: number;
  /** Read units of the transaction's ConditionChecks (a transactional read, 2 units per 4 KB). */
  rcu: number;
  /** Write units of the index entries the writes make, rewrite or drop (1 per KB of entry, each). */
  indexWcu: number;
  itemsWritten: number;
  /** Actions of the transaction (100 at most). */
  actions: number;
  /**
   * Of them, the write's own, postings aside: postings that do not fit follow in a chain, but a write
   * whose own actions pass 100 is refused (person-write.ts `composeWrite`).
   */
  ownActions: number;
  /** Bytes of the transaction's items (4 MB at most). */
  bytes: number;
  /** Bytes stored after it less before, per kind of item (with DynamoDB's 100 bytes per item and entry). */
  stored: Record<string, number>;
  /** Every partition written, table and index, with its units. */
  partitions: PartitionWrite[];
}

export const NO_WRITE: WriteCost = {
  wcu: 0,
  rcu: 0,
  indexWcu: 0,
  itemsWritten: 0,
  actions: 0,
  ownActions: 0,
  bytes: 0,
  stored: {},
  partitions: [],
};

/** Adds costs (a write and its chain, or the share of an id block). */
export const sumCosts = (...costs: WriteCost[]): WriteCost => {
  const stored: Record<string, number> = {};
  for (const cost of costs)
    for (const [kind, bytes] of Object.entries(cost.stored)) stored[kind] = (stored[kind] ?? 0) + bytes;
  return {
    wcu: costs.reduce((sum, cost) => sum + cost.wcu, 0),
    rcu: costs.reduce((sum, cost) => sum + cost.rcu, 0),
    indexWcu: costs.reduce((sum, cost) => sum + cost.indexWcu, 0),
    itemsWritten: costs.reduce((sum, cost) => sum + cost.itemsWritten, 0),
    actions: Math.max(0, ...costs.map((cost) => cost.actions)),
    ownActions: Math.max(0, ...costs.map((cost) => cost.ownActions)),
    bytes: Math.max(0, ...costs.map((cost) => cost.bytes)),
    stored,
    partitions: costs.flatMap((cost) => cost.partitions),
  };
};

/** A cost times `factor` (a share of a call made once per many requests). */
export const scaleCost = (cost: WriteCost, factor: number): WriteCost => ({
  ...cost,
  wcu: cost.wcu * factor,
  rcu: cost.rcu * factor,
  indexWcu: cost.indexWcu * factor,
  itemsWritten: cost.itemsWritten * factor,
  stored: Object.fromEntries(Object.entries(cost.stored).map(([kind, bytes]) => [kind, bytes * factor])),
  partitions: cost.partitions.map((write) => ({ ...write, wcu: write.wcu * factor })),
});

const storedBytes = (item: Item | undefined) => (item ? itemSize(item) + ITEM_STORAGE_OVERHEAD_BYTES : 0);

/**
 * The cost of writes to items, each from what was there (`before`, or nothing) to what is there after
 * (`after`, or nothing for a delete). `kindOf` names the storage kind of an item (persons, postings...).
 */
const costOfChanges = (
  changes: readonly {
    key: Key;
    before: Item | undefined;
    after: Item | undefined;
    check?: boolean;
    posting?: boolean;
  }[],
  transactional: boolean,
  kindOf: (key: Key) => string,
): WriteCost => {
  let wcu = 0;
  let rcu = 0;
  let indexWcu = 0;
  let bytes = 0;
  let itemsWritten = 0;
  const stored: Record<string, number> = {};
  const partitions: PartitionWrite[] = [];
  for (const { key, before, after, check } of changes) {
    if (check) {
      rcu += 2 * unitsOf(itemSize(before ?? (key as unknown as Item)), READ_UNIT_BYTES);
      continue;
    }
    const units = writeUnits(Math.max(itemSize(after ?? {}), itemSize(before ?? (key as unknown as Item))), {
      transactional,
    });
    wcu += units;
    bytes += itemSize(after ?? (key as unknown as Item));
    itemsWritten += 1;
    partitions.push({ partition: key.pk, wcu: units });
    const kind = kindOf(key);
    stored[kind] = (stored[kind] ?? 0) + storedBytes(after) - storedBytes(before);
    for (const index of INDEXES) {
      const old = indexEntryOf(index, before);
      const next = indexEntryOf(index, after);
      if (sameEntry(old, next)) continue;
      const [hash] = index.keys;
      // A changed key is a delete and a put; a changed projection one write.
      const moved = old && next && hash !== undefined && old[hash] !== next[hash];
      for (const entry of moved ? [old, next] : [next ?? old]) {
        if (!entry || hash === undefined) continue;
        const entryUnits = writeUnits(itemSize(entry));
        indexWcu += entryUnits;
        partitions.push({ partition: `${index.name}:${String(entry[hash])}`, wcu: entryUnits });
      }
      stored[kind] = (stored[kind] ?? 0) + storedBytes(next) - storedBytes(old);
    }
  }
  const ownActions = changes.filter(({ posting }) => !posting).length;
  return { wcu, rcu, indexWcu, itemsWritten, actions: changes.length, ownActions, bytes, stored, partitions };
};

/** The item an Update action leaves: a counter's `ADD` adds to `value`, sized as the stored count. */
const afterUpdate = (key: Key, before: Item | undefined): Item => ({
  ...(before ?? key),
  value: typeof before?.value === 'number' ? before.value : Number.MAX_SAFE_INTEGER,
});

/** What one transaction of `actions` costs, from what was stored before it. */
export const transactionCost = (
  actions: readonly Action[],
  stored: Stored,
  kindOf: (key: Key) => string,
): WriteCost =>
  costOfChanges(
    actions.map(([item, role]) => {
      const posting = role.kind === 'posting' || role.kind === 'pending';
      const key = (item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key) as Key;
      const before = stored.get(keyString(key));
      if (item.ConditionCheck) return { key, before, after: undefined, check: true, posting };
      if (item.Put) return { key, before, after: item.Put.Item as Item, posting };
      if (item.Update) return { key, before, after: afterUpdate(key, before), posting };
      return { key, before, after: undefined, posting };
    }),
    true,
    kindOf,
  );

/** A single-item write outside a transaction (an UpdateItem of a counter, say). */
export const singleWriteCost = (key: Key, after: Item, stored: Stored, kindOf: (key: Key) => string) =>
  costOfChanges([{ key, before: stored.get(keyString(key)), after }], false, kindOf);
