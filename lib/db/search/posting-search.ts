/**
 * A filtered list answered from the search postings (issue #26): every list with a fragment of 2 or
 * more code points. The plan (lib/domain/search.ts) names the probes that can each supply all of a
 * filter's candidates; this reads a first page of every probe in every shard, reads the one that looks
 * rarest to its end, keeps the postings whose values match their filter, checks every other filter on
 * the candidate's posting of one of its grams (or, for a fragment under 3 code points, on the person),
 * and sorts the matches as the list does (folded fullname, then id).
 *
 * How rare a probe is comes from its sample: a shard read to its end is exact; one that is not is
 * estimated from how far its first page got through the ids (a gram's postings are in id order within
 * a shard), against the last id handed out. Prefix probes (2-code-point fragments) are in order of
 * their third code point first, so only an exhausted one is ranked by its count.
 */
import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { PersonListRequest } from '../../domain/listing';
import {
  checkGram,
  type FilterPlan,
  type Posting,
  type Probe,
  probesToSample,
  type QueryPlan,
  searchTerms,
  valuesMatch,
} from '../../domain/search';
import { costRecorder, MAX_QUERY_LIMIT, type PersonListResult, sortedWindow } from '../person/list-reads';
import { fromPersonItem } from '../person/person-items';
import { type BatchGetOptions, batchGet, keyString } from '../table/batch-get';
import type { Storage } from '../table/client';
import { idCounterKey, PERSON_LIST_SHARDS, personKey, postingKey, postingRange } from '../table/keys';
import { storageCall } from '../table/storage-errors';

/**
 * Postings of one probe read from each shard to size it: 256 in all, so a fragment on up to a couple
 * of hundred persons is read whole in its first round of 8 Queries.
 */
export const SAMPLE_PER_SHARD = 32;

interface PostingEntry {
  id: number;
  fullname: string;
  values: Posting['values'];
}

interface ShardCursor {
  shard: number;
  startKey?: Record<string, unknown>;
  done: boolean;
  read: number;
  /** The id of the last posting read (a gram's postings come in id order). */
  lastId: number;
}

interface ProbeRead {
  probe: Probe;
  shards: ShardCursor[];
  postings: PostingEntry[];
}

export const probeText = (probe: Probe) => (probe.kind === 'gram' ? probe.gram : probe.prefix);

/**
 * The Query input of a probe's postings in one shard, in id order. It asks only for what the list
 * uses (the stub and the values of the probe's filter's fields): the read units are those of the
 * whole postings either way, but the answer is half the bytes, which at 20 000 postings took 295 ms
 * on DynamoDB Local instead of 341.
 */
export const buildProbeQuery = (tableName: string, probe: Probe, shard: number): QueryCommandInput => {
  const { pk, skPrefix } = postingRange(probeText(probe), shard);
  const { fields } = probe.filter;
  return {
    TableName: tableName,
    KeyConditionExpression: skPrefix ? 'pk = :pk AND begins_with(sk, :sk)' : 'pk = :pk',
    ProjectionExpression: ['id', 'fullname', ...fields.map((field) => `#values.#${field}`)].join(', '),
    ExpressionAttributeNames: {
      '#values': 'values',
      ...Object.fromEntries(fields.map((field) => [`#${field}`, field])),
    },
    ExpressionAttributeValues: { ':pk': pk, ...(skPrefix ? { ':sk': skPrefix } : {}) },
    ReturnConsumedCapacity: 'TOTAL',
  };
};

/** How many postings a probe holds, as far as its sample shows (exact once every shard is read). */
const estimate = ({ probe, shards }: ProbeRead, lastId: number) =>
  shards.reduce((total, cursor) => {
    if (cursor.done) return total + cursor.read;
    if (probe.kind === 'prefix') return Number.MAX_SAFE_INTEGER;
    return total + (cursor.read * lastId) / Math.max(1, cursor.lastId);
  }, 0);

/**
 * Which of `ids` match `filter`: one BatchGetItem per 100 of their postings of its check gram (any of
 * its grams' postings carries every value holding the fragment) or, for a fragment under 3 code
 * points, of their persons.
 */
export const filterChecker = async (
  storage: Storage,
  filter: FilterPlan,
  ids: readonly number[],
  options: BatchGetOptions,
): Promise<(id: number) => boolean> => {
  const gram = checkGram(filter);
  const keyOf = (id: number) => (gram === null ? personKey(id) : postingKey(gram, id));
  const found = await batchGet(storage, ids.map(keyOf), options);
  return (id) => {
    const item = found.get(keyString(keyOf(id)));
    if (item === undefined) return false;
    return valuesMatch(
      filter,
      gram === null ? searchTerms(fromPersonItem(item)) : (item.values as Posting['values']),
    );
  };
};

