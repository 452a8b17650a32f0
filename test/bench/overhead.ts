/**
 * Sections 1 and 2: each operation (a) through the local HTTP server, (b) by calling its handler with
 * an API Gateway event and (c) as the raw DynamoDB calls it needs, sent with the same client to the
 * same DynamoDB Local: the floor. The three are interleaved (rotating order) in every iteration, so
 * load and warm-up hit them alike. Then, per operation, the calls it made and the capacity it costs.
 */
import { Agent, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { buildHandler as buildGet } from '../../functions/get-person';
import { buildHandler as buildList } from '../../functions/list-persons';
import { buildHandler as buildUpdate } from '../../functions/update-person';
import { fromPersonItem } from '../../lib/db/person/person-items';
import { MAX_QUERY_LIMIT } from '../../lib/db/person/read/list-reads';
import { buildListQuery, countPersons, personList } from '../../lib/db/person/read/person-list';
import {
  buildProbeQuery,
  probeText,
  SAMPLE_PER_SHARD,
  searchPostings,
} from '../../lib/db/person/read/posting-search';
import {
  CREATE,
  idsToReserve,
  personWrite,
  planIds,
  planPersonWrite,
  type WriteStart,
} from '../../lib/db/person/write/person-write';
import { personRepository } from '../../lib/db/person-repository';
import type { Storage } from '../../lib/db/table/client';
import {
  idCounterKey,
  PERSON_COUNTER_KEYS,
  PERSON_LIST_PARTITIONS,
  PERSON_LIST_SHARDS,
  personKey,
} from '../../lib/db/table/keys';
import { idAllocator, type ReservedIds } from '../../lib/db/write/ids';
import { ListPersonsQuery, personListRequest } from '../../lib/domain/listing';
import { NO_ABBREVIATIONS } from '../../lib/domain/person';
import { CreatePersonBody, PatchPersonBody, type PersonBody } from '../../lib/domain/schemas';
import { type Probe, planQuery, probesToSample, samplingShard, valuesMatch } from '../../lib/domain/search';
import { lambdaContext } from '../../lib/local/lambda-context';
import { createLocalServer, type HttpFunction } from '../../lib/local/server';
import { type EventSpec, httpEvent } from '../support/events';
import {
  type Capacity,
  capacityOf,
  type Instrument,
  newTally,
  type RecordedCall,
  type Tally,
} from './capacity';
import type { BenchConfig } from './config';
import { averageIndexEntryBytes, COMMON_FIRST_NAME, seedPersons } from './seed';
import { ratio, type Summary, summarise, timed } from './stats';

export const OPERATIONS = ['create', 'get', 'patch', 'list', 'list-filtered'] as const;
export type OperationName = (typeof OPERATIONS)[number];
const MODES = ['http', 'handler', 'floor'] as const;
type Mode = (typeof MODES)[number];
/** Each iteration runs the three modes in a rotating order. */
const ORDERS: readonly (readonly Mode[])[] = [
  ['http', 'handler', 'floor'],
  ['handler', 'floor', 'http'],
  ['floor', 'http', 'handler'],
];

export interface OperationResult {
  operation: OperationName;
  request: string;
  /** What the floor sends. */
  floorCalls: string;
  iterations: number;
  http: Summary;
  handler: Summary;
  floor: Summary;
  /** Median ratios. */
  handlerOverFloor: number;
  httpOverFloor: number;
  /** Median overheads in ms. */
  handlerMinusFloorMs: number;
  httpMinusFloorMs: number;
  /** DynamoDB calls per operation, averaged over the measured iterations. */
  calls: Record<Mode, number>;
  /** The handler's calls per operation by command. */
  callsByCommand: Record<string, number>;
  /** Computed capacity per operation (handler), and what DynamoDB Local reported for the same calls. */
  capacity: Capacity;
  accountingRuns: number;
}

export interface OverheadSection {
  tablePersons: number;
  indexEntryBytes: number;
  operations: OperationResult[];
}

/** The local HTTP server, kept for the throughput section. */
export interface BenchServer {
  url: string;
  getPath: string;
  filteredListPath: string;
  close(): Promise<void>;
}

interface Operation {
  name: OperationName;
  request: string;
  floorCalls: string;
  iterations: number;
  run: Record<Mode, () => Promise<number>>;
}

interface Answer {
  status: number;
  body: string;
}

const expectStatus = (what: string, expected: number, { status, body }: Answer) => {
  if (status !== expected)
    throw new Error(`${what}: expected ${expected}, got ${status}: ${body.slice(0, 500)}`);
};

const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };

