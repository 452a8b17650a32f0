/**
 * Section 3: what a list costs as the table grows. One table is seeded up to each size in turn
 * (BatchWriteItem, persons and their postings, see seed.ts), and at each size the list handler
 * answers the first page, a deep offset, and filters: a fragment on exactly 10 persons, a rare and a
 * common name, part of an email, a 3-letter search and a 2-letter fragment (the postings, issue #26).
 * Items read and calls come from the list's own cost record (the `list cost` log line), capacity is
 * computed from the recorded calls. At each size the reconciliation handler also answers one batch
 * of 10 queries as OpenRefine sends it (issue #37), each query's cost from the reader's own record,
 * and the duplicates detector checks each person that batch is about once (issue #57), its calls
 * recorded: what one check costs as the table grows.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { buildHandler as buildGet } from '../../functions/get-person';
import { buildHandler as buildList } from '../../functions/list-persons';
import { buildHandler as buildUpdate } from '../../functions/update-person';
import type { PersonShape } from '../../lib/capacity/operations';
import { duplicateReads } from '../../lib/db/duplicates/duplicate-reads';
import { pairStore } from '../../lib/db/duplicates/pair-store';
import { personList } from '../../lib/db/person/read/person-list';
import { describeProbe } from '../../lib/db/person/read/posting-search';
import { reconcileReader } from '../../lib/db/person/read/reconcile-candidates';
import { postingItemsOf } from '../../lib/db/person/write/postings';
import { personRepository } from '../../lib/db/person-repository';
import type { Storage } from '../../lib/db/table/client';
import { itemSize } from '../../lib/db/table/item-size';
import { gramOfPostingKey, PERSON_LIST_SHARDS } from '../../lib/db/table/keys';
import { matchRequestOfPerson } from '../../lib/domain/duplicates';
import { isErasedPerson } from '../../lib/domain/erasure';
import { ListPersonsQuery, personListRequest } from '../../lib/domain/listing';
import { isMergedPerson } from '../../lib/domain/merge';
import type { ListCost } from '../../lib/domain/ports/lists';
import { ALL_VISIBLE, matchRequestOf } from '../../lib/domain/reconcile';
import { type Probe, planQuery, postingsOf, probesToSample, searchTerms } from '../../lib/domain/search';
import { checkPerson } from '../../lib/duplicates/detect-duplicates';
import { reconcileHandler } from '../../lib/http/reconcile-handlers';
import { lambdaContext } from '../../lib/local/lambda-context';
import type { HttpFunction } from '../../lib/local/server';
import { httpEvent } from '../support/events';
import { capacityOf, type Instrument, type RecordedCall } from './capacity';
import {
  filteredRow,
  firstPageRow,
  isIdBlock,
  type MeasuredWrite,
  type ModelRow,
  writeRows,
} from './capacity-model';
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
  RECONCILE_ABSENT_QUERY,
  RECONCILE_CLAIMED,
  RECONCILE_EMAIL_QUERY,
  RECONCILE_QUERIES,
  seedBody,
  seedPersons,
} from './seed';
import { ratio, round, type Summary, summarise } from './stats';

/** What the probe bar of issue #36 compares for a list answered from the postings. */
export interface ProbeBar {
  /** The rarest probe of the query's fragments in the data the bench seeded, and its postings. */
  rarest: string;
  rarestPostings: number;
  /**
   * The postings of the other fragments' probes the list read whole and intersected (issue #60), in
   * the seeded data: the rarest probe of each such fragment, as the counts named it.
   */
  intersectedPostings: number;
  /** Postings the list read: every probe's sample, the rest of the probe it chose, the intersected. */
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
  /** Of those postings, the ones holding the probe's fragment: the persons the other filters check. */
  candidates?: number;
  itemsRead: number;
  calls: number;
  rcu: number;
  /** Bytes the list's reads answered (index entries at their average size; postings as projected). */
  bytesRead: number;
  latency: Summary;
  bar?: ProbeBar;
  /**
   * Queries of the table (the postings) that found nothing: DynamoDB Local reports 0 units for them,
   * AWS charges each the minimum (half a unit), as the capacity model does (issue #43).
   */
  emptyQueries?: number;
}

