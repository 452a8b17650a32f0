/**
 * A filtered list answered from the search postings (issue #26): every list with a fragment of 2 or
 * more code points. The plan (lib/domain/search.ts) names the probes that can each supply all of a
 * filter's candidates; this measures them, reads the smallest whole, keeps the postings whose values
 * match their filter, applies every other filter to those candidates, and sorts the matches as the
 * list does (folded fullname, then id).
 *
 * The rounds of parallel calls (issue #36; the costs in keys.ts):
 * 1. every probe's postings as the stream counted them (`readPostingCounts`: one BatchGetItem, and a
 *    Query per prefix), and the fewest read. A plan of one probe skips this: nothing to choose.
 * 2. only where the counts are not complete (a table that held persons before them): every probe
 *    sampled (`probesToSample`), one Query of `SAMPLE_PER_SHARD` postings in its filter's sampling
 *    shard, all at once, with the GetItem of the id counter; `chooseProbe` sizes each from its sample.
 * 3. the chosen probe read whole: one Query per shard at once (a sampled shard going on from where
 *    its sample stopped, nothing read twice); a shard holding more than one Query returns takes more.
 * 4. each other filter, fewest postings first, applied the cheaper way (list-plan.ts, issue #60) where
 *    the counts size its rarest probe: that probe read whole as in 3 and intersected with the
 *    candidates, or each candidate checked on the posting of one of the filter's grams (or, for a
 *    fragment under 3 code points, on the person) by BatchGetItem. Without counts, checked.
 */
import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { PersonListRequest } from '../../../domain/listing';
import type { PersonListResult } from '../../../domain/ports/lists';
import {
  checkGram,
  chooseProbe,
  type FilterPlan,
  fewestPostings,
  type Posting,
  type Probe,
  type ProbeSample,
  probesToSample,
  type QueryPlan,
  samplingShard,
  searchTerms,
  valuesMatch,
} from '../../../domain/search';
import { type BatchGetOptions, batchGet, keyString } from '../../table/batch-get';
import type { Storage } from '../../table/client';
import { idCounterKey, PERSON_LIST_SHARDS, personKey, postingKey, postingRange } from '../../table/keys';
import { storageCall } from '../../table/storage-errors';
import { fromPersonItem, isLivePersonItem } from '../person-items';
import { cheaperStep } from './list-plan';
import { costRecorder, MAX_QUERY_LIMIT, type RecordCost, sortedWindow } from './list-reads';
import { readPostingCounts } from './posting-counts';

/**
 * Postings of one probe read from its one sampling shard to size it (the Limit of its sample Query):
 * 64 postings of about 150 bytes, 1 to 1.5 read units. A shard with fewer is counted exactly; a full
 * page is extrapolated from how far through the ids it got, within about 1/sqrt(64) = 12.5%.
 */
export const SAMPLE_PER_SHARD = 64;

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
  /** Queries of this shard in the whole read (a sampled shard's sample is not one of them). */
  pages: number;
}

interface ProbeRead {
  probe: Probe;
  shards: ShardCursor[];
  postings: PostingEntry[];
}

export const probeText = (probe: Probe) => (probe.kind === 'gram' ? probe.gram : probe.prefix);

/** A probe as the list's cost line names it: its filter and its gram or prefix. */
export const describeProbe = (probe: Probe) => `${probe.filter.filter} ${JSON.stringify(probeText(probe))}`;

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
    // A person merged since its postings were read (API.md 13) matches nothing.
    if (item === undefined || !isLivePersonItem(item)) return false;
    return valuesMatch(
      filter,
      gram === null ? searchTerms(fromPersonItem(item)) : (item.values as Posting['values']),
    );
  };
};

/** One list's reads of postings: the storage, where their cost goes, and the postings they read. */
interface PostingReads extends Storage {
  counted: RecordCost;
  /** Postings every Query read, and those the samples read (round 2). */
  postingsRead: number;
  samplePostings: number;
}

const newRead = (probe: Probe): ProbeRead => ({
  probe,
  postings: [],
  shards: Array.from({ length: PERSON_LIST_SHARDS }, (_, shard) => ({
    shard,
    done: false,
    read: 0,
    lastId: 0,
    pages: 0,
  })),
});

