/**
 * What one request of each operation costs, priced from the code that runs it: a create, a PATCH, a
 * merge and enrichment are planned by the same pure builders the repository sends (person-write.ts,
 * person-merge.ts, social-address-writer.ts's actions, feed-log.ts's append) for a representative
 * person, and their items sized by DynamoDB's rules (items.ts); the reads follow keys.ts's cost models
 * with the shard counts, chunk sizes and item sizes keys.ts and the code declare. So a change to a key
 * design (another action in a create, another shard count, a longer posting) changes these numbers.
 *
 * Every figure is per request: read and write units of the table (what the bench counts), write units
 * of the indexes (which the bench does not count: it sees only calls), bytes stored, the largest
 * transaction, and the load on the busiest partition of each kind the request touches.
 */

import { marshall } from '@aws-sdk/util-dynamodb';
import { eventOfRecord } from '../db/feed/feed-appender';
import { APPEND_CHUNK, appendActions } from '../db/feed/feed-log';
import { historyActions } from '../db/history/history-actions';
import { personPut, toPersonItem } from '../db/person/person-items';
import { cheaperStep, type OtherFilterStep, shardReadUnits } from '../db/person/read/list-plan';
import { listChunk } from '../db/person/read/person-list';
import { CHECK_WORD_POSTINGS } from '../db/person/read/reconcile-candidates';
import { planMerge } from '../db/person/write/person-merge';
import {
  CREATE,
  composeWrite,
  idsToReserve,
  personWrite,
  planPersonWrite,
} from '../db/person/write/person-write';
import { postingItemsOf } from '../db/person/write/postings';
import { BATCH_GET_LIMIT } from '../db/table/batch-get';
import { itemSize, READ_UNIT_BYTES, readUnits } from '../db/table/item-size';
import {
  PERSON_LIST_INDEX as BY_NAME,
  CHANGE_LIST_INDEX,
  CHANGE_SHARDS,
  CLAIM_SORT_KEY,
  COUNTER_ITEM_BYTES,
  changeCounterKey,
  changeListPartition,
  enrichmentKey,
  FEED_EVENT_BYTES,
  FEED_MARK_PREFIX,
  feedHeadKey,
  gramOfPostingKey,
  HISTORY_SORT_KEY_PREFIX,
  idCounterKey,
  idempotencyKey,
  type Key,
  LOCAL_REFERENCE_PREFIX,
  PERSON_COUNTER_KEYS,
  PERSON_COUNTER_SHARDS,
  PERSON_LIST_PARTITIONS,
  PERSON_LIST_SHARDS,
  PERSON_PARTITION_PREFIX,
  POSTING_COUNT_ITEM_BYTES,
  personCounterKey,
  postingCountKey,
  postingPartition,
  postingsPendingKey,
} from '../db/table/keys';
import type { Action } from '../db/write/actions';
import { ID_BLOCK_SIZE } from '../db/write/ids';
import { changeEntry, NO_ORIGIN } from '../domain/change-history';
import { type EventType, FEED_SHARDS, feedEventOf, pageShares } from '../domain/feed';
import { NO_ABBREVIATIONS, PERSON_TYPE, type Person } from '../domain/person';
import { MIN_FRAGMENT } from '../domain/reconcile';
import { CreatePersonBody, PatchPersonBody } from '../domain/schemas';
import { MAX_PROBES_PER_FILTER } from '../domain/search';
import {
  INDEXES,
  type Item,
  itemsPut,
  type Stored,
  scaleCost,
  singleWriteCost,
  storedOf,
  sumCosts,
  transactionCost,
  type WriteCost,
} from './items';

/** The person a profile is made of: what one typical create sends (a name and an email). */
export interface PersonShape {
  first_name: string;
  last_name: string;
  email: string;
  /** A client's own key (API.md 4), if its persons carry one. */
  local_reference_id?: string;
}

/** A person as `npm run bench` creates one (overhead.ts: one name, one email of about 40 characters). */
export const BENCH_PERSON: PersonShape = {
  first_name: 'Bench',
  last_name: 'Create handler-mh3k2j1x-123',
  email: 'handler-mh3k2j1x-123@bench.example.org',
};

/**
 * The key design's spreads, from keys.ts and feed.ts: how many partitions each hashed kind is spread
 * over. A parameter so a test (and a what-if) can ask what another design would bear.
 */
export interface Design {
  listShards: number;
  personCounterShards: number;
  changeShards: number;
  feedShards: number;
}

export const DESIGN: Design = {
  listShards: PERSON_LIST_SHARDS,
  personCounterShards: PERSON_COUNTER_SHARDS,
  changeShards: CHANGE_SHARDS.Person,
  feedShards: FEED_SHARDS,
};

/** Where the table's capacity goes in storage. */
export const STORAGE_KINDS = ['persons', 'postings', 'history', 'feed', 'claims', 'other'] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