/** One query of the reconciliation batch: the reader's cost record of it, and what came back first. */
export interface ReconcileQueryCost {
  query: string;
  itemsRead: number;
  calls: number;
  /**
   * Fragments whose postings were read: each form of the whole name; its words when no one has it
   * exactly; the halves of a word that found no one.
   */
  fragments: number;
  /** Persons the postings of those fragments held. */
  postingMatches: number;
  /** Persons read whole and scored. */
  read: number;
  /**
   * What keys.ts says the query reads, from the data the bench seeded: per fragment searched, the
   * postings of its rarest probe, its probes' counts and the counts' mark; the persons scored; an
   * email claim per email sent.
   */
  model: number;
  /** The person the row is about came back first (absent: the row is about no one in particular). */
  top?: boolean;
  /** The first candidate came back `match: true`. */
  match: boolean;
}

/** The reconciliation batch at one size (issue #37). */
export interface ReconcileRow {
  persons: number;
  queries: number;
  itemsRead: number;
  /** The most one query of the batch read. */
  maxItemsRead: number;
  /** The calls the handler sent for the batch (recorded), and their read units. */
  calls: number;
  rcu: number;
  latency: Summary;
  perQuery: ReconcileQueryCost[];
}

/** One check of the duplicates detector (issue #57): `checkPerson` of one seeded person, its calls recorded. */
export interface DuplicateCheckCost {
  /** The seeded person checked: its index in the seeding, its id and its name. */
  seed: number;
  personId: number;
  name: string;
  /** The persons `reads.candidates` returns for a check of the person (not itself), counted apart. */
  candidates: number;
  /** Items the recorded calls returned: Query `Count`, GetItem `Item`, BatchGetItem `Responses`. */
  itemsRead: number;
  calls: number;
  rcu: number;
  /** What the check wrote: the pairs it created or changed (a new namesake's pair, say). */
  wcu: number;
  /** Pairs the check created or changed. */
  changes: number;
  ms: number;
}

/** Mean and most of a figure over the checks of one size. */
export interface MeanMax {
  mean: number;
  max: number;
}

/** The duplicate checks at one size (issue #57 step 1): one check of each seeded person the batch is about. */
export interface DuplicateCheckRow {
  persons: number;
  checks: number;
  candidates: MeanMax;
  itemsRead: MeanMax;
  calls: MeanMax;
  rcu: MeanMax;
  wcu: MeanMax;
  ms: MeanMax;
  /** Items read over candidates, summed over the checks. */
  itemsPerCandidate: number;
  perCheck: DuplicateCheckCost[];
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
  /** A batch of 10 reconciliation queries at each size (issue #37). */
  reconcile: ReconcileRow[];
  /** One duplicates detector check of each person the reconciliation batch is about, at each size (issue #57). */
  duplicateChecks: DuplicateCheckRow[];
  /** Where the common fragment's time goes at the largest size (issue #36 step 3, constant.ts). */
  constant?: ConstantBreakdown;
  /** The capacity model's units against the ones counted here, per operation and size (issue #43). */
  model: ModelRow[];
}

/** The postings of a probe in the seeded data: its gram's, or all of the grams its prefix starts. */
const postingsOfProbe = (probe: Probe, postingsOfGram: ReadonlyMap<string, number>) => {
  if (probe.kind === 'gram') return postingsOfGram.get(probe.gram) ?? 0;
  let sum = 0;
  for (const [gram, count] of postingsOfGram) if (gram.startsWith(probe.prefix)) sum += count;
  return sum;
};

/** The probe of fewest postings in the seeded data, of these. */
const rarestProbe = (probes: readonly Probe[], postingsOfGram: ReadonlyMap<string, number>) =>
  probes
    .map((probe) => ({ probe, postings: postingsOfProbe(probe, postingsOfGram) }))
    .sort((a, b) => a.postings - b.postings)[0];

