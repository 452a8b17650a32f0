/**
 * The list of persons (see the cost notes in keys.ts): unfiltered, the partitions of the `byName`
 * index merged by sort key; by `local_reference_id`, that value's reference items, the other filters
 * checked on them (local-reference-search.ts); otherwise filtered, the search postings
 * (posting-search.ts), or, when every fragment is one code point and no posting narrows the list, the
 * `byName` index read whole. The window of stubs, the count, and what it cost, logged for operators
 * and benchmarks; the items read are a metric too (ItemsReadPerList).
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { PersonFilters, PersonSummary, Window } from '../../../domain/listing';
import type { PersonList, PersonListResult } from '../../../domain/ports/lists';
import { planQuery } from '../../../domain/search';
import { logger as defaultLogger } from '../../../logger';
import { addMetric } from '../../../metrics';
import { type BatchGetOptions, batchGet } from '../../table/batch-get';
import type { Storage } from '../../table/client';
import {
  PERSON_COUNTER_KEYS,
  PERSON_LIST_INDEX,
  PERSON_LIST_PARTITIONS,
  PERSON_LIST_SHARDS,
} from '../../table/keys';
import { storageCall } from '../../table/storage-errors';
import { compareSortKeys, costRecorder, MAX_QUERY_LIMIT, type RecordCost, sortBySortKey } from './list-reads';
import { searchLocalReference } from './local-reference-search';
import { searchPostings } from './posting-search';

/** The index attributes each filter matches against (person-items.ts writes them). */
const FILTER_ATTRIBUTES: Record<keyof PersonFilters, string[]> = {
  first_name: ['search_first_name'],
  last_name: ['search_last_name'],
  email: ['search_email'],
  search: ['search_rest', 'search_first_name', 'search_last_name', 'search_email'],
};

const filterCondition = (key: keyof PersonFilters) =>
  `(${FILTER_ATTRIBUTES[key].map((attribute) => `contains(${attribute}, :${key})`).join(' OR ')})`;

/** The Query input of one partition of the list: in the asked direction, filters as `contains`. */
export const buildListQuery = (
  tableName: string,
  partition: string,
  filters: PersonFilters,
  descending: boolean,
): QueryCommandInput => {
  const active = Object.entries(filters).filter(([, value]) => value) as [keyof PersonFilters, string][];
  return {
    TableName: tableName,
    IndexName: PERSON_LIST_INDEX,
    KeyConditionExpression: 'listPk = :partition',
    ProjectionExpression: 'id, fullname, listSk',
    ScanIndexForward: !descending,
    ReturnConsumedCapacity: 'TOTAL',
    ...(active.length > 0
      ? {
          FilterExpression: active.map(([key]) => filterCondition(key)).join(' AND '),
        }
      : {}),
    ExpressionAttributeValues: {
      ':partition': partition,
      ...Object.fromEntries(active.map(([key, value]) => [`:${key}`, value])),
    },
  };
};

/** The number of persons: the sum of the person counters, one BatchGetItem whatever the table holds. */
export const countPersons = async (storage: Storage, onCall?: BatchGetOptions['onCall']) => {
  const counters = await batchGet(storage, PERSON_COUNTER_KEYS, { consistent: false, onCall });
  return [...counters.values()].reduce((sum, item) => sum + ((item.value as number | undefined) ?? 0), 0);
};

interface IndexEntry extends PersonSummary {
  listSk: string;
}

/**
 * How many entries an unfiltered list asks each partition for at a time, for a window of `wanted`
 * (offset + limit): about its share, and one more (keys.ts's cost model, lib/capacity/ prices it).
 */
export const listChunk = (wanted: number) => Math.ceil(wanted / PERSON_LIST_SHARDS) + 1;

/** A partition read in order, a chunk at a time. */
interface Cursor {
  partition: string;
  entries: IndexEntry[];
  next: number;
  startKey?: Record<string, unknown>;
  done: boolean;
}

/** One read of the `byName` index: the storage, the filters and order asked, and where its cost goes. */
interface IndexRead extends Storage {
  filters: PersonFilters;
  descending: boolean;
  record: RecordCost;
}

const openCursors = (): Cursor[] =>
  PERSON_LIST_PARTITIONS.map((partition) => ({ partition, entries: [], next: 0, done: false }));

