/**
 * Section 3: what a list costs as the table grows. One table is seeded up to each size in turn
 * (BatchWriteItem, persons and their postings, see seed.ts), and at each size the list handler
 * answers the first page, a deep offset, and filters: a fragment on exactly 10 persons, a rare and a
 * common name, part of an email, a 3-letter search and a 2-letter fragment (the postings, issue #26).
 * Items read and calls come from the list's own cost record (the `list cost` log line), capacity is
 * computed from the recorded calls.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { buildHandler as buildList } from '../../functions/list-persons';
import type { ListCost } from '../../lib/db/person/list-reads';
import { personList } from '../../lib/db/person/person-list';
import { probeText } from '../../lib/db/search/posting-search';
import type { Storage } from '../../lib/db/table/client';
import { ListPersonsQuery, personListRequest } from '../../lib/domain/listing';
import { type Probe, planQuery, postingsOf, searchTerms } from '../../lib/domain/search';
import { lambdaContext } from '../../lib/local/lambda-context';
import type { HttpFunction } from '../../lib/local/server';
import { httpEvent } from '../support/events';
import { capacityOf, type Instrument, type RecordedCall } from './capacity';
import type { BenchConfig } from './config';
import { type ConstantBreakdown, runConstant } from './constant';
import {
  averageIndexEntryBytes,
  COMMON_FIRST_NAME,
  COMMON_QUERY,
  MISLEADING_QUERIES,
  PLANTED_LAST_NAME,
  PLANTED_QUERY,
  RARE_LAST_NAME,
  RARE_QUERY,
  seedPersons,
} from './seed';
import { ratio, round, type Summary, summarise } from './stats';

/** What the probe bar of issue #36 compares for a list answered from the postings. */
export interface ProbeBar {
  /** The rarest probe of the query's fragments in the data the bench seeded, and its postings. */
  rarest: string;
  rarestPostings: number;
  /** Postings the list read: every probe's sample, and the rest of the probe it chose. */
  postingsRead: number;
  samplePostings: number;
  /** Rounds of parallel calls up to the last posting read (counts, samples without them, the chosen probe's pages). */
  queryRounds: number;
}

export interface ScaleRow {
  query: string;
  persons: number;
  /** Persons in the answer's total (`Pagination.count`). */
  count: number;
  /** What the list read (its cost line's `source`), and for the postings the probe read whole. */
  source: string;
  probe?: string;
  probePostings?: number;
  itemsRead: number;
  calls: number;
  rcu: number;
  /** Bytes the list's reads answered (index entries at their average size; postings as projected). */
  bytesRead: number;
  latency: Summary;
  bar?: ProbeBar;
}

export interface ScaleGrowth {
  query: string;
  from: number;
  to: number;
  itemsRead: number;
  calls: number;
  latency: number;
}

export interface ScaleSection {
  indexEntryBytes: number;
  seedSeconds: Record<string, number>;
  /** Items written by the seeding of each size: persons and their postings. */
  seedItems: Record<string, number>;
  /** The resident memory of the DynamoDB Local process after seeding each size, and its peak, MiB. */
  dynamoMemoryMiB: Record<string, { resident: number; peak: number }>;
  rows: ScaleRow[];
  growth: ScaleGrowth[];
  /** Where the common fragment's time goes at the largest size (issue #36 step 3, constant.ts). */
  constant?: ConstantBreakdown;
}

/** The postings of a probe in the seeded data: its gram's, or all of the grams its prefix starts. */
const postingsOfProbe = (probe: Probe, postingsOfGram: ReadonlyMap<string, number>) => {
  if (probe.kind === 'gram') return postingsOfGram.get(probe.gram) ?? 0;
  let sum = 0;
  for (const [gram, count] of postingsOfGram) if (gram.startsWith(probe.prefix)) sum += count;
  return sum;
};