/** The next `limit` postings of a probe's shard, added to its read. */
const readShard = async (reads: PostingReads, read: ProbeRead, cursor: ShardCursor, limit: number) => {
  const page = await storageCall(() =>
    reads.client.send(
      new QueryCommand({
        ...buildProbeQuery(reads.tableName, read.probe, cursor.shard),
        Limit: limit,
        ...(cursor.startKey ? { ExclusiveStartKey: cursor.startKey } : {}),
      }),
    ),
  );
  // A posting none of whose values is in the filter's fields comes back without `values`.
  const items = ((page.Items ?? []) as Partial<PostingEntry>[]).map(
    ({ id, fullname, values = {} }) => ({ id, fullname, values }) as PostingEntry,
  );
  reads.counted(page.ScannedCount ?? items.length, page.ConsumedCapacity?.CapacityUnits ?? 0);
  reads.postingsRead += items.length;
  read.postings.push(...items);
  cursor.read += items.length;
  cursor.lastId = items.at(-1)?.id ?? cursor.lastId;
  cursor.startKey = page.LastEvaluatedKey;
  cursor.done = !page.LastEvaluatedKey;
};

/** The probes sampled in one shard each, and the chosen one's read with its sample in it. */
const sampleProbes = async (reads: PostingReads, probes: Probe[]): Promise<ProbeRead> => {
  const sampled = probes.map((probe) => ({
    read: newRead(probe),
    shard: samplingShard(probe.filter, PERSON_LIST_SHARDS),
  }));
  const [counter] = await Promise.all([
    storageCall(() =>
      reads.client.send(
        new GetCommand({ TableName: reads.tableName, Key: idCounterKey, ReturnConsumedCapacity: 'TOTAL' }),
      ),
    ),
    ...sampled.map(({ read, shard }) =>
      readShard(reads, read, read.shards[shard] as ShardCursor, SAMPLE_PER_SHARD),
    ),
  ]);
  reads.counted(1, counter.ConsumedCapacity?.CapacityUnits ?? 0);
  const lastId = (counter.Item?.value as number | undefined) ?? 1;
  const samples = sampled.map(({ read, shard }): ProbeSample => {
    const cursor = read.shards[shard] as ShardCursor;
    reads.samplePostings += cursor.read;
    return { probe: read.probe, read: cursor.read, exhausted: cursor.done, lastId: cursor.lastId };
  });
  const chosen = chooseProbe(samples, lastId, PERSON_LIST_SHARDS);
  return sampled.find(({ read }) => read.probe === chosen)?.read as ProbeRead;
};

/**
 * The probe to read whole (rounds 1 and 2): the fewest postings by the counts, or without counts by
 * the samples; a plan of one probe reads it without sizing it. The counts, where read, also size the
 * other filters' probes (`matchesOf` prices their reads with them).
 */
const chooseRarest = async (reads: PostingReads, probes: Probe[]) => {
  if (probes.length === 1)
    return { rarest: newRead(probes[0] as Probe), sizedBy: 'one probe' as const, rounds: 0, counts: null };
  const counts = await readPostingCounts(reads, probes, reads.counted);
  if (counts) {
    const fewest = fewestPostings(probes.map((probe) => ({ probe, postings: counts.get(probe) ?? 0 })));
    return { rarest: newRead(fewest), sizedBy: 'counts' as const, rounds: 1, counts };
  }
  // Round 2, without counts: one Query per probe in its filter's sampling shard, and the last id
  // handed out (which sizes a sample that did not reach the end of its shard).
  return { rarest: await sampleProbes(reads, probes), sizedBy: 'samples' as const, rounds: 2, counts: null };
};

/**
 * The chosen probe whole: a sample of it is not read again, its sampled shard goes on from its cursor
 * (or is done). A shard holding more than one Query returns takes a round more per page: the rounds.
 */
const readWhole = async (reads: PostingReads, rarest: ProbeRead) => {
  await Promise.all(
    rarest.shards.map(async (cursor) => {
      while (!cursor.done) {
        await readShard(reads, rarest, cursor, MAX_QUERY_LIMIT);
        cursor.pages += 1;
      }
    }),
  );
  return Math.max(...rarest.shards.map((cursor) => cursor.pages));
};

/**
 * The filters other than the rarest probe's, each with its own rarest probe and that probe's postings
 * where the counts size them (a filter of one code point has no probe), fewest postings first.
 */