export const searchPostings = async (
  { client, tableName }: Storage,
  plan: QueryPlan,
  { descending, window }: Pick<PersonListRequest, 'descending' | 'window'>,
): Promise<PersonListResult> => {
  if (plan.probes.length === 0)
    throw new Error('A plan without probes (every fragment one code point) is answered by the index');
  const { cost, record: counted } = costRecorder();
  const checker = (filter: FilterPlan, ids: number[]) =>
    filterChecker({ client, tableName }, filter, ids, { consistent: false, onCall: counted });

  const readShard = async (read: ProbeRead, cursor: ShardCursor, limit: number) => {
    const page = await storageCall(() =>
      client.send(
        new QueryCommand({
          ...buildProbeQuery(tableName, read.probe, cursor.shard),
          Limit: limit,
          ...(cursor.startKey ? { ExclusiveStartKey: cursor.startKey } : {}),
        }),
      ),
    );
    // A posting none of whose values is in the filter's fields comes back without `values`.
    const items = ((page.Items ?? []) as Partial<PostingEntry>[]).map(
      ({ id, fullname, values = {} }) => ({ id, fullname, values }) as PostingEntry,
    );
    counted(page.ScannedCount ?? items.length, page.ConsumedCapacity?.CapacityUnits ?? 0);
    read.postings.push(...items);
    cursor.read += items.length;
    cursor.lastId = items.at(-1)?.id ?? cursor.lastId;
    cursor.startKey = page.LastEvaluatedKey;
    cursor.done = !page.LastEvaluatedKey;
  };

  // The probes worth sampling, rarest-looking first.
  const reads: ProbeRead[] = probesToSample(plan).map((probe) => ({
    probe,
    postings: [],
    shards: Array.from({ length: PERSON_LIST_SHARDS }, (_, shard) => ({
      shard,
      done: false,
      read: 0,
      lastId: 0,
    })),
  }));
  const sample = (read: ProbeRead) => read.shards.map((cursor) => readShard(read, cursor, SAMPLE_PER_SHARD));
  // The first alone: a sample that reaches the end of every shard is all its postings (at most 256),
  // less than sampling any other could save, and the common case of a rare fragment.
  const [first, ...others] = reads as [ProbeRead, ...ProbeRead[]];
  await Promise.all(sample(first));
  let rarest = first;
  let sampled = 1;
  if (others.length > 0 && !first.shards.every((cursor) => cursor.done)) {
    sampled = reads.length;
    // The others' samples, and the last id handed out, which ranks a sample that did not reach the end.
    const [counter] = await Promise.all([
      storageCall(() =>
        client.send(
          new GetCommand({ TableName: tableName, Key: idCounterKey, ReturnConsumedCapacity: 'TOTAL' }),
        ),
      ),
      ...others.flatMap(sample),
    ]);
    counted(1, counter.ConsumedCapacity?.CapacityUnits ?? 0);
    const lastId = (counter.Item?.value as number | undefined) ?? 1;
    rarest = reads
      .map((read) => ({ read, size: estimate(read, lastId) }))
      .reduce((best, next) => (next.size < best.size ? next : best)).read;
  }
  await Promise.all(
    rarest.shards.map(async (cursor) => {
      while (!cursor.done) await readShard(rarest, cursor, MAX_QUERY_LIMIT);
    }),
  );

  // Candidates: persons one of whose postings of the rarest probe matches its filter.
  const candidates = new Map<number, PostingEntry>();
  for (const posting of rarest.postings)
    if (valuesMatch(rarest.probe.filter, posting.values)) candidates.set(posting.id, posting);

  const candidateCount = candidates.size;
  // Every other filter, on the posting of one of its grams or on the person.
  for (const other of plan.filters.filter((filter) => filter !== rarest.probe.filter)) {
    if (candidates.size === 0) break;
    const holds = await checker(other, [...candidates.keys()]);
    for (const id of candidates.keys()) if (!holds(id)) candidates.delete(id);
  }

  return {
    detail: {
      probe: `${rarest.probe.filter.filter} ${JSON.stringify(probeText(rarest.probe))}`,
      probePostings: rarest.postings.length,
      probesSampled: sampled,
      candidates: candidateCount,
    },
    ...sortedWindow([...candidates.values()], { descending, window }),
    cost,
  };
};