/** A probe's postings in each posting shard in the seeded data (its gram's, or its prefix's grams'). */
const shardPostingsOfProbe = (probe: Probe, shardsOfGram: ReadonlyMap<string, readonly number[]>) => {
  const sum = new Array<number>(PERSON_LIST_SHARDS).fill(0);
  for (const [gram, shards] of shardsOfGram)
    if (probe.kind === 'gram' ? gram === probe.gram : gram.startsWith(probe.prefix))
      for (const [shard, count] of shards.entries()) sum[shard] = (sum[shard] ?? 0) + count;
  return sum;
};

/** The shard of a posting's partition (`GRAM#<prefix>#<shard>`, keys.ts's postingPartition). */
const shardOfPostingKey = ({ pk }: { pk: string }) => Number(pk.slice(pk.lastIndexOf('#') + 1));

/** The average bytes of a probe's postings in the seeded data (its gram's, or its prefix's grams'). */
const postingBytesOfProbe = (
  probe: Probe,
  postingsOfGram: ReadonlyMap<string, number>,
  bytesOfGram: ReadonlyMap<string, number>,
) => {
  let bytes = 0;
  for (const [gram, sum] of bytesOfGram)
    if (probe.kind === 'gram' ? gram === probe.gram : gram.startsWith(probe.prefix)) bytes += sum;
  return bytes / Math.max(1, postingsOfProbe(probe, postingsOfGram));
};

