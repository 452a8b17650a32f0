/**
 * The common fragment's constant (issue #36 step 3): where a filtered list's time goes when its
 * fragment matches thousands (`first_name=maria`, 20% of the table), at the largest size of the scale
 * section. The list's steps are run one by one, each timed on its own, median over the runs:
 * - the sizing of the probes (round 1): the BatchGetItem of their posting counts (`readPostingCounts`);
 * - the Queries of the chosen probe: every shard read whole at once (pages of `MAX_QUERY_LIMIT`) on
 *   the raw client, so the SDK's protocol parsing is in, the document client's unmarshalling is not;
 * - unmarshalling those items (`unmarshall` of @aws-sdk/util-dynamodb, what the document client does);
 * - matching: each posting's values against the filter (`valuesMatch`), kept by id;
 * - sorting and windowing (`sortedWindow`), and apart its two parts: the sort key of every match
 *   (`fold` of the fullname, `listSortKey`), and the ordering of the keyed matches and the slice.
 * Each run first has the handler answer the same request, so the whole and its steps are measured
 * under the same load (the machine is shared with DynamoDB Local); what the steps leave of the
 * handler's median is "other": the sizing (timed apart too), the request's parsing, the answer's
 * serialization, the cost log line, the document client's middleware. The scale row's median (other
 * runs) is given beside it.
 */