const otherFilters = (plan: QueryPlan, rarest: ProbeRead, counts: ReadonlyMap<Probe, number> | null) =>
  plan.filters
    .filter((filter) => filter !== rarest.probe.filter)
    .map((filter) => {
      const own = plan.probes.filter((probe) => probe.filter === filter && counts?.has(probe));
      if (!counts || own.length === 0) return { filter };
      const probe = fewestPostings(own.map((each) => ({ probe: each, postings: counts.get(each) ?? 0 })));
      return { filter, probe, postings: counts.get(probe) ?? 0 };
    })
    .sort((a, b) => (a.postings ?? Number.MAX_SAFE_INTEGER) - (b.postings ?? Number.MAX_SAFE_INTEGER));

/**
 * The persons one of whose postings of the rarest probe matches its filter (round 3), kept where every
 * other filter holds (round 4 on): each other filter applied the cheaper way (list-plan.ts), by reading
 * its rarest probe whole and keeping the candidates among its matching postings, or by checking each
 * candidate on the posting of one of its grams or on the person.
 */
const matchesOf = async (
  reads: PostingReads,
  plan: QueryPlan,
  rarest: ProbeRead,
  { counts, step }: { counts: ReadonlyMap<Probe, number> | null; step: typeof cheaperStep },
) => {
  const candidates = new Map<number, PostingEntry>();
  for (const posting of rarest.postings)
    if (valuesMatch(rarest.probe.filter, posting.values)) candidates.set(posting.id, posting);
  const candidateCount = candidates.size;
  const intersected: ProbeRead[] = [];
  // Rounds of calls after the chosen probe's read, and of them those up to the last Query of postings.
  let rounds = 0;
  let queryRounds = 0;
  for (const { filter, probe, postings } of otherFilters(plan, rarest, counts)) {
    if (candidates.size === 0) break;
    let holds: (id: number) => boolean;
    if (probe && step(candidates.size, postings) === 'intersect') {
      const read = newRead(probe);
      rounds += await readWhole(reads, read);
      queryRounds = rounds;
      intersected.push(read);
      const holding = new Set(
        read.postings.flatMap((each) => (valuesMatch(filter, each.values) ? [each.id] : [])),
      );
      holds = (id) => holding.has(id);
    } else {
      rounds += 1;
      holds = await filterChecker(reads, filter, [...candidates.keys()], {
        consistent: false,
        onCall: reads.counted,
      });
    }
    for (const id of candidates.keys()) if (!holds(id)) candidates.delete(id);
  }
  return { candidateCount, intersected, queryRounds, matches: [...candidates.values()] };
};

export const searchPostings = async (
  { client, tableName }: Storage,
  plan: QueryPlan,
  { descending, window }: Pick<PersonListRequest, 'descending' | 'window'>,
  /** How each filter after the first is applied (a test forces one way to compare the answers). */
  step = cheaperStep,
): Promise<PersonListResult> => {
  if (plan.probes.length === 0)
    throw new Error('A plan without probes (every fragment one code point) is answered by the index');
  const { cost, record: counted } = costRecorder();
  const reads: PostingReads = { client, tableName, counted, postingsRead: 0, samplePostings: 0 };
  const probes = probesToSample(plan);
  const { rarest, sizedBy, rounds, counts } = await chooseRarest(reads, probes);
  const chosenRounds = rounds + (await readWhole(reads, rarest));
  const { candidateCount, intersected, queryRounds, matches } = await matchesOf(reads, plan, rarest, {
    counts,
    step,
  });
  return {
    detail: {
      probe: describeProbe(rarest.probe),
      probePostings: rarest.postings.length,
      /** The probes compared (1: the query has one, read without sizing it), and how they were sized. */
      probesSampled: probes.length,
      sizedBy,
      /** Postings the samples read (round 2), the chosen probe's own among them. */
      samplePostings: reads.samplePostings,
      /** Postings every Query read: the samples, the rest of the chosen probe and the intersected. */
      postingsRead: reads.postingsRead,
      /** Rounds of calls to the last posting read: sizing, the chosen probe's pages, intersected probes'. */
      queryRounds: chosenRounds + queryRounds,
      candidates: candidateCount,
      /** The other filters' probes read whole and intersected with the candidates, not checked. */
      ...(intersected.length > 0
        ? { intersected: intersected.map((read) => describeProbe(read.probe)).join('; ') }
        : {}),
    },
    ...sortedWindow(matches, { descending, window }),
    cost,
  };
};