/** A list's probe bar figures: its read from its cost line, its rarest probe from the seeded data. */
const probeBar = (
  parameters: Record<string, string>,
  cost: { samplePostings?: number; postingsRead?: number; queryRounds?: number; intersected?: string },
  postingsOfGram: ReadonlyMap<string, number>,
): ProbeBar => {
  const { filters } = personListRequest(ListPersonsQuery.parse(parameters));
  const { probes } = planQuery(filters);
  const rarest = rarestProbe(probes, postingsOfGram);
  if (!rarest) throw new Error(`No probe for ${JSON.stringify(parameters)}`);
  const intersected = new Set(cost.intersected?.split('; ') ?? []);
  return {
    rarest: describeProbe(rarest.probe),
    rarestPostings: rarest.postings,
    intersectedPostings: probes
      .filter((probe) => intersected.has(describeProbe(probe)))
      .reduce((sum, probe) => sum + postingsOfProbe(probe, postingsOfGram), 0),
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

/** A handler's answer, its body a string (a list handler may answer a bare string). */
const answerOf = (result: APIGatewayProxyResultV2) =>
  typeof result === 'string' ? { statusCode: 200, body: result } : result;

/**
 * A request answered `runs + 1` times: the first is a warm-up, and the one whose calls are recorded
 * (for capacity) and whose body is returned; the others are timed. `send` builds a fresh event each
 * time (API Gateway's request id and time are per request). Anything but 200 is an error.
 */
const timeRequest = async (
  instrument: Instrument,
  runs: number,
  what: string,
  send: () => Promise<APIGatewayProxyResultV2>,
) => {
  const latencies: number[] = [];
  const recording: RecordedCall[] = [];
  let body = '';
  for (let run = 0; run < runs + 1; run++) {
    if (run === 0) instrument.recording = recording;
    const begun = performance.now();
    const result = await send();
    const ms = performance.now() - begun;
    instrument.recording = undefined;
    const answer = answerOf(result);
    if (answer.statusCode !== 200) throw new Error(`${what}: ${answer.statusCode} ${answer.body}`);
    if (run === 0) body = answer.body ?? '';
    else latencies.push(ms);
  }
  return { body, recording, latency: summarise(latencies) };
};

/**
 * What the postings search of one fragment reads with complete counts: the counts of the probes it
 * sizes (every gram, 8 spread over a longer fragment's) and the mark, then the fewest-postings one whole.
 */
const fragmentModel = (fragment: string, postingsOfGram: ReadonlyMap<string, number>) => {
  const probes = probesToSample(planQuery({ search: fragment }));
  if (probes.length === 0) return 0;
  return probes.length + 1 + Math.min(...probes.map((probe) => postingsOfProbe(probe, postingsOfGram)));
};

type ReconcileAnswer = Record<string, { result: { id: string; match: boolean }[] }>;

/**
 * The reconciliation batch at one size: sent as OpenRefine sends it (a form-encoded POST of 10
 * queries) to the real handler, timed as the list rows are, and each query's cost taken from the
 * reader's own record (read again outside the timing: the handler logs it, the bench drops the logs).
 * The answers of the email and the absent person are checked: a bench that measures wrong answers
 * measures nothing.
 */
const runReconcileBatch = async (
  storage: Storage,
  instrument: Instrument,
  {
    persons,
    runs,
    idOf,
    indexEntryBytes,
    postingsOfGram,
  }: {
    persons: number;
    runs: number;
    idOf: ReadonlyMap<number, number>;
    indexEntryBytes: number;
    postingsOfGram: ReadonlyMap<string, number>;
  },
): Promise<ReconcileRow> => {
  const reader = reconcileReader(storage);
  const handler = reconcileHandler({ reader, visibility: ALL_VISIBLE });
  const keyOf = (index: number) => `q${index}`;
  const queries = Object.fromEntries(RECONCILE_QUERIES.map(({ request }, index) => [keyOf(index), request]));
  const { body, recording, latency } = await timeRequest(instrument, runs, 'POST /reconcile', () =>
    handler(
      httpEvent({
        method: 'POST',
        route: '/reconcile',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ queries: JSON.stringify(queries) }).toString(),
      }),
      lambdaContext('reconcile', 600_000),
    ),
  );
  const answers = JSON.parse(body) as ReconcileAnswer;
  const perQuery: ReconcileQueryCost[] = [];
  for (const [index, { query, about, request }] of RECONCILE_QUERIES.entries()) {
    const result = answers[keyOf(index)]?.result ?? [];
    const first = result[0];
    const expected = about === undefined ? undefined : idOf.get(about);
    if (about !== undefined && expected === undefined) throw new Error(`No id for seeded person ${about}`);
    const matchRequest = matchRequestOf(request, ALL_VISIBLE);
    const { cost, detail } = await reader.candidates(matchRequest);
    const searched = String(detail.searched ?? '')
      .split('|')
      .filter(Boolean);
    perQuery.push({
      query,
      itemsRead: cost.itemsRead,
      calls: cost.calls,
      fragments: Number(detail.fragments ?? 0),
      postingMatches: Number(detail.postingMatches ?? 0),
      read: Number(detail.read ?? 0),
      model:
        searched.reduce((sum, fragment) => sum + fragmentModel(fragment, postingsOfGram), 0) +
        Number(detail.read ?? 0) +
        matchRequest.emails.length,
      ...(expected === undefined ? {} : { top: first?.id === String(expected) }),
      match: first?.match === true,
    });
    if (query === RECONCILE_EMAIL_QUERY && !(first?.id === String(expected) && first.match))
      throw new Error(
        `${query} at ${persons} persons: not match: true on ${expected}: ${JSON.stringify(result)}`,
      );
    if (query === RECONCILE_ABSENT_QUERY && result.some(({ match }) => match))
      throw new Error(`${query} at ${persons} persons: a match: true: ${JSON.stringify(result)}`);
  }
  return {
    persons,
    queries: perQuery.length,
    itemsRead: perQuery.reduce((sum, row) => sum + row.itemsRead, 0),
    maxItemsRead: Math.max(...perQuery.map((row) => row.itemsRead)),
    calls: recording.length,
    rcu: capacityOf(recording, indexEntryBytes).rcu,
    latency,
    perQuery,
  };
};

/** The first seeded person with the planted last name (10 persons hold it from 1 000 persons on). */
const FIRST_PLANTED = Array.from({ length: 1_000 }, (_, n) => n).find(
  (n) => seedBody(n).Names['@set'][0]?.last_name === PLANTED_LAST_NAME,
) as number;