/** The kinds of partition that many requests share, and which limit each meets. */
export interface HotLoad {
  /** What the partition is (`byName index partition`, `posting partition GRAM#ex`...). */
  partition: string;
  /** Units on the busiest partition of that kind per request (already divided by its spread). */
  wcu: number;
  rcu: number;
}

export interface OperationCost {
  calls: number;
  /** Table read units (as the bench counts them). */
  rcu: number;
  /** Table write units (as the bench counts them). */
  wcu: number;
  /** Index write units: each item that makes, moves or rewrites an index entry. */
  indexWcu: number;
  itemsWritten: number;
  /** The largest transaction's actions (DynamoDB takes 100) and bytes (4 MB). */
  actions: number;
  /** Its own actions, postings aside: what must fit in 100 (the postings chain past them). */
  ownActions: number;
  transactionBytes: number;
  /** Bytes stored after the request less before (items and index entries, 100 bytes of overhead each). */
  stored: Partial<Record<StorageKind, number>>;
  hot: HotLoad[];
  /** ChangeHistory entries the request makes: each is a feed event to append, and put on the bus. */
  changes: number;
  /** The same entries by the type of their event (`person.created`...), as the feed's appender reads them. */
  events: Partial<Record<EventType, number>>;
  /** Postings it stores or deletes: each is a stream record the posting counts take. */
  postingRecords: number;
}

const TABLE = 'capacity-model';
const NOW = '2026-01-01T00:00:00.000Z';
/** Requester of the model's writes: another person, so a create checks it as the code does. */
const REQUESTER_OFFSET = 1;