/** A list's probe bar figures: its read from its cost line, its rarest probe from the seeded data. */
const probeBar = (
  parameters: Record<string, string>,
  cost: { samplePostings?: number; postingsRead?: number; queryRounds?: number },
  postingsOfGram: ReadonlyMap<string, number>,
): ProbeBar => {
  const { filters } = personListRequest(ListPersonsQuery.parse(parameters));
  const [rarest] = planQuery(filters)
    .probes.map((probe) => ({ probe, postings: postingsOfProbe(probe, postingsOfGram) }))
    .sort((a, b) => a.postings - b.postings);
  if (!rarest) throw new Error(`No probe for ${JSON.stringify(parameters)}`);
  return {
    rarest: `${rarest.probe.filter.filter} ${JSON.stringify(probeText(rarest.probe))}`,
    rarestPostings: rarest.postings,
    postingsRead: cost.postingsRead ?? 0,
    samplePostings: cost.samplePostings ?? 0,
    queryRounds: cost.queryRounds ?? 0,
  };
};

/** VmRSS and VmHWM of a Linux process, MiB (zeros where /proc is not there). */
const memoryOf = (pid: number | undefined) => {
  const status = pid && existsSync(`/proc/${pid}/status`) ? readFileSync(`/proc/${pid}/status`, 'utf8') : '';
  const mib = (field: string) =>
    Math.round(Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024);
  return { resident: mib('VmRSS'), peak: mib('VmHWM') };
};