/** Items a recorded call returned: a Query's `Count`, a GetItem's `Item`, a BatchGetItem's `Responses`. */
const itemsReturned = ({ command, output }: RecordedCall) => {
  if (command === 'Query')
    return (output.Count as number | undefined) ?? ((output.Items ?? []) as unknown[]).length;
  if (command === 'GetItem') return output.Item ? 1 : 0;
  if (command === 'BatchGetItem')
    return Object.values((output.Responses ?? {}) as Record<string, unknown[]>).reduce(
      (sum, items) => sum + items.length,
      0,
    );
  return 0;
};

const meanMax = (values: readonly number[]): MeanMax => ({
  mean: round(values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length)),
  max: Math.max(...values),
});

/** Time a check may take before it gives up (`retrying`'s deadline): DynamoDB Local is slow at 100 000. */
const CHECK_BUDGET_MS = 60_000;

/**
 * The duplicates detector's check (lib/duplicates/detect-duplicates.ts `checkPerson`) of each seeded
 * person, once, its calls recorded: what it read (items returned, calls, read units), what it wrote
 * (the pairs it created or changed: write units), how long it took; and apart, outside the recording,
 * how many candidates the detector's read finds for a check of the person (not itself). The
 * detector's own dependencies on the bench's table, as the stack wires them.
 */
const runDuplicateChecks = async (
  storage: Storage,
  instrument: Instrument,
  { persons, subjects, warmUp }: { persons: number; subjects: ReadonlyMap<number, number>; warmUp: boolean },
): Promise<DuplicateCheckRow> => {
  const deps = { reads: duplicateReads(storage), pairs: pairStore(storage) };
  const ordered = [...subjects].sort(([a], [b]) => a - b);
  if (warmUp) for (const [, id] of ordered) await checkPerson(deps, id, Date.now() + CHECK_BUDGET_MS);
  const perCheck: DuplicateCheckCost[] = [];
  for (const [seed, personId] of ordered) {
    const stored = await deps.reads.stored(personId);
    if (!stored || isMergedPerson(stored) || isErasedPerson(stored))
      throw new Error(`Seeded person ${seed} (${personId}) is not live`);
    const candidates = (await deps.reads.candidates(matchRequestOfPerson(stored), personId)).length;
    const recording: RecordedCall[] = [];
    instrument.recording = recording;
    const begun = performance.now();
    let changes: Awaited<ReturnType<typeof checkPerson>>;
    try {
      changes = await checkPerson(deps, personId, Date.now() + CHECK_BUDGET_MS);
    } finally {
      instrument.recording = undefined;
    }
    const ms = performance.now() - begun;
    const { rcu, wcu } = capacityOf(recording, 0);
    const [name] = seedBody(seed).Names['@set'];
    perCheck.push({
      seed,
      personId,
      name: `${name?.first_name} ${name?.last_name}`,
      candidates,
      itemsRead: recording.reduce((sum, call) => sum + itemsReturned(call), 0),
      calls: recording.length,
      rcu,
      wcu,
      changes: changes.length,
      ms,
    });
  }
  const of = (figure: (check: DuplicateCheckCost) => number) => meanMax(perCheck.map(figure));
  const sum = (figure: (check: DuplicateCheckCost) => number) =>
    perCheck.reduce((total, check) => total + figure(check), 0);
  return {
    persons,
    checks: perCheck.length,
    candidates: of((check) => check.candidates),
    itemsRead: of((check) => check.itemsRead),
    calls: of((check) => check.calls),
    rcu: of((check) => check.rcu),
    wcu: of((check) => check.wcu),
    ms: of((check) => check.ms),
    itemsPerCandidate: ratio(
      sum((check) => check.itemsRead),
      Math.max(
        1,
        sum((check) => check.candidates),
      ),
    ),
    perCheck,
  };
};

/** Creates, PATCHes and GETs sent at each size for the capacity model's rows (issue #43). */
const MODEL_WRITES = 3;

/**
 * The writes the capacity model prices, sent at one size through their handlers, each recorded and
 * counted (the id block's UpdateItem left out: `isIdBlock`): a create of a person of one name and one
 * email, a PATCH of it adding `local-2@domain` (the model's PATCH) and a GET of it, by another person.
 * Their names hold none of the fragments the list rows filter on.
 */