/** Reads the next `limit` entries of a partition (filtered: evaluates that many, any may match). */
const readMore = async (
  { client, tableName, filters, descending, record }: IndexRead,
  cursor: Cursor,
  limit: number,
) => {
  const page = await storageCall(() =>
    client.send(
      new QueryCommand({
        ...buildListQuery(tableName, cursor.partition, filters, descending),
        ...(cursor.startKey ? { ExclusiveStartKey: cursor.startKey } : {}),
        Limit: Math.min(limit, MAX_QUERY_LIMIT),
      }),
    ),
  );
  record(page.ScannedCount ?? 0, page.ConsumedCapacity?.CapacityUnits ?? 0);
  cursor.entries = [...cursor.entries.slice(cursor.next), ...((page.Items ?? []) as IndexEntry[])];
  cursor.next = 0;
  cursor.startKey = page.LastEvaluatedKey;
  cursor.done = !page.LastEvaluatedKey;
};

/** Every match of the filters (one code point each), in order: each partition read to its end. */
const readAll = async (read: IndexRead) => {
  const partitions = await Promise.all(
    openCursors().map(async (cursor) => {
      const found: IndexEntry[] = [];
      while (!cursor.done) {
        await readMore(read, cursor, MAX_QUERY_LIMIT);
        found.push(...cursor.entries);
        cursor.entries = [];
      }
      return found;
    }),
  );
  return sortBySortKey(partitions.flat(), (entry) => entry.listSk, read.descending);
};

/**
 * The first `wanted` entries of the merged partitions. Each partition is read in chunks of about
 * its share of the window and asked again only when the merge has used up what it read; a chunk
 * never asks for more than the window still needs, so no partition gives more than `wanted`.
 */
const readWindow = async (read: IndexRead, wanted: number) => {
  const order = (a: IndexEntry, b: IndexEntry) =>
    read.descending ? compareSortKeys(b.listSk, a.listSk) : compareSortKeys(a.listSk, b.listSk);
  const chunk = listChunk(wanted);
  const open = openCursors();
  const merged: IndexEntry[] = [];
  while (merged.length < wanted) {
    const spent = open.filter((cursor) => cursor.next >= cursor.entries.length && !cursor.done);
    if (spent.length > 0)
      await Promise.all(
        spent.map((cursor) => readMore(read, cursor, Math.min(chunk, wanted - merged.length))),
      );
    // Every partition not at its end now holds its next entry: the first of those comes next.
    let head: Cursor | undefined;
    for (const cursor of open) {
      const entry = cursor.entries[cursor.next];
      if (entry && (!head || order(entry, head.entries[head.next] as IndexEntry) < 0)) head = cursor;
    }
    if (!head) break;
    merged.push(head.entries[head.next] as IndexEntry);
    head.next += 1;
  }
  return merged;
};

/**
 * The list read from the `byName` index: filtered (every fragment one code point), every match and
 * its count; unfiltered, the window merged from the partitions and the person counters' sum.
 */
const indexList = async (
  storage: Storage,
  filters: PersonFilters,
  { descending, window, filtered }: { descending: boolean; window: Window; filtered: boolean },
): Promise<PersonListResult> => {
  const { cost, record } = costRecorder();
  const read: IndexRead = { ...storage, filters, descending, record };
  const wanted = window.offset + window.limit;
  const [count, matches] = filtered
    ? await readAll(read).then((all) => [all.length, all] as const)
    : await Promise.all([
        countPersons(storage, record),
        wanted > 0 ? readWindow(read, wanted) : Promise.resolve([]),
      ]);
  return {
    count,
    persons: matches.slice(window.offset, wanted).map(({ id, fullname }) => ({ id, fullname })),
    cost,
  };
};

export const personList = ({
  client,
  tableName,
  logger = defaultLogger,
}: Storage & { logger?: Pick<typeof defaultLogger, 'info'> }): PersonList => ({
  async list({ filters, descending, window, localReferenceId }) {
    const storage = { client, tableName };
    const plan = planQuery(filters);
    const [source, result] =
      localReferenceId !== undefined
        ? [
            'local reference',
            await searchLocalReference(storage, localReferenceId, plan, { descending, window }),
          ]
        : plan.probes.length > 0
          ? ['postings', await searchPostings(storage, plan, { descending, window })]
          : plan.filters.length > 0
            ? ['index, filtered', await indexList(storage, filters, { descending, window, filtered: true })]
            : ['index', await indexList(storage, filters, { descending, window, filtered: false })];
    logger.info('list cost', {
      source,
      offset: window.offset,
      limit: window.limit,
      ...result.cost,
      ...result.detail,
    });
    addMetric('ItemsReadPerList', result.cost.itemsRead);
    return result;
  },
});
