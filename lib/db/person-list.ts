/**
 * The list of persons, read from the `byName` index (see the cost notes in keys.ts): the window of
 * stubs, the count, and what it cost, logged for operators and benchmarks.
 */
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { PersonFilters, PersonListRequest, PersonSummary } from '../domain/listing';
import { logger as defaultLogger } from '../logger';
import { type BatchGetOptions, batchGet } from './batch-get';
import type { Storage } from './client';
import { PERSON_COUNTER_KEYS, PERSON_LIST_INDEX, PERSON_LIST_PARTITION } from './keys';
import { storageCall } from './storage-errors';

export interface ListCost {
  calls: number;
  itemsRead: number;
  capacityUnits: number;
}

export interface PersonListResult {
  count: number;
  persons: PersonSummary[];
  cost: ListCost;
}

export interface PersonList {
  list(request: PersonListRequest): Promise<PersonListResult>;
}

/** The index attributes each filter matches against (person-items.ts writes them). */
const FILTER_ATTRIBUTES: Record<keyof PersonFilters, string[]> = {
  first_name: ['search_first_name'],
  last_name: ['search_last_name'],
  email: ['search_email'],
  search: ['search_rest', 'search_first_name', 'search_last_name', 'search_email'],
};

const filterCondition = (key: keyof PersonFilters) =>
  `(${FILTER_ATTRIBUTES[key].map((attribute) => `contains(${attribute}, :${key})`).join(' OR ')})`;

/** The Query input of a list page: the index in the asked direction, filters as `contains`. */
export const buildListQuery = (
  tableName: string,
  filters: PersonFilters,
  descending: boolean,
): QueryCommandInput => {
  const active = Object.entries(filters).filter(([, value]) => value) as [keyof PersonFilters, string][];
  return {
    TableName: tableName,
    IndexName: PERSON_LIST_INDEX,
    KeyConditionExpression: 'listPk = :partition',
    ProjectionExpression: 'id, fullname',
    ScanIndexForward: !descending,
    ReturnConsumedCapacity: 'TOTAL',
    ...(active.length > 0
      ? {
          FilterExpression: active.map(([key]) => filterCondition(key)).join(' AND '),
        }
      : {}),
    ExpressionAttributeValues: {
      ':partition': PERSON_LIST_PARTITION,
      ...Object.fromEntries(active.map(([key, value]) => [`:${key}`, value])),
    },
  };
};

/**
 * Items one Query may evaluate: a page of index entries about DynamoDB's 1 MB per call. Filtered
 * reads pass it too: in AWS the 1 MB cap binds first either way, but DynamoDB Local without a `Limit`
 * reads every remaining entry for each page, so a filtered list over 100 000 persons took over a
 * minute there (O(n²)) instead of about ten seconds.
 */
export const MAX_QUERY_LIMIT = 5_000;

/** The number of persons: the sum of the person counters, one BatchGetItem whatever the table holds. */
export const countPersons = async (storage: Storage, onCall?: BatchGetOptions['onCall']) => {
  const counters = await batchGet(storage, PERSON_COUNTER_KEYS, { consistent: false, onCall });
  return [...counters.values()].reduce((sum, item) => sum + ((item.value as number | undefined) ?? 0), 0);
};

const capacityOf = (consumed: ConsumedCapacity | undefined) => consumed?.CapacityUnits ?? 0;

export const personList = ({
  client,
  tableName,
  logger = defaultLogger,
}: Storage & { logger?: Pick<typeof defaultLogger, 'info'> }): PersonList => ({
  async list({ filters, descending, window }) {
    const cost: ListCost = { calls: 0, itemsRead: 0, capacityUnits: 0 };
    const filtered = Object.values(filters).some(Boolean);
    const wanted = window.offset + window.limit;

    /** Reads the index until `enough` matches are in hand, or to its end. */
    const readIndex = async (enough: number) => {
      const matches: PersonSummary[] = [];
      const input = buildListQuery(tableName, filters, descending);
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await storageCall(() =>
          client.send(
            new QueryCommand({
              ...input,
              ...(startKey ? { ExclusiveStartKey: startKey } : {}),
              Limit: filtered ? MAX_QUERY_LIMIT : Math.min(enough - matches.length, MAX_QUERY_LIMIT),
            }),
          ),
        );
        cost.calls += 1;
        cost.itemsRead += page.ScannedCount ?? 0;
        cost.capacityUnits += capacityOf(page.ConsumedCapacity);
        matches.push(...((page.Items ?? []) as PersonSummary[]));
        startKey = page.LastEvaluatedKey;
      } while (startKey && matches.length < enough);
      return matches;
    };

    const readCount = () =>
      countPersons({ client, tableName }, (items, capacityUnits) => {
        cost.calls += 1;
        cost.itemsRead += items;
        cost.capacityUnits += capacityUnits;
      });

    let count: number;
    let matches: PersonSummary[];
    if (filtered) {
      matches = await readIndex(Number.POSITIVE_INFINITY);
      count = matches.length;
    } else {
      [count, matches] = await Promise.all([
        readCount(),
        wanted > 0 ? readIndex(wanted) : Promise.resolve([]),
      ]);
    }
    const persons = matches.slice(window.offset, wanted).map(({ id, fullname }) => ({ id, fullname }));
    logger.info('list cost', { filtered, offset: window.offset, limit: window.limit, ...cost });
    return { count, persons, cost };
  },
});