const measureWrites = async (
  storage: Storage,
  instrument: Instrument,
  persons: number,
  requester: number,
): Promise<MeasuredWrite[]> => {
  const people = personRepository(storage);
  const handlers = {
    create: buildCreate({ persons: people }) as HttpFunction,
    patch: buildUpdate({ persons: people }) as HttpFunction,
    get: buildGet({ persons: people }) as HttpFunction,
  };
  const send = async (
    operation: MeasuredWrite['operation'],
    shape: PersonShape,
    spec: Parameters<typeof httpEvent>[0],
    expected: number,
  ) => {
    const recording: RecordedCall[] = [];
    instrument.recording = recording;
    const answer = answerOf(await handlers[operation](httpEvent(spec), lambdaContext(operation)));
    instrument.recording = undefined;
    if (answer.statusCode !== expected)
      throw new Error(`${operation} for the model: ${answer.statusCode} ${answer.body}`);
    const { rcu, wcu } = capacityOf(
      recording.filter((call) => !isIdBlock(call)),
      0,
    );
    return { write: { operation, shape, units: { rcu, wcu } }, body: answer.body ?? '' };
  };
  const measured: MeasuredWrite[] = [];
  for (let k = 0; k < MODEL_WRITES; k++) {
    const label = `model-${persons}-${k}`;
    const shape = {
      first_name: 'Capacity',
      last_name: `Model ${label}`,
      email: `${label}@bench.example.org`,
    };
    const [local, domain] = shape.email.split('@');
    const created = await send(
      'create',
      shape,
      {
        method: 'POST',
        route: '/Person',
        body: {
          Names: { '@set': [{ first_name: shape.first_name, last_name: shape.last_name }] },
          Emails: { '@set': [{ email: shape.email }] },
        },
        requester,
      },
      201,
    );
    const id = String((JSON.parse(created.body) as { id: number | string }).id);
    const path = { path: `/Person/${id}`, pathParameters: { id } };
    // The GET first: it reads the person as the create left it, as the model's GET does.
    const got = await send('get', shape, { method: 'GET', route: '/Person/{id}', ...path }, 200);
    const patched = await send(
      'patch',
      shape,
      {
        method: 'PATCH',
        route: '/Person/{id}',
        ...path,
        body: { Emails: { '@set': [{ email: `${local}-2@${domain}` }] } },
        requester,
      },
      200,
    );
    measured.push(created.write, got.write, patched.write);
  }
  return measured;
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
    candidates?: number;
    intersected?: string;
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
  /** Bytes of those postings per gram, as stored: the capacity model reads them at their size. */
  const bytesOfGram = new Map<string, number>();
  /** Those postings per gram in each posting shard: the model charges each shard's Query on its own. */
  const shardsOfGram = new Map<string, number[]>();
  const model: ModelRow[] = [];
  let requester: number | undefined;

  const rows: ScaleRow[] = [];
  const reconcile: ReconcileRow[] = [];
  const duplicateChecks: DuplicateCheckRow[] = [];
  /** The ids of the seeded persons the reconciliation batch is about, by their seed index. */
  const idOf = new Map<number, number>();
  const about = new Set(
    RECONCILE_QUERIES.flatMap((query) => (query.about === undefined ? [] : [query.about])),
  );
  /** The persons the duplicate checks are about: those, and the first of the planted name's 10. */
  const checkedPersons = new Set([...about, FIRST_PLANTED]);
  const checkIdOf = new Map<number, number>();
  const seedSeconds: Record<string, number> = {};
  const seedItems: Record<string, number> = {};
  const dynamoMemoryMiB: ScaleSection['dynamoMemoryMiB'] = {};
  let seeded = 0;
  let indexEntryBytes = 0;
  for (const size of config.scale.sizes) {
    const started = performance.now();
    let reported = 0;
    const from = seeded;
    const ids = await seedPersons(storage, {
      from,
      count: size - seeded,
      countPostings: true,
      claimed: (n) => RECONCILE_CLAIMED.has(n),
      seeded: (person) => {
        for (const { gram } of postingsOf(searchTerms(person)))
          postingsOfGram.set(gram, (postingsOfGram.get(gram) ?? 0) + 1);
        for (const posting of postingItemsOf(person)) {
          const gram = gramOfPostingKey(posting) as string;
          bytesOfGram.set(gram, (bytesOfGram.get(gram) ?? 0) + itemSize(posting as never));
          const shards = shardsOfGram.get(gram) ?? new Array<number>(PERSON_LIST_SHARDS).fill(0);
          const shard = shardOfPostingKey(posting);
          shards[shard] = (shards[shard] ?? 0) + 1;
          shardsOfGram.set(gram, shards);
        }
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
    for (const [offset, id] of ids.entries()) {
      if (about.has(from + offset)) idOf.set(from + offset, id);
      if (checkedPersons.has(from + offset)) checkIdOf.set(from + offset, id);
    }
    requester ??= ids[0];
    seeded = size;
    seedSeconds[size] = Number(((performance.now() - started) / 1000).toFixed(1));
    dynamoMemoryMiB[size] = memoryOf(dynamoPid);
    log(
      `scale: ${size} persons (seeded in ${seedSeconds[size]} s, ${seedItems[size]} items; DynamoDB Local ${dynamoMemoryMiB[size]?.resident} MiB)`,
    );
    indexEntryBytes = await averageIndexEntryBytes(storage);
    const runs = size === config.scale.sizes.at(-1) ? config.scale.runsAtLargest : config.scale.runs;

    const list = (parameters: Record<string, string>) =>
      handler(
        httpEvent({
          method: 'GET',
          route: '/Person',
          ...(Object.keys(parameters).length > 0 ? { query: parameters } : {}),
        }),
        // Long enough for DynamoDB Local's slow pages at 100 000 persons (the stack gives a function 10 s).
        lambdaContext('list-persons', 600_000),
      );
    // Before the first size's rows, every query a few times untimed: the first rows of a run would
    // otherwise measure the JIT and DynamoDB Local warming up (the planted row took 3× longer at 1 000
    // persons than at 100 000); a cold container is the cold start section's to measure.
    if (size === config.scale.sizes[0])
      for (let pass = 0; pass < config.scale.warmUpPasses; pass++)
        for (const { parameters } of queries) await list(parameters);

    for (const { query, parameters } of queries) {
      const { body, recording, latency } = await timeRequest(instrument, runs, `GET /Person ${query}`, () =>
        list(parameters),
      );
      if (!cost) throw new Error('The list logged no cost');
      const { rcu, bytesRead } = capacityOf(recording, indexEntryBytes);
      rows.push({
        query,
        persons: size,
        count: (JSON.parse(body || '{}') as { Pagination: { count: number } }).Pagination.count,
        source: cost.source,
        ...(cost.probe
          ? { probe: cost.probe, probePostings: cost.probePostings, candidates: cost.candidates }
          : {}),
        itemsRead: cost.itemsRead,
        calls: cost.calls,
        rcu,
        bytesRead,
        latency,
        ...(cost.source === 'postings'
          ? {
              bar: probeBar(parameters, cost, postingsOfGram),
              emptyQueries: recording.filter(
                ({ command, input, output }) =>
                  command === 'Query' && !input.IndexName && (output.ScannedCount ?? 0) === 0,
              ).length,
            }
          : {}),
      });
    }

    const batch = await runReconcileBatch(storage, instrument, {
      persons: size,
      runs,
      idOf,
      indexEntryBytes,
      postingsOfGram,
    });
    reconcile.push(batch);
    log(
      `scale: reconciliation batch of ${batch.queries} at ${size} persons: ${batch.itemsRead} items read ` +
        `(at most ${batch.maxItemsRead} by one query), ${batch.calls} calls, ${batch.rcu} RCU, ${round(batch.latency.median)} ms`,
    );

    // One duplicate check of each of those persons (issue #57): warmed up once at the first size, as
    // the list rows are (the warm-up's check writes the pairs it finds, so the first size's recorded
    // check finds them written; a later size's may create the pairs of its new namesakes).
    const checks = await runDuplicateChecks(storage, instrument, {
      persons: size,
      subjects: checkIdOf,
      warmUp: size === config.scale.sizes[0],
    });
    duplicateChecks.push(checks);
    log(
      `scale: ${checks.checks} duplicate checks at ${size} persons: ${checks.candidates.mean} candidates, ` +
        `${checks.itemsRead.mean} items read (${checks.itemsPerCandidate} per candidate), ${checks.calls.mean} calls, ` +
        `${checks.rcu.mean} RCU, ${checks.wcu.mean} WCU, ${round(checks.ms.mean)} ms a check (means)`,
    );

    // The capacity model (issue #43) against this size's list rows (the writes come at the largest).
    const seededShape = shapeOf(size - 1);
    const firstPage = rows.find((row) => row.query === 'first page' && row.persons === size);
    if (firstPage)
      model.push(firstPageRow(size, seededShape, indexEntryBytes, { rcu: firstPage.rcu, wcu: 0 }));
    for (const { query, parameters } of queries) {
      const row = rows.find((entry) => entry.query === query && entry.persons === size);
      if (row?.source !== 'postings' || !row.bar) continue;
      const { filters } = personListRequest(ListPersonsQuery.parse(parameters));
      const plan = planQuery(filters);
      const rarest = rarestProbe(plan.probes, postingsOfGram);
      if (!rarest) continue;
      const others = plan.filters.filter((filter) => filter !== rarest.probe.filter);
      model.push(
        filteredRow(query, size, {
          seededShape,
          fragment: rarest.probe.filter.fragment,
          rarestPostings: rarest.postings,
          shardPostings: shardPostingsOfProbe(rarest.probe, shardsOfGram),
          postingBytes: postingBytesOfProbe(rarest.probe, postingsOfGram, bytesOfGram),
          candidates: row.candidates ?? rarest.postings,
          // With one other filter its share of the candidates moves no unit (nothing is applied after
          // it); with more, the bench would need each one's share, which it does not count. Each is
          // sized by its own rarest probe in the seeded data, as the counts size it for the list.
          others: others.map((filter) => {
            const probe = rarestProbe(
              plan.probes.filter((each) => each.filter === filter),
              postingsOfGram,
            );
            return {
              length: Array.from(filter.fragment).length,
              holding: row.count / Math.max(1, row.candidates ?? rarest.postings),
              ...(probe
                ? {
                    postings: probe.postings,
                    shardPostings: shardPostingsOfProbe(probe.probe, shardsOfGram),
                    postingBytes: postingBytesOfProbe(probe.probe, postingsOfGram, bytesOfGram),
                  }
                : {}),
            };
          }),
          measured: { rcu: row.rcu, wcu: 0 },
          emptyQueries: row.emptyQueries ?? 0,
          ...(others.length > 1
            ? {
                excluded: `${plan.filters.length} filters: the bench does not count the share of candidates each holds`,
              }
            : {}),
        }),
      );
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
  // The writes the model prices, once every list has read the seeded persons only (their counts are
  // the sizes): at the largest size, the ids as long as the population's.
  if (requester === undefined) throw new Error('No seeded person to send the writes as');
  model.push(...writeRows(last, await measureWrites(storage, instrument, last, requester)));
  const checked = model.filter((row) => !row.excluded);
  log(
    `scale: capacity model: ${checked.length} rows within ${Math.max(...checked.map((row) => row.differencePct))}% ` +
      `of the counted units (${model.length - checked.length} left out)`,
  );
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
    reconcile,
    duplicateChecks,
    ...(constant ? { constant } : {}),
    model,
  };
};

/** The n-th seeded person as the capacity model takes a person: its one name and its one email. */
const shapeOf = (n: number): PersonShape => {
  const { Names, Emails } = seedBody(n);
  const [name] = Names['@set'];
  const [email] = Emails['@set'];
  return {
    first_name: name?.first_name ?? '',
    last_name: name?.last_name ?? '',
    email: email?.email ?? '',
  };
};