export const runScale = async (
  storage: Storage,
  raw: DynamoDBClient,
  instrument: Instrument,
  config: BenchConfig,
  log: (message: string) => void,
  dynamoPid?: number,
): Promise<ScaleSection> => {
  type CostLine = ListCost & {
    source: string;
    probe?: string;
    probePostings?: number;
    samplePostings?: number;
    postingsRead?: number;
    queryRounds?: number;
  };
  let cost: CostLine | undefined;
  const costLogger = {
    info: (_message: string, details: CostLine) => {
      cost = details;
    },
  } as unknown as Parameters<typeof personList>[0]['logger'];
  const handler = buildList({ personList: personList({ ...storage, logger: costLogger }) }) as HttpFunction;
  const queries: { query: string; parameters: Record<string, string> }[] = [
    { query: 'first page', parameters: {} },
    { query: `offset ${config.scale.deepOffset}`, parameters: { offset: String(config.scale.deepOffset) } },
    { query: PLANTED_QUERY, parameters: { last_name: PLANTED_LAST_NAME.toLowerCase() } },
    { query: RARE_QUERY, parameters: { last_name: RARE_LAST_NAME.toLowerCase() } },
    { query: COMMON_QUERY, parameters: { first_name: COMMON_FIRST_NAME.toLowerCase() } },
    { query: 'email fragment (1 person)', parameters: { email: 'seed-123@' } },
    { query: '3-letter search', parameters: { search: 'son' } },
    { query: '2-letter last_name', parameters: { last_name: 'ho' } },
    ...MISLEADING_QUERIES,
  ];
  /** Postings per gram of the persons seeded so far: what each probe of a filter holds. */
  const postingsOfGram = new Map<string, number>();

  const rows: ScaleRow[] = [];
  const seedSeconds: Record<string, number> = {};
  const seedItems: Record<string, number> = {};
  const dynamoMemoryMiB: ScaleSection['dynamoMemoryMiB'] = {};
  let seeded = 0;
  let indexEntryBytes = 0;
  for (const size of config.scale.sizes) {
    const started = performance.now();
    let reported = 0;
    await seedPersons(storage, {
      from: seeded,
      count: size - seeded,
      countPostings: true,
      seeded: (person) => {
        for (const { gram } of postingsOf(searchTerms(person)))
          postingsOfGram.set(gram, (postingsOfGram.get(gram) ?? 0) + 1);
      },
      progress: (done, written) => {
        seedItems[size] = written;
        if (done - reported >= 10_000) {
          reported = done;
          const seconds = (performance.now() - started) / 1000;
          log(
            `scale: seeded ${seeded + done} of ${size} (${written} items, ${Math.round(written / seconds)}/s)`,
          );
        }
      },
    });
    seeded = size;
    seedSeconds[size] = Number(((performance.now() - started) / 1000).toFixed(1));
    dynamoMemoryMiB[size] = memoryOf(dynamoPid);
    log(
      `scale: ${size} persons (seeded in ${seedSeconds[size]} s, ${seedItems[size]} items; DynamoDB Local ${dynamoMemoryMiB[size]?.resident} MiB)`,
    );
    indexEntryBytes = await averageIndexEntryBytes(storage);

    for (const { query, parameters } of queries) {
      const latencies: number[] = [];
      let capacity = 0;
      let bytesRead = 0;
      let count = 0;
      const runs = size === config.scale.sizes.at(-1) ? config.scale.runsAtLargest : config.scale.runs;
      for (let run = 0; run < runs + 1; run++) {
        const event = httpEvent({
          method: 'GET',
          route: '/Person',
          ...(Object.keys(parameters).length > 0 ? { query: parameters } : {}),
        });
        // Long enough for DynamoDB Local's slow pages at 100 000 persons (the stack gives a function 10 s).
        const context = lambdaContext('list-persons', 600_000);
        const recording: RecordedCall[] = [];
        // The first run is a warm-up, and the one whose calls are recorded for capacity.
        if (run === 0) instrument.recording = recording;
        const begun = performance.now();
        const result = await handler(event, context);
        const ms = performance.now() - begun;
        instrument.recording = undefined;
        const answer = typeof result === 'string' ? { statusCode: 200, body: result } : result;
        if (answer.statusCode !== 200)
          throw new Error(`GET /Person ${query}: ${answer.statusCode} ${answer.body}`);
        if (run === 0) {
          ({ rcu: capacity, bytesRead } = capacityOf(recording, indexEntryBytes));
          count = (JSON.parse(answer.body ?? '{}') as { Pagination: { count: number } }).Pagination.count;
        } else latencies.push(ms);
      }
      if (!cost) throw new Error('The list logged no cost');
      rows.push({
        query,
        persons: size,
        count,
        source: cost.source,
        ...(cost.probe ? { probe: cost.probe, probePostings: cost.probePostings } : {}),
        itemsRead: cost.itemsRead,
        calls: cost.calls,
        rcu: capacity,
        bytesRead,
        latency: summarise(latencies),
        ...(cost.source === 'postings' ? { bar: probeBar(parameters, cost, postingsOfGram) } : {}),
      });
    }
  }

  const first = config.scale.sizes[0] as number;
  const last = config.scale.sizes.at(-1) as number;
  const common = queries.find(({ query }) => query === COMMON_QUERY);
  const commonRow = rows.find((row) => row.query === COMMON_QUERY && row.persons === last);
  let constant: ConstantBreakdown | undefined;
  if (common && commonRow) {
    const event = httpEvent({ method: 'GET', route: '/Person', query: common.parameters });
    constant = await runConstant(storage, raw, {
      ...common,
      persons: last,
      answer: () => handler(event, lambdaContext('list-persons', 600_000)),
      scaleRow: commonRow.latency.median,
      runs: config.scale.runsAtLargest,
    });
    log(
      `scale: ${COMMON_QUERY} at ${last} persons, ${constant.matches} matches: ${constant.parts
        .map(({ part, ms }) => `${part} ${round(ms)}`)
        .join(', ')}, other ${round(constant.other)} of ${round(constant.whole)} ms`,
    );
  }
  const growth = queries.map(({ query }) => {
    const from = rows.find((row) => row.query === query && row.persons === first) as ScaleRow;
    const to = rows.find((row) => row.query === query && row.persons === last) as ScaleRow;
    return {
      query,
      from: first,
      to: last,
      itemsRead: ratio(to.itemsRead, from.itemsRead),
      calls: ratio(to.calls, from.calls),
      latency: ratio(to.latency.median, from.latency.median),
    };
  });
  return {
    indexEntryBytes: Math.round(indexEntryBytes),
    seedSeconds,
    seedItems,
    dynamoMemoryMiB,
    rows,
    growth,
    ...(constant ? { constant } : {}),
  };
};