import { type AttributeValue, type DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import {
  MAX_QUERY_LIMIT,
  sortedWindow,
  sortNameOf,
  windowBySortKey,
} from '../../lib/db/person/read/list-reads';
import { readPostingCounts } from '../../lib/db/person/read/posting-counts';
import { buildProbeQuery, probeText, searchPostings } from '../../lib/db/person/read/posting-search';
import type { Storage } from '../../lib/db/table/client';
import { PERSON_LIST_SHARDS } from '../../lib/db/table/keys';
import { ListPersonsQuery, type PersonSummary, personListRequest } from '../../lib/domain/listing';
import { type Posting, type Probe, planQuery, probesToSample, valuesMatch } from '../../lib/domain/search';
import { summarise } from './stats';

/** One step of the list, its median over the runs. */
export interface ConstantPart {
  part: string;
  ms: number;
}

export interface ConstantBreakdown {
  query: string;
  persons: number;
  /** The probe the list chose and read whole, its postings, and the matches (the answer's count). */
  probe: string;
  postings: number;
  matches: number;
  /** The window the answer takes of the matches. */
  window: { offset: number; limit: number };
  runs: number;
  /** The steps after the samples, in the list's order; they and `other` add up to `whole`. */
  parts: ConstantPart[];
  /** The probes' sizing by their counts, measured apart: part of `other` (the list's first round of calls). */
  sizing: number;
  /**
   * Of the sorting step: the sort keys, and ordering them (with the slice); and for reference, sorting
   * every keyed match (what a list did before it selected its window).
   */
  sortSplit: { keys: number; order: number; fullSort: number };
  /** The handler's median on the same request, run before each run of the steps. */
  whole: number;
  /** The handler's median on it in the scale row (runs of its own). */
  scaleRow: number;
  other: number;
}

type RawItem = Record<string, AttributeValue>;

/** A Query input as the document client builds it, with its values in attribute-value form. */
const rawQuery = (tableName: string, probe: Probe, shard: number) => {
  const { ExpressionAttributeValues, ...input } = buildProbeQuery(tableName, probe, shard);
  return { ...input, ExpressionAttributeValues: marshall(ExpressionAttributeValues ?? {}) };
};

const readShard = async (raw: DynamoDBClient, tableName: string, probe: Probe, shard: number) => {
  const items: RawItem[] = [];
  let startKey: RawItem | undefined;
  do {
    const page = await raw.send(
      new QueryCommand({
        ...rawQuery(tableName, probe, shard),
        Limit: MAX_QUERY_LIMIT,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};

const elapsed = (started: number) => performance.now() - started;

export const runConstant = async (
  storage: Storage,
  raw: DynamoDBClient,
  {
    query,
    parameters,
    persons,
    answer,
    scaleRow,
    runs,
  }: {
    query: string;
    parameters: Record<string, string>;
    persons: number;
    /** The handler answering this request. */
    answer: () => Promise<unknown>;
    /** The handler's median on it in its scale row. */
    scaleRow: number;
    runs: number;
  },
): Promise<ConstantBreakdown> => {
  const { filters, descending, window } = personListRequest(ListPersonsQuery.parse(parameters));
  const plan = planQuery(filters);
  // The probe the list chooses, by its own cost detail.
  const { detail } = await searchPostings(storage, plan, { descending, window });
  const named = (probe: Probe) => `${probe.filter.filter} ${JSON.stringify(probeText(probe))}`;
  const probe = plan.probes.find((candidate) => named(candidate) === detail?.probe);
  if (!probe) throw new Error(`The list of ${JSON.stringify(parameters)} chose no probe of its plan`);
  const sampled = probesToSample(plan);
  const { tableName } = storage;

  const times: Record<string, number[]> = {};
  const time = (part: string, ms: number) => {
    times[part] = [...(times[part] ?? []), ms];
  };
  let postings = 0;
  let matches = 0;
  for (let run = 0; run < runs + 1; run++) {
    let started = performance.now();
    await answer();
    const whole = elapsed(started);

    started = performance.now();
    if (sampled.length > 1) await readPostingCounts(storage, sampled, () => {});
    const sizing = elapsed(started);

    started = performance.now();
    const shards = await Promise.all(
      Array.from({ length: PERSON_LIST_SHARDS }, (_, shard) => readShard(raw, tableName, probe, shard)),
    );
    const queries = elapsed(started);

    started = performance.now();
    const items = shards.flat().map((item) => unmarshall(item));
    const unmarshalling = elapsed(started);

    started = performance.now();
    const candidates = new Map<number, PersonSummary>();
    for (const { id, fullname, values = {} } of items as {
      id: number;
      fullname: string;
      values?: Posting['values'];
    }[])
      if (valuesMatch(probe.filter, values)) candidates.set(id, { id, fullname });
    const matching = elapsed(started);

    const found = [...candidates.values()];
    started = performance.now();
    sortedWindow(found, { descending, window });
    const sorting = elapsed(started);

    // The two parts of that step, again on their own.
    started = performance.now();
    const keyed = found.map((match) => ({ match, key: sortNameOf(match) }));
    const keys = elapsed(started);
    started = performance.now();
    const keyOf = ({ key }: (typeof keyed)[number]) => key;
    const idOf = ({ match }: (typeof keyed)[number]) => match.id;
    windowBySortKey(keyed, keyOf, descending, window, idOf);
    const order = elapsed(started);
    started = performance.now();
    windowBySortKey(keyed, keyOf, descending, { offset: 0, limit: keyed.length }, idOf);
    const fullSort = elapsed(started);

    postings = items.length;
    matches = found.length;
    // The first run warms up.
    if (run === 0) continue;
    time('whole', whole);
    time('sizing (round 1)', sizing);
    time('Queries of the chosen probe (raw)', queries);
    time('unmarshalling', unmarshalling);
    time('matching', matching);
    time('sorting and windowing', sorting);
    time('keys', keys);
    time('order', order);
    time('full sort', fullSort);
  }
  const medianOf = (part: string) => summarise(times[part] ?? []).median;
  const parts = [
    'Queries of the chosen probe (raw)',
    'unmarshalling',
    'matching',
    'sorting and windowing',
  ].map((part) => ({ part, ms: medianOf(part) }));
  return {
    query,
    persons,
    probe: named(probe),
    postings,
    matches,
    window,
    runs,
    parts,
    sortSplit: { keys: medianOf('keys'), order: medianOf('order'), fullSort: medianOf('full sort') },
    sizing: medianOf('sizing (round 1)'),
    whole: medianOf('whole'),
    scaleRow,
    other: medianOf('whole') - parts.reduce((sum, { ms }) => sum + ms, 0),
  };
};