export const runOverhead = async (
  storage: Storage,
  instrument: Instrument,
  config: BenchConfig,
  log: (message: string) => void,
): Promise<{ section: OverheadSection; server: BenchServer }> => {
  const { client, tableName } = storage;
  const runId = Date.now().toString(36);
  let unique = 0;
  const tag = (label: string) => `${label}-${runId}-${++unique}`;

  // The table: persons to read, list and patch (each patch target is patched once, so every patch
  // adds one email to a one-email person), plus what the creates add as they go.
  const { iterations, warmup, accountingRuns } = config.overhead;
  const patchTargets = 3 * (iterations + warmup) + accountingRuns + 1;
  const seeded = Math.max(config.overhead.persons, patchTargets + 10);
  log(`overhead: seeding ${seeded} persons`);
  const ids = await seedPersons(storage, { from: 0, count: seeded, countPostings: true });
  const [requester, ...pool] = ids as [number, ...number[]];
  let nextTarget = 0;
  const patchTarget = () => {
    const id = pool[nextTarget++];
    if (id === undefined) throw new Error('Out of patch targets');
    return id;
  };
  const readTarget = (n: number) => pool[(n * 7919) % pool.length] as number;

  // The handlers, wired to this client exactly as functions/*.ts wire theirs to the one from-env.ts
  // builds. The server's and the direct calls' are built apart, like two containers: each has its own
  // id block, so each pays its own share of id allocation.
  const buildHandlers = (): Record<string, HttpFunction> => {
    const persons = personRepository(storage);
    return {
      'create-person': buildCreate({ persons }) as HttpFunction,
      'get-person': buildGet({ persons }) as HttpFunction,
      'update-person': buildUpdate({ persons }) as HttpFunction,
      'list-persons': buildList({ personList: personList(storage) }) as HttpFunction,
    };
  };
  const handlers = buildHandlers();
  const served = buildHandlers();
  const server: Server = createLocalServer({
    load: async (name) => {
      const handler = served[name];
      if (!handler) throw new Error(`The benchmark serves no ${name}`);
      return handler;
    },
    onError: (error) => log(`server: ${String(error)}`),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const http = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<Answer>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent,
          headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });

  /** (b): the event is built before the clock starts, as Lambda hands it over ready. */
  const invoke = async (name: string, spec: EventSpec, expected: number) => {
    const event = httpEvent(spec);
    const context = lambdaContext(name);
    const handler = handlers[name] as HttpFunction;
    const started = performance.now();
    const result = await handler(event, context);
    const ms = performance.now() - started;
    const answer = typeof result === 'string' ? { statusCode: 200, body: result } : result;
    expectStatus(`${name} handler`, expected, { status: answer.statusCode ?? 0, body: answer.body ?? '' });
    return ms;
  };

  // The floor's own id blocks, as a container allocates them: one UpdateItem per 50 ids.
  const floorIds = idAllocator(client, tableName);
  /** The transaction the repository would send for this write: the floor sends it alone. */
  const floorWrite = (start: WriteStart, body: PersonBody, reserved: ReservedIds) =>
    personWrite(
      tableName,
      planPersonWrite({
        tableName,
        start,
        body,
        requester,
        now: new Date().toISOString(),
        ...planIds(reserved),
        abbreviations: NO_ABBREVIATIONS,
      }),
      'bench',
    ).write;
  const createBody = (label: string) => ({
    Names: { '@set': [{ first_name: 'Bench', last_name: `Create ${label}` }] },
    Emails: { '@set': [{ email: `${label}@bench.example.org` }] },
  });
  const patchBody = (label: string) => ({ Emails: { '@set': [{ email: `${label}@bench.example.org` }] } });
  const filteredQuery = { first_name: COMMON_FIRST_NAME.toLowerCase() };
  const filteredRequest = personListRequest(ListPersonsQuery.parse(filteredQuery));
  const unfilteredRequest = personListRequest(ListPersonsQuery.parse({}));
  const listQueries = PERSON_LIST_PARTITIONS.map((partition) =>
    buildListQuery(tableName, partition, {}, false),
  );
  // The filtered list reads postings (lib/db/person/read/posting-search.ts): a sample of each of its probes
  // in one shard (when it has more than one), then the one the samples show smallest whole.
  const filteredPlan = planQuery(filteredRequest.filters);
  const { detail } = await searchPostings(storage, filteredPlan, filteredRequest);
  const sampled = probesToSample(filteredPlan);
  const whole = sampled.find(
    (probe) => detail?.probe === `${probe.filter.filter} ${JSON.stringify(probeText(probe))}`,
  );
  if (!whole) throw new Error(`The filtered list read ${detail?.probe}, not one of the probes it samples`);
  const query = (probe: Probe, shard: number, limit: number, startKey?: Record<string, unknown>) =>
    client.send(
      new QueryCommand({
        ...buildProbeQuery(tableName, probe, shard),
        Limit: limit,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
  // Projected as the list asks: a posting without a value in the filter's fields has none.
  const matchesIn = (items: Record<string, unknown>[] | undefined) =>
    (items ?? []).filter((item) => valuesMatch(whole.filter, (item.values ?? {}) as never)).length;
  /** Every match of the filter: the samples and the id counter, then the probe chosen read whole. */
  const readAllMatches = async () => {
    const cursors = new Map<number, Record<string, unknown> | undefined>();
    let matches = 0;
    if (sampled.length > 1)
      await Promise.all([
        client.send(new GetCommand({ TableName: tableName, Key: idCounterKey })),
        ...sampled.map(async (probe) => {
          const shard = samplingShard(probe.filter, PERSON_LIST_SHARDS);
          const page = await query(probe, shard, SAMPLE_PER_SHARD);
          if (probe !== whole) return;
          matches += matchesIn(page.Items);
          cursors.set(shard, page.LastEvaluatedKey);
        }),
      ]);
    await Promise.all(
      Array.from({ length: PERSON_LIST_SHARDS }, async (_, shard) => {
        if (cursors.has(shard) && !cursors.get(shard)) return;
        let startKey = cursors.get(shard);
        do {
          const page = await query(whole, shard, MAX_QUERY_LIMIT, startKey);
          matches += matchesIn(page.Items);
          startKey = page.LastEvaluatedKey;
        } while (startKey);
      }),
    );
    return matches;
  };

  const operations: Operation[] = [
    {
      name: 'create',
      request: 'POST /Person (one name, one email)',
      floorCalls:
        'TransactWriteItems (person, audit entry, email claim, person counter, requester check) + its share of the id block UpdateItem',
      iterations,
      run: {
        http: async () => {
          const body = JSON.stringify(createBody(tag('http')));
          return timed(async () =>
            expectStatus(
              'POST /Person',
              201,
              await http(
                'POST',
                '/Person',
                { ...JSON_HEADERS, 'x-requester-person': String(requester) },
                body,
              ),
            ),
          );
        },
        handler: () =>
          invoke(
            'create-person',
            { method: 'POST', route: '/Person', body: createBody(tag('handler')), requester },
            201,
          ),
        floor: async () => {
          const body = CreatePersonBody.parse(createBody(tag('floor')));
          const allocation = performance.now();
          const reserved = await floorIds.reserve(idsToReserve('create', body));
          let ms = performance.now() - allocation;
          const { input } = floorWrite(CREATE, body, reserved);
          ms += await timed(() => client.send(new TransactWriteCommand(input)));
          return ms;
        },
      },
    },
    {
      name: 'get',
      request: 'GET /Person/{id}',
      floorCalls: 'GetItem (consistent)',
      iterations,
      run: {
        http: async () => {
          const id = readTarget(unique++);
          return timed(async () =>
            expectStatus('GET /Person/{id}', 200, await http('GET', `/Person/${id}`, JSON_HEADERS)),
          );
        },
        handler: () => {
          const id = readTarget(unique++);
          return invoke(
            'get-person',
            {
              method: 'GET',
              route: '/Person/{id}',
              path: `/Person/${id}`,
              pathParameters: { id: String(id) },
            },
            200,
          );
        },
        floor: () => {
          const id = readTarget(unique++);
          return timed(() =>
            client.send(new GetCommand({ TableName: tableName, Key: personKey(id), ConsistentRead: true })),
          );
        },
      },
    },
    {
      name: 'patch',
      request: 'PATCH /Person/{id} adding one email (requester another person)',
      floorCalls:
        'BatchGetItem (person and requester, consistent) with its share of the id block UpdateItem in parallel, then TransactWriteItems (person, audit entry, email claim)',
      iterations,
      run: {
        http: async () => {
          const id = patchTarget();
          const body = JSON.stringify(patchBody(tag('http')));
          return timed(async () =>
            expectStatus(
              'PATCH /Person/{id}',
              200,
              await http(
                'PATCH',
                `/Person/${id}`,
                { ...JSON_HEADERS, 'x-requester-person': String(requester) },
                body,
              ),
            ),
          );
        },
        handler: () => {
          const id = patchTarget();
          return invoke(
            'update-person',
            {
              method: 'PATCH',
              route: '/Person/{id}',
              path: `/Person/${id}`,
              pathParameters: { id: String(id) },
              body: patchBody(tag('handler')),
              requester,
            },
            200,
          );
        },
        floor: async () => {
          const id = patchTarget();
          const body = PatchPersonBody.parse(patchBody(tag('floor')));
          const read = performance.now();
          const [reserved, { Responses }] = await Promise.all([
            floorIds.reserve(idsToReserve('update', body)),
            client.send(
              new BatchGetCommand({
                RequestItems: {
                  [tableName]: { Keys: [personKey(id), personKey(requester)], ConsistentRead: true },
                },
              }),
            ),
          ]);
          let ms = performance.now() - read;
          const item = Responses?.[tableName]?.find((found) => found.pk === personKey(id).pk);
          if (!item) throw new Error(`floor patch: person ${id} not found`);
          const stored = fromPersonItem(item);
          const { input } = floorWrite({ kind: 'update', stored, pending: null }, body, reserved);
          ms += await timed(() => client.send(new TransactWriteCommand(input)));
          return ms;
        },
      },
    },
    {
      name: 'list',
      request: `GET /Person (first page, limit ${unfilteredRequest.window.limit})`,
      floorCalls:
        'BatchGetItem (person counters) and a Query of each index partition (Limit = its share of the page), in parallel',
      iterations,
      run: {
        http: () =>
          timed(async () => expectStatus('GET /Person', 200, await http('GET', '/Person', JSON_HEADERS))),
        handler: () => invoke('list-persons', { method: 'GET', route: '/Person' }, 200),
        floor: () =>
          timed(() =>
            Promise.all([
              client.send(
                new BatchGetCommand({
                  RequestItems: { [tableName]: { Keys: [...PERSON_COUNTER_KEYS] } },
                  ReturnConsumedCapacity: 'TOTAL',
                }),
              ),
              ...listQueries.map((query) =>
                client.send(
                  new QueryCommand({
                    ...query,
                    Limit: Math.ceil(unfilteredRequest.window.limit / PERSON_LIST_SHARDS) + 1,
                  }),
                ),
              ),
            ]),
          ),
      },
    },
    {
      name: 'list-filtered',
      request: `GET /Person?first_name=${filteredQuery.first_name} (first page, 20% of persons match)`,
      floorCalls:
        'Query of the postings of the probe the list reads whole in each of the 8 shards, to its end (Limit 5 000); when the list samples another probe too, 32 of its postings in each shard and the id counter GetItem; all at once',
      iterations: config.overhead.filteredIterations,
      run: {
        http: () =>
          timed(async () =>
            expectStatus(
              'GET /Person?first_name',
              200,
              await http('GET', `/Person?${new URLSearchParams(filteredQuery)}`, JSON_HEADERS),
            ),
          ),
        handler: () => invoke('list-persons', { method: 'GET', route: '/Person', query: filteredQuery }, 200),
        floor: () => timed(readAllMatches),
      },
    },
  ];

  // The floor must fetch what the handler does: same matches for the filtered list.
  const listed = await handlers['list-persons']?.(
    httpEvent({ method: 'GET', route: '/Person', query: filteredQuery }),
    lambdaContext('list-persons'),
  );
  const listedCount = (JSON.parse((listed as { body: string }).body) as { Pagination: { count: number } })
    .Pagination.count;
  const floorCount = await readAllMatches();
  if (listedCount !== floorCount)
    throw new Error(`The filtered floor finds ${floorCount} matches, the handler ${listedCount}`);

  const results: OperationResult[] = [];
  for (const operation of operations) {
    log(`overhead: ${operation.name} × ${operation.iterations} (+${warmup} warm-up) in each of a, b, c`);
    const samples: Record<Mode, number[]> = { http: [], handler: [], floor: [] };
    const tallies: Record<Mode, Tally> = { http: newTally(), handler: newTally(), floor: newTally() };
    for (let k = 0; k < warmup + operation.iterations; k++) {
      const measured = k >= warmup;
      for (const mode of ORDERS[k % ORDERS.length] as Mode[]) {
        instrument.tally = measured ? tallies[mode] : undefined;
        const ms = await operation.run[mode]();
        instrument.tally = undefined;
        if (measured) samples[mode].push(ms);
      }
    }

    // Accounting: the handler again, each call recorded in full, capacity computed per operation.
    const indexEntryBytes = await averageIndexEntryBytes(storage);
    const runs = operation.name.startsWith('list') ? Math.min(accountingRuns, 5) : accountingRuns;
    const total: Capacity = { rcu: 0, wcu: 0, postingsWcu: 0, idempotencyWcu: 0, reported: 0, bytesRead: 0 };
    for (let n = 0; n < runs; n++) {
      const recording: RecordedCall[] = [];
      instrument.recording = recording;
      await operation.run.handler();
      instrument.recording = undefined;
      const capacity = capacityOf(recording, indexEntryBytes);
      for (const measure of Object.keys(total) as (keyof Capacity)[]) total[measure] += capacity[measure];
    }

    const [http, handler, floor] = MODES.map((mode) => summarise(samples[mode])) as [
      Summary,
      Summary,
      Summary,
    ];
    const perOperation = (count: number) => Number((count / operation.iterations).toFixed(3));
    results.push({
      operation: operation.name,
      request: operation.request,
      floorCalls: operation.floorCalls,
      iterations: operation.iterations,
      http,
      handler,
      floor,
      handlerOverFloor: ratio(handler.median, floor.median),
      httpOverFloor: ratio(http.median, floor.median),
      handlerMinusFloorMs: Number((handler.median - floor.median).toFixed(3)),
      httpMinusFloorMs: Number((http.median - floor.median).toFixed(3)),
      calls: {
        http: perOperation(tallies.http.calls),
        handler: perOperation(tallies.handler.calls),
        floor: perOperation(tallies.floor.calls),
      },
      callsByCommand: Object.fromEntries(
        Object.entries(tallies.handler.byCommand).map(([command, count]) => [command, perOperation(count)]),
      ),
      capacity: Object.fromEntries(
        Object.entries(total).map(([measure, sum]) => [measure, Number((sum / runs).toFixed(2))]),
      ) as unknown as Capacity,
      accountingRuns: runs,
    });
  }

  return {
    section: {
      tablePersons: await countPersons(storage),
      indexEntryBytes: Math.round(await averageIndexEntryBytes(storage)),
      operations: results,
    },
    server: {
      url: `http://127.0.0.1:${port}`,
      getPath: `/Person/${readTarget(1)}`,
      filteredListPath: `/Person?${new URLSearchParams(filteredQuery)}`,
      close: async () => {
        agent.destroy();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      },
    },
  };
};