const stem = (pk: string) => pk.replace(/\d+$/, '');
const POSTING_STEM = postingPartition('', 0).replace(/#0$/, '');
const STEMS = {
  personCounter: stem(personCounterKey(0).pk),
  changeCounter: stem(changeCounterKey('Person', 0).pk),
  feed: stem(feedHeadKey(0).pk),
  idCounter: idCounterKey.pk,
  byName: `${BY_NAME}:${stem(PERSON_LIST_PARTITIONS[0] as string)}`,
  byChange: `${CHANGE_LIST_INDEX}:${stem(changeListPartition('Person', 0))}`,
  postingCount: stem(postingCountKey('abc').pk).replace(/ab$/, ''),
};

/**
 * The kind of a partition written, and how many partitions that kind spreads over (a hash of the id
 * or of the object): null for a partition of its own (a person, a claim, a mark), never shared.
 */
const partitionKind = (partition: string, design: Design): { kind: string; spread: number } | null => {
  if (partition.startsWith(STEMS.byName))
    return { kind: 'byName index partition', spread: design.listShards };
  if (partition.startsWith(STEMS.byChange))
    return { kind: 'byChange index partition', spread: design.changeShards };
  if (partition === STEMS.idCounter) return { kind: `id counter (${idCounterKey.pk})`, spread: 1 };
  if (partition.startsWith(STEMS.personCounter))
    return { kind: 'person counter shard', spread: design.personCounterShards };
  if (partition.startsWith(STEMS.changeCounter))
    return { kind: 'change counter shard', spread: design.changeShards };
  if (partition.startsWith(POSTING_STEM)) {
    const prefix = partition.slice(POSTING_STEM.length).replace(/#\d+$/, '');
    return { kind: `posting partition ${POSTING_STEM}${prefix}`, spread: design.listShards };
  }
  if (partition.startsWith(STEMS.postingCount) && partition !== STEMS.postingCount)
    return { kind: `posting count partition ${partition}`, spread: 1 };
  if (partition.startsWith(STEMS.feed)) return { kind: 'feed log shard', spread: design.feedShards };
  return null;
};

/**
 * The busiest partition of each kind a write touches, per request: its units spread over the kind's
 * partitions. Of the posting partitions only the busiest prefix is kept: `commonShare` of persons
 * hold it (1 for every person, as `ex` of `example.org` would be).
 */
export const hotWrites = (cost: WriteCost, design: Design, commonShare = 1): HotLoad[] => {
  const byKind = new Map<string, number>();
  for (const { partition, wcu } of cost.partitions) {
    const kind = partitionKind(partition, design);
    if (kind) byKind.set(kind.kind, (byKind.get(kind.kind) ?? 0) + wcu / kind.spread);
  }
  const postings = [...byKind].filter(([kind]) => kind.startsWith('posting partition'));
  const busiest = postings.sort((a, b) => b[1] - a[1])[0];
  return [
    ...[...byKind]
      .filter(([kind]) => !kind.startsWith('posting partition'))
      .map(([partition, wcu]) => ({ partition, wcu, rcu: 0 })),
    ...(busiest ? [{ partition: busiest[0], wcu: busiest[1] * commonShare, rcu: 0 }] : []),
  ];
};

const kindOf = (key: Key): StorageKind => {
  if (gramOfPostingKey(key) || key.sk === postingsPendingKey(0).sk) return 'postings';
  if (key.sk.startsWith(HISTORY_SORT_KEY_PREFIX)) return 'history';
  if (key.sk === CLAIM_SORT_KEY) return 'claims';
  if (key.pk.startsWith(STEMS.feed) || key.pk.startsWith(FEED_MARK_PREFIX)) return 'feed';
  if (key.pk.startsWith(PERSON_PARTITION_PREFIX) || key.pk.startsWith(LOCAL_REFERENCE_PREFIX))
    return 'persons';
  return 'other';
};

const bodyOf = ({ first_name, last_name, email, local_reference_id }: PersonShape) =>
  CreatePersonBody.parse({
    Names: { '@set': [{ first_name, last_name }] },
    Emails: { '@set': [{ email }] },
    ...(local_reference_id ? { local_reference_id } : {}),
  });

const idsFrom = (first: number) => {
  let next = first;
  return () => next++;
};

/** A person created by the code's own plan, with the items its create puts. */
interface Created {
  person: Person;
  actions: Action[];
  items: Item[];
  reservedIds: number;
}

/** Plans the create of `shape` as person `id` (ids as large as the population's), as the repository does. */
const createOf = (shape: PersonShape, id: number): Created => {
  const body = bodyOf(shape);
  const plan = planPersonWrite({
    tableName: TABLE,
    start: CREATE,
    body,
    requester: id + REQUESTER_OFFSET,
    now: NOW,
    nextId: idsFrom(id),
    changeId: id * 10,
    abbreviations: NO_ABBREVIATIONS,
  });
  const write = personWrite(TABLE, plan, 'capacity-model');
  const actions = [
    ...(write.prelude ? transactionActions(write.prelude) : []),
    ...transactionActions(write.write),
    ...write.chain.flatMap(transactionActions),
  ];
  const reservedIds = idsToReserve('create', body);
  return { person: plan.patched.person, actions, items: itemsPut(actions), reservedIds };
};

/** A transaction's actions back as the model prices them (the roles do not change the price). */
const transactionActions = (transaction: ReturnType<typeof personWrite>['write']): Action[] =>
  (transaction.input.TransactItems ?? []).map((item, index) => [
    item,
    transaction.roles[index] ?? { kind: 'object' },
  ]);

/** Each transaction of a planned write priced, with the id block's share (one UpdateItem per 50 ids). */
const writeOf = (
  transactions: readonly (readonly Action[])[],
  stored: Stored,
  reservedIds: number,
): WriteCost => {
  const block = singleWriteCost(
    idCounterKey,
    { ...idCounterKey, value: Number.MAX_SAFE_INTEGER },
    stored,
    kindOf,
  );
  return sumCosts(
    ...transactions.map((actions) => transactionCost(actions, stored, kindOf)),
    scaleCost(block, reservedIds / ID_BLOCK_SIZE),
  );
};

const writeTransactions = (write: ReturnType<typeof personWrite>) => [
  ...(write.prelude ? [transactionActions(write.prelude)] : []),
  transactionActions(write.write),
  ...write.chain.map(transactionActions),
];

const consistentRead = (item: Item | undefined) => readUnits(item ? itemSize(item) : 0, { consistent: true });
const eventualRead = (item: Item | undefined) => readUnits(item ? itemSize(item) : 0);

const postingsOfWrite = (cost: WriteCost) =>
  cost.partitions.filter(({ partition }) => partition.startsWith(POSTING_STEM)).length;

/**
 * The events of a write's ChangeHistory entries, by type: each entry as the table's stream hands it to
 * the feed's appender (an INSERT of the item the write puts), read by the appender's own
 * `eventOfRecord` (so a merge's source is `person.merged`, as the appender says).
 */
const eventsOfWrite = (actions: readonly (readonly Action[])[]): Partial<Record<EventType, number>> => {
  const events: Partial<Record<EventType, number>> = {};
  for (const [item, role] of actions.flat()) {
    if (role.kind !== 'history' || !item.Put?.Item) continue;
    const NewImage = marshall(item.Put.Item, { removeUndefinedValues: true }) as never;
    const { type } = eventOfRecord({ eventName: 'INSERT', dynamodb: { NewImage } });
    events[type] = (events[type] ?? 0) + 1;
  }
  return events;
};

const countOf = (events: Partial<Record<EventType, number>>) =>
  Object.values(events).reduce((sum, count) => sum + count, 0);

const asOperation = (
  cost: WriteCost,
  {
    calls,
    rcu,
    design,
    commonShare,
    events,
  }: {
    calls: number;
    rcu: number;
    design: Design;
    commonShare: number;
    events: Partial<Record<EventType, number>>;
  },
): OperationCost => ({
  calls,
  rcu: rcu + cost.rcu,
  wcu: cost.wcu,
  indexWcu: cost.indexWcu,
  itemsWritten: cost.itemsWritten,
  actions: cost.actions,
  ownActions: cost.ownActions,
  transactionBytes: cost.bytes,
  stored: cost.stored as Partial<Record<StorageKind, number>>,
  hot: hotWrites(cost, design, commonShare),
  changes: countOf(events),
  events,
  postingRecords: postingsOfWrite(cost),
});

const READ_ONLY: Omit<OperationCost, 'calls' | 'rcu' | 'hot'> = {
  wcu: 0,
  indexWcu: 0,
  itemsWritten: 0,
  actions: 0,
  ownActions: 0,
  transactionBytes: 0,
  stored: {},
  changes: 0,
  events: {},
  postingRecords: 0,
};

/** What a filtered list's model may know beyond its rarest gram's share and its fragment's length. */
export interface FilteredList {
  /** The rarest gram's postings in each shard, where they are known (the bench's seeded data). */
  shardPostings?: readonly number[];
  /** Its postings holding the fragment, the candidates the other fragments are checked on. */
  candidates?: number;
  /**
   * The list's other fragments: their code points, the share of candidates holding each, and where
   * known the postings of its rarest probe (in each shard, where known too), which list-plan.ts weighs
   * against checking the candidates. Without them a fragment is checked, as without counts.
   */
  others?: readonly {
    length: number;
    holding: number;
    postings?: number;
    shardPostings?: readonly number[];
    /** Its rarest probe's postings' average size, where known (else the rarest gram's). */
    postingBytes?: number;
  }[];
  /** Every other fragment applied this way, not the cheaper (the bench prices both plans). */
  step?: OtherFilterStep;
}

/** What the model needs to know of a population and its persons. */
export interface Population {
  persons: number;
  person: PersonShape;
  design?: Design;
  /** Share of persons holding the representative's busiest posting prefix (1: every person). */
  commonPrefixShare?: number;
  /**
   * The bytes of the items the reads go through, where they are known (the bench's seeded persons),
   * instead of the representative's: a `byName` index entry, and a posting of the gram a filtered list
   * reads. The cost functions are then what is tested, not the sample.
   */
  itemBytes?: { listEntry?: number; posting?: number };
}

/**
 * The cost model of every operation for a population: built once (the plans are run once), then asked
 * per operation. The representative person is numbered like the population's last, so ids, keys and
 * counts have the digits they will have.
 */
export const costModel = ({
  persons,
  person: shape,
  design = DESIGN,
  commonPrefixShare = 1,
  itemBytes = {},
}: Population) => {
  const id = Math.max(2, persons);
  const requesterId = id + REQUESTER_OFFSET;
  const created = createOf(shape, id);
  const requester = createOf({ ...shape, email: `requester-${shape.email}` }, requesterId);
  const person = created.person;
  const personItem: Item = toPersonItem(person);
  const common = { design, commonShare: commonPrefixShare };
  /** What is stored once the population is there: the representative, its requester, the counters. */
  const counters = [
    idCounterKey,
    ...PERSON_COUNTER_KEYS,
    ...Array.from({ length: CHANGE_SHARDS.Person }, (_, shard) => changeCounterKey('Person', shard)),
  ].map((key) => ({ ...key, value: Number.MAX_SAFE_INTEGER }));
  const before = storedOf([...counters, ...requester.items]);
  const afterCreate = storedOf([...counters, ...requester.items, ...created.items]);
  const listEntry = INDEXES.find((index) => index.name === BY_NAME);
  const entryBytes =
    itemBytes.listEntry ??
    (listEntry
      ? itemSize(
          Object.fromEntries(
            listEntry.attributes.flatMap((name) => (name in personItem ? [[name, personItem[name]]] : [])),
          ),
        )
      : 0);
  const postingBytes =
    itemBytes.posting ??
    postingItemsOf(person).reduce((sum, posting) => sum + itemSize(posting as unknown as Item), 0) /
      Math.max(1, postingItemsOf(person).length);
  const historyItem = created.items.find((item) => kindOf(item as unknown as Key) === 'history');

  const create = (): OperationCost => {
    const transactions = [created.actions];
    const cost = writeOf(transactions, before, created.reservedIds);
    return asOperation(cost, {
      calls: 1 + created.reservedIds / ID_BLOCK_SIZE,
      rcu: 0,
      ...common,
      events: eventsOfWrite(transactions),
    });
  };

  /** The bench's PATCH: one more email, by another person. */
  const patch = (): OperationCost => {
    const [local, domain] = shape.email.split('@');
    const body = PatchPersonBody.parse({ Emails: { '@set': [{ email: `${local}-2@${domain}` }] } });
    const plan = planPersonWrite({
      tableName: TABLE,
      start: { kind: 'update', stored: person, pending: null },
      body,
      requester: requesterId,
      now: NOW,
      nextId: idsFrom(id * 10 + 1),
      changeId: id * 10 + 2,
      abbreviations: NO_ABBREVIATIONS,
    });
    const transactions = writeTransactions(personWrite(TABLE, plan, 'capacity-model'));
    const reserved = idsToReserve('update', body);
    const cost = writeOf(transactions, afterCreate, reserved);
    // One consistent BatchGetItem: the person, its POSTINGS item (none) and the requester.
    const read = consistentRead(personItem) + consistentRead(undefined) + consistentRead(personItem);
    return asOperation(cost, {
      calls: 1 + transactions.length + reserved / ID_BLOCK_SIZE,
      rcu: read,
      ...common,
      events: eventsOfWrite(transactions),
    });
  };

  const get = (): OperationCost => ({
    ...READ_ONLY,
    calls: 1,
    rcu: consistentRead(personItem),
    hot: [],
  });

  /**
   * An unfiltered page of `limit` at offset 0 (keys.ts): the counters in one BatchGetItem, then each of
   * the P partitions read a chunk at a time. A partition holding more of the window than a chunk is
   * asked again: X ~ Binomial(limit, 1 / shards) of the window are in a partition, and it is read in
   * ceil((X + 1) / chunk) Queries (the one more tells the merge where the partition goes on).
   */
  const list = (limit = 50): OperationCost => {
    const counters = PERSON_COUNTER_KEYS.length * readUnits(COUNTER_ITEM_BYTES);
    const chunk = listChunk(limit);
    const p = 1 / design.listShards;
    let queriesPerShard = 0;
    let choose = 1;
    for (let x = 0; x <= limit; x++) {
      if (x > 0) choose = (choose * (limit - x + 1)) / x;
      const probability = choose * p ** x * (1 - p) ** (limit - x);
      queriesPerShard += probability * Math.max(1, Math.ceil((Math.min(x, persons) + 1) / chunk));
    }
    const partitions = PERSON_LIST_PARTITIONS.length - PERSON_LIST_SHARDS + design.listShards;
    const queries = design.listShards * queriesPerShard + (partitions - design.listShards);
    const rcu = counters + queries * readUnits(chunk * entryBytes);
    return {
      ...READ_ONLY,
      calls: 1 + queries,
      rcu,
      hot: [
        { partition: 'person counter shard', wcu: 0, rcu: readUnits(COUNTER_ITEM_BYTES) },
        { partition: 'byName index partition', wcu: 0, rcu: queriesPerShard * readUnits(chunk * entryBytes) },
      ],
    };
  };

  /**
   * A filtered list whose rarest gram `share` of persons hold, in a fragment of `length` code points
   * (keys.ts, "a filter of 2 or more code points"; posting-search.ts's rounds):
   * 1. when the list has more than one probe, their postings as counted: one BatchGetItem of the
   *    grams' counts and the mark, and a Query of the counts' partition per prefix probe (a fragment
   *    of 2 code points), taken at its minimum;
   * 2. the rarest gram's postings read whole, one Query per shard (5 000 a page), each shard's Query
   *    charged on its own postings: `shardPostings` where they are known (the bench's seeded data),
   *    else the expected rounding of a binomial split;
   * 3. each other fragment applied the cheaper way for the candidates left (list-plan.ts, as the list
   *    decides): its rarest probe's postings read whole as in 2, or each candidate checked
   *    (BatchGetItems of 100) on a posting of its first gram, or the person for a fragment under 3
   *    code points. The candidates are the rarest gram's postings holding the fragment (`candidates`;
   *    all of them unless known), and `holding` of those left hold each other fragment.
   * A rarest fragment of one code point (so every fragment one) reads the whole `byName` index.
   */
  const listFiltered = (
    share: number,
    length: number,
    name = 'the fragment',
    { shardPostings, candidates = share * persons, others = [], step }: FilteredList = {},
  ): OperationCost => {
    if (length <= 1) {
      const rcu = readUnits(persons * entryBytes);
      return {
        ...READ_ONLY,
        calls: Math.max(PERSON_LIST_PARTITIONS.length, Math.ceil((persons * entryBytes) / (1024 * 1024))),
        rcu,
        hot: [
          {
            partition: `byName index partition (read whole by ${name})`,
            wcu: 0,
            rcu: rcu / design.listShards,
          },
        ],
      };
    }
    // A fragment's probes: up to 8 of its grams (3 code points or more), or its prefix (2).
    const fragments = [length, ...others.map((other) => other.length)];
    const grams = fragments.reduce(
      (sum, points) => sum + Math.min(MAX_PROBES_PER_FILTER, Math.max(0, points - 2)),
      0,
    );
    const prefixes = fragments.filter((points) => points === 2).length;
    const counted = grams + prefixes > 1;
    const counts = counted ? (grams + 1) * readUnits(POSTING_COUNT_ITEM_BYTES) + prefixes * readUnits(0) : 0;
    const countCalls = counted ? Math.ceil((grams + 1) / BATCH_GET_LIMIT) + prefixes : 0;

    /** A probe's postings read whole: their units, Queries and the busiest shard's units. */
    const probeRead = (postings: number, shards?: readonly number[], bytes = postingBytes) => {
      const shardQueries = (shardPostings: number) => shardReadUnits(shardPostings, bytes);
      if (shards) {
        const queries = shards.map(shardQueries);
        return {
          rcu: queries.reduce((sum, query) => sum + query.rcu, 0),
          calls: queries.reduce((sum, query) => sum + query.pages, 0),
          busiest: Math.max(0, ...queries.map((query) => query.rcu)),
        };
      }
      // The expected rounding of a shard's share, not the rounding of an even split (which the bench
      // found up to 12% too high at 10 000).
      const even = shardQueries(postings / design.listShards);
      const rcu =
        even.pages === 1
          ? design.listShards * 0.5 * expectedUnits(postings, 1 / design.listShards, bytes / READ_UNIT_BYTES)
          : design.listShards * even.rcu;
      return { rcu, calls: design.listShards * even.pages, busiest: rcu / design.listShards };
    };
    const postings = probeRead(share * persons, shardPostings);

    let left = candidates;
    let rcu = counts + postings.rcu;
    let calls = countCalls + postings.calls;
    const hot = [{ partition: `posting partition of ${name}`, wcu: 0, rcu: postings.busiest }];
    // Fewest postings first, as the list takes them (posting-search.ts `otherFilters`).
    const unsized = Number.MAX_SAFE_INTEGER;
    const ordered = [...others].sort((a, b) => (a.postings ?? unsized) - (b.postings ?? unsized));
    for (const other of ordered) {
      if (left <= 0) break;
      if ((step ?? cheaperStep(left, other.postings)) === 'intersect' && other.postings !== undefined) {
        const read = probeRead(other.postings, other.shardPostings, other.postingBytes);
        rcu += read.rcu;
        calls += read.calls;
        hot.push({
          partition: `posting partition of another fragment of ${name}`,
          wcu: 0,
          rcu: read.busiest,
        });
      } else {
        rcu += left * readUnits(other.length >= 3 ? postingBytes : itemSize(personItem));
        calls += Math.ceil(left / BATCH_GET_LIMIT);
      }
      left *= other.holding;
    }
    return { ...READ_ONLY, calls, rcu, hot };
  };

  /**
   * A reconciliation query of a name someone holds exactly and an email (keys.ts, "What one
   * reconciliation query costs"): the email claim, the name's postings as a filtered list of the
   * folded name reads them, and the persons scored (the best 25 and the namesakes, 100 at most).
   */
  const reconcile = (share: number): OperationCost => {
    const name = listFiltered(
      share,
      Array.from(`${shape.first_name} ${shape.last_name}`).length,
      'a name reconciled',
    );
    const scored = Math.min(100, 25 + share * persons);
    return {
      ...name,
      calls: name.calls + 2,
      rcu: readUnits(0) + name.rcu + scored * eventualRead(personItem),
    };
  };

  /**
   * One check of the duplicates detector (lib/duplicates/detect-duplicates.ts): a reconciliation query
   * of the person and, since most persons' exact name no one else holds, the words of its name
   * (lib/db/person/read/reconcile-candidates.ts, `gather` and `uncommon`), its first and last name
   * where they have 3 code points or more:
   * 1. one BatchGetItem of the words' grams' counts and the mark, to leave out a word held by more than
   *    `CHECK_WORD_POSTINGS`. A round of its own, not the counts round of the words' filtered lists:
   *    each word's search then reads its own counts again (posting-search.ts), priced in 2;
   * 2. each word a filtered list of its rarest gram at that bound (a share `CHECK_WORD_POSTINGS` of the
   *    persons): the most a word looked up reads; a word held by more is not looked up.
   * Not priced: the halves a word finding no one but the person then looks up, under the same bound
   * (a misspelt name, its own postings few); and the words' partitions as hot ones. A word's rarest
   * gram is held by `CHECK_WORD_POSTINGS` persons at most, so only their checks read its partition,
   * not every check of the profile as the representative person's would (2 000 checks a second of one
   * such word would check each of its holders twice a second).
   */
  const duplicateCheck = (share: number): OperationCost => {
    const query = reconcile(share);
    const wordShare = Math.min(1, CHECK_WORD_POSTINGS / persons);
    const words = [shape.first_name, shape.last_name]
      .map((word) => Array.from(word).length)
      .filter((points) => points >= MIN_FRAGMENT);
    const lists = words.map((points) => listFiltered(wordShare, points, 'a word of the name checked'));
    // The mark and each word's probes (up to `MAX_PROBES_PER_FILTER` of its grams).
    const probes = 1 + words.reduce((sum, points) => sum + Math.min(MAX_PROBES_PER_FILTER, points - 2), 0);
    const counts =
      words.length > 0
        ? { calls: Math.ceil(probes / BATCH_GET_LIMIT), rcu: probes * readUnits(POSTING_COUNT_ITEM_BYTES) }
        : { calls: 0, rcu: 0 };
    return {
      ...query,
      calls: lists.reduce((sum, list) => sum + list.calls, query.calls + counts.calls),
      rcu: lists.reduce((sum, list) => sum + list.rcu, query.rcu + counts.rcu),
    };
  };

  /**
   * Merging two persons of the profile (the source's postings deleted, its emails re-pointed): the
   * consistent read of both persons, their `POSTINGS` and principal items and the requester, then the
   * write composed as the repository composes it.
   */
  const merge = (): OperationCost => {
    const sourceId = id + 2;
    const [local, domain] = shape.email.split('@');
    const source = createOf({ ...shape, email: `${local}-other@${domain}` }, sourceId);
    const stored = storedOf([...counters, ...requester.items, ...created.items, ...source.items]);
    const plan = planMerge({
      tableName: TABLE,
      survivor: { person, pending: null, principal: null },
      source: { person: source.person, pending: null, principal: null },
      requester: requesterId,
      now: NOW,
      changeIds: { survivor: id * 10 + 5, source: id * 10 + 6 },
    });
    const transactions = writeTransactions(composeWrite(TABLE, plan.parts, 'capacity-model'));
    const cost = writeOf(transactions, stored, 2);
    const read =
      2 * consistentRead(personItem) +
      2 * consistentRead(undefined) +
      2 * consistentRead(undefined) +
      consistentRead(personItem);
    return asOperation(cost, {
      calls: 1 + transactions.length + 2 / ID_BLOCK_SIZE,
      rcu: read,
      ...common,
      events: eventsOfWrite(transactions),
    });
  };

  /**
   * One object's ChangeHistory, `limit` entries (keys.ts): a consistent GetItem of the object and one
   * consistent Query of limit + 1 entries of the size a create's entry has.
   */
  const history = (limit = 20): OperationCost => ({
    ...READ_ONLY,
    calls: 2,
    rcu:
      consistentRead(personItem) + readUnits((limit + 1) * itemSize(historyItem ?? {}), { consistent: true }),
    hot: [],
  });

  /** Enrichment of one created person (social-address-writer.ts): its two items read, then its write. */
  const enrich = (): OperationCost => {
    const next = {
      ...person,
      CoreMetaData: { ...person.CoreMetaData, version: person.CoreMetaData.version + 1 },
    };
    const entry = changeEntry(PERSON_TYPE, next, {
      id: id * 10 + 3,
      action: 'enrich',
      requester: null,
      at: NOW,
      changed: ['/SocialAddresses'],
      origin: { ...NO_ORIGIN, caller: 'enrichment' },
    });
    const actions: Action[] = [
      personPut(TABLE, next, person.CoreMetaData.version),
      ...historyActions(TABLE, entry, next),
      [
        {
          Put: {
            TableName: TABLE,
            Item: { ...enrichmentKey(id), type: 'EnrichmentMark', at: NOW, filled: ['linkedin'] },
          },
        },
        { kind: 'mark' },
      ],
    ];
    const cost = writeOf([actions], afterCreate, 1);
    return asOperation(cost, {
      calls: 2 + 1 / ID_BLOCK_SIZE,
      rcu: consistentRead(personItem),
      ...common,
      events: eventsOfWrite([actions]),
    });
  };

  /**
   * Appending one change to the feed when the stream's batch holds `perShard` events of its shard
   * (keys.ts: one BatchGetItem of their marks and the head, one transaction of 2k + 1 actions), per event.
   */
  const feedAppend = (perShard: number): OperationCost => {
    const k = Math.max(1, Math.min(APPEND_CHUNK, Math.round(perShard)));
    const entry = changeEntry(PERSON_TYPE, person, {
      id: id * 10,
      action: 'create',
      requester: requesterId,
      at: NOW,
      changed: [],
    });
    const events = Array.from({ length: k }, (_, index) => ({ ...feedEventOf(entry), id: entry.id + index }));
    const head = { ...feedHeadKey(0), type: 'FeedHead', seq: Number.MAX_SAFE_INTEGER };
    const actions = appendActions(TABLE, 0, Number.MAX_SAFE_INTEGER - k, events);
    const cost = scaleCost(transactionCost(actions, storedOf([head]), kindOf), 1 / k);
    const read = ((k + 1) * readUnits(itemSize(head))) / k;
    // 2k + 1 actions, k at most APPEND_CHUNK: the feed cuts its appends to fit, whatever the load.
    return {
      ...asOperation(cost, { calls: 2 / k, rcu: read, ...common, events: {} }),
      actions: 2 * k + 1,
      ownActions: 0,
    };
  };

  /**
   * A page of the feed read by a consumer that finds `pending` events waiting, `limit` at most (keys.ts):
   * the heads (eventually consistent), then one Query per shard with events, for its share.
   */
  const feedPage = (pending: number, limit = 100): OperationCost => {
    const perShard = Array.from({ length: design.feedShards }, () => pending / design.feedShards);
    const shares = pageShares(perShard.map(Math.round), limit);
    return {
      ...READ_ONLY,
      calls: 1 + shares.filter((share) => share > 0).length,
      rcu: feedPageRcu(shares, design.feedShards),
      hot: [{ partition: 'feed log shard', wcu: 0, rcu: feedPageRcu([Math.max(...shares, 0)], 1) }],
    };
  };

  /**
   * One posting stored or deleted, as the posting counts take it (posting-counts.ts): an UpdateItem ADD
   * per gram a batch changed; worst case, every record its own (one create a batch).
   */
  const countPosting = (): OperationCost => {
    const [first] = postingItemsOf(person);
    const key = postingCountKey(gramOfPostingKey(first as Key) ?? 'abc');
    const cost = singleWriteCost(key, { ...key, postings: Number.MAX_SAFE_INTEGER }, new Map(), kindOf);
    // The busiest count partition's load is the batches' (model.ts), not one write per record.
    return { ...asOperation(cost, { calls: 1, rcu: 0, ...common, events: {} }), hot: [] };
  };

  /**
   * One line of `npm run import`: a create sent with an Idempotency-Key, so Powertools writes its
   * record in progress and then completed with the answer (README "Performance": 2 calls, 4 units).
   */
  const importLine = (): OperationCost => {
    const record = {
      ...idempotencyKey('x'.repeat(44)),
      status: 'INPROGRESS',
      expiration: 1_800_000_000,
      in_progress_expiration: 1_800_000_000_000,
      validation: 'x'.repeat(44),
    };
    const done = { ...record, status: 'COMPLETED', data: JSON.stringify(person) };
    const put = singleWriteCost(record as unknown as Key, record, new Map(), kindOf);
    const update = singleWriteCost(record as unknown as Key, done, storedOf([record]), kindOf);
    const line = create();
    return {
      ...line,
      calls: line.calls + 2,
      wcu: line.wcu + put.wcu + update.wcu,
      stored: {
        ...line.stored,
        other: (line.stored.other ?? 0) + (update.stored.other ?? 0) + (put.stored.other ?? 0),
      },
    };
  };

  return {
    person,
    sizes: {
      person: itemSize(personItem),
      listEntry: entryBytes,
      posting: postingBytes,
      postings: postingItemsOf(person).length,
      /** The representative's postings in its busiest prefix (one posting count partition takes them). */
      busiestPrefixPostings: busiestPrefix(person),
      history: itemSize(historyItem ?? {}),
    },
    create,
    patch,
    get,
    list,
    listFiltered,
    reconcile,
    duplicateCheck,
    merge,
    history,
    enrich,
    feedAppend,
    feedPage,
    countPosting,
    importLine,
  };
};

export type CostModel = ReturnType<typeof costModel>;

/** The standard normal distribution function (Abramowitz and Stegun 7.1.26, error under 1.5e-7). */
const normal = (z: number) => {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    t *
      (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) *
      Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
};

/**
 * The expected read units (strongly consistent; halve for eventual) of one Query of a shard holding
 * X ~ Binomial(`n`, `p`) items of `unitsPerItem` units each: E[max(1, ceil(X · unitsPerItem))] =
 * 1 + Σ_k P(X · unitsPerItem > k), X taken as normal (with the continuity correction). An empty Query
 * costs the minimum, as any read does.
 */
export const expectedUnits = (n: number, p: number, unitsPerItem: number) => {
  const mean = n * p;
  const sd = Math.sqrt(n * p * (1 - p));
  if (sd < 1e-9 || unitsPerItem <= 0) return Math.max(1, Math.ceil(mean * unitsPerItem));
  let units = 1;
  const last = Math.ceil((mean + 8 * sd) * unitsPerItem) + 1;
  for (let k = 1; k <= last; k++) {
    // X · unitsPerItem > k  ⇔  X ≥ floor(k / unitsPerItem) + 1.
    const atLeast = Math.floor(k / unitsPerItem) + 1;
    units += 1 - normal((atLeast - 0.5 - mean) / sd);
  }
  return units;
};

/** How many of a person's postings share its busiest prefix (one posting count partition each). */
const busiestPrefix = (person: Person) => {
  const byPrefix = new Map<string, number>();
  for (const posting of postingItemsOf(person)) {
    const prefix = Array.from(gramOfPostingKey(posting) ?? '')
      .slice(0, 2)
      .join('');
    byPrefix.set(prefix, (byPrefix.get(prefix) ?? 0) + 1);
  }
  return Math.max(0, ...byPrefix.values());
};

/**
 * The read units of a feed page whose Queries asked for `shares` events each (keys.ts, "The change
 * feed"): the heads in one eventually consistent BatchGetItem, and each Query's share of events of at
 * most `FEED_EVENT_BYTES`, rounded up to the half unit it is charged. test/bench/feed-model.ts checks
 * the bench's measured pages against it.
 */
export const feedPageRcu = (shares: readonly number[], heads = FEED_SHARDS) =>
  heads * readUnits(0) +
  shares.filter((share) => share > 0).reduce((sum, share) => sum + readUnits(share * FEED_EVENT_BYTES), 0);
