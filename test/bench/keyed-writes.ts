/**
 * Section 6: what an `Idempotency-Key` costs (issue #34). POST /Person and PATCH /Person/{id} through
 * the real handlers, wired as functions/*.ts wire theirs (the person repository on the document
 * client, the idempotency store on the raw client under it, lib/db/from-env.ts), each sent
 * - unkeyed: no header, the write as it was;
 * - keyed: a fresh key, so the first time: Powertools' in-progress record, the write, the answer stored;
 * - replay: the keyed request sent again, same key and body: answered from the record, nothing written;
 *   its answer is a Person, so the person is read (one consistent read) to answer 410 if erased since.
 * Unkeyed and keyed alternate which goes first in every iteration, so load and warm-up hit them alike;
 * the replay follows them. Then each variant again with every call recorded, for its capacity.
 * Unkeyed and keyed writes go to handlers built apart, like two containers, each with its own id block,
 * so each pays the same share of id allocation; their names and emails are of one length, so their
 * search postings cost alike (the difference is reported without them anyway: they follow the text).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { buildHandler as buildUpdate } from '../../functions/update-person';
import { idempotencyStore } from '../../lib/db/idempotency/idempotency-store';
import { countPersons } from '../../lib/db/person/read/person-list';
import { personRepository } from '../../lib/db/person-repository';
import type { Storage } from '../../lib/db/table/client';
import { itemSize } from '../../lib/db/table/item-size';
import { lambdaContext } from '../../lib/local/lambda-context';
import type { HttpFunction } from '../../lib/local/server';
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
import { seedPersons } from './seed';
import { type Summary, summarise } from './stats';

export const KEYED_OPERATIONS = ['create', 'patch'] as const;
export const VARIANTS = ['unkeyed', 'keyed', 'replay'] as const;
export type Variant = (typeof VARIANTS)[number];

export interface KeyedRow {
  operation: (typeof KEYED_OPERATIONS)[number];
  variant: Variant;
  request: string;
  iterations: number;
  latency: Summary;
  /** DynamoDB calls per request, averaged over the measured iterations. */
  calls: number;
  /** The same by command; the idempotency record's calls named so. */
  callsByCommand: Record<string, number>;
  /** Computed per request over the accounting runs (`idempotencyWcu`: the record's share). */
  capacity: Capacity;
  accountingRuns: number;
  /** Persons the variant's accounting runs left in the table beyond those before them, per request. */
  personsCreated: number;
  /** The size of the key's record the replay found (with the first answer in it), in bytes. */
  recordBytes: number;
}

/** A variant less the unkeyed write of the same operation, per request. */
export interface KeyedDifference {
  operation: KeyedRow['operation'];
  variant: Exclude<Variant, 'unkeyed'>;
  calls: number;
  /**
   * Write units less those of the search postings, whose number follows the text of the names and
   * emails written (each request's own), not the key.
   */
  wcu: number;
  rcu: number;
  medianMs: number;
  p99Ms: number;
}

export interface KeyedSection {
  tablePersons: number;
  rows: KeyedRow[];
  differences: KeyedDifference[];
}

const REPLAYED = 'idempotent-replayed';

export const runKeyedWrites = async (
  storage: Storage,
  raw: DynamoDBClient,
  instrument: Instrument,
  config: BenchConfig,
  log: (message: string) => void,
): Promise<KeyedSection> => {
  const { iterations, warmup, accountingRuns } = config.keyed;
  const runId = Date.now().toString(36);
  let unique = 0;
  /** Labels of one length (a letter, the run, a counter), so variants' names hold alike many grams. */
  const tag = (letter: string) => `${letter}${runId}${String(++unique).padStart(6, '0')}`;

  // Patch targets: the unkeyed and the keyed patch each take a person of their own (each patched
  // once, so every patch adds one email to a one-email person); the replay patches the keyed one's.
  const targets = 2 * (warmup + iterations + accountingRuns) + 1;
  log(`keyed writes: seeding ${targets} persons`);
  const [requester, ...pool] = (await seedPersons(storage, { from: 0, count: targets })) as [
    number,
    ...number[],
  ];
  let nextTarget = 0;
  const patchTarget = () => {
    const id = pool[nextTarget++];
    if (id === undefined) throw new Error('Out of patch targets');
    return id;
  };

  const idempotency = { store: idempotencyStore({ client: raw, tableName: storage.tableName }) };
  const buildHandlers = (): Record<KeyedRow['operation'], HttpFunction> => {
    const persons = personRepository(storage);
    return {
      create: buildCreate({ persons, idempotency }) as HttpFunction,
      patch: buildUpdate({ persons, idempotency }) as HttpFunction,
    };
  };
  /** The replay is answered by the keyed write's handler (any would do: the record is in the table). */
  const keyedHandlers = buildHandlers();
  const handlers: Record<Variant, Record<KeyedRow['operation'], HttpFunction>> = {
    unkeyed: buildHandlers(),
    keyed: keyedHandlers,
    replay: keyedHandlers,
  };

  /** The handler with an event built before the clock starts; its answer checked after it stops. */
  const invoke = async (
    operation: KeyedRow['operation'],
    variant: Variant,
    spec: EventSpec,
    expected: number,
  ) => {
    const event = httpEvent(spec);
    const context = lambdaContext(`${operation}-person`);
    const started = performance.now();
    const result = (await handlers[variant][operation](event, context)) as APIGatewayProxyStructuredResultV2;
    const ms = performance.now() - started;
    const replay = variant === 'replay';
    const replayed = result.headers?.[REPLAYED] === 'true';
    if (result.statusCode !== expected || replayed !== replay)
      throw new Error(
        `${spec.method} ${spec.route}${replay ? ' (replay)' : ''}: expected ${expected}${replay ? ' replayed' : ''}, ` +
          `got ${result.statusCode}${replayed ? ' replayed' : ''}: ${String(result.body).slice(0, 500)}`,
      );
    return ms;
  };

  const createSpec = (label: string, headers: Record<string, string>): EventSpec => ({
    method: 'POST',
    route: '/Person',
    body: {
      Names: { '@set': [{ first_name: 'Bench', last_name: `Keyed ${label}` }] },
      Emails: { '@set': [{ email: `${label}@bench.example.org` }] },
    },
    requester,
    headers,
  });
  const patchSpec = (label: string, headers: Record<string, string>): EventSpec => {
    const id = patchTarget();
    return {
      method: 'PATCH',
      route: '/Person/{id}',
      path: `/Person/${id}`,
      pathParameters: { id: String(id) },
      body: { Emails: { '@set': [{ email: `${label}@bench.example.org` }] } },
      requester,
      headers,
    };
  };
  const operations = {
    create: { request: 'POST /Person (one name, one email)', spec: createSpec, status: 201 },
    patch: { request: 'PATCH /Person/{id} adding one email', spec: patchSpec, status: 200 },
  };

  const rows: KeyedRow[] = [];
  for (const operation of KEYED_OPERATIONS) {
    const { request, spec, status } = operations[operation];
    /** The last keyed request, which the replay sends again. */
    let lastKeyed: EventSpec | undefined;
    const run: Record<Variant, () => Promise<number>> = {
      unkeyed: () => invoke(operation, 'unkeyed', spec(tag('u'), {}), status),
      keyed: () => {
        lastKeyed = spec(tag('k'), { 'idempotency-key': `bench-${tag('i')}` });
        return invoke(operation, 'keyed', lastKeyed, status);
      },
      replay: () => {
        if (!lastKeyed) throw new Error('A replay needs a keyed request before it');
        return invoke(operation, 'replay', lastKeyed, status);
      },
    };

    log(`keyed writes: ${operation} × ${iterations} (+${warmup} warm-up) unkeyed, keyed and replayed`);
    const samples: Record<Variant, number[]> = { unkeyed: [], keyed: [], replay: [] };
    const tallies: Record<Variant, Tally> = { unkeyed: newTally(), keyed: newTally(), replay: newTally() };
    for (let k = 0; k < warmup + iterations; k++) {
      const measured = k >= warmup;
      const order: Variant[] = k % 2 === 0 ? ['unkeyed', 'keyed', 'replay'] : ['keyed', 'unkeyed', 'replay'];
      for (const variant of order) {
        instrument.tally = measured ? tallies[variant] : undefined;
        const ms = await run[variant]();
        instrument.tally = undefined;
        if (measured) samples[variant].push(ms);
      }
    }

    // Accounting: each variant again, its calls recorded in full, capacity computed per request.
    const totals: Record<Variant, Capacity> = Object.fromEntries(
      VARIANTS.map((variant) => [
        variant,
        { rcu: 0, wcu: 0, postingsWcu: 0, idempotencyWcu: 0, reported: 0, bytesRead: 0 },
      ]),
    ) as Record<Variant, Capacity>;
    const created: Record<Variant, number> = { unkeyed: 0, keyed: 0, replay: 0 };
    const recordBytes: Record<Variant, number> = { unkeyed: 0, keyed: 0, replay: 0 };
    for (let n = 0; n < accountingRuns; n++)
      for (const variant of VARIANTS) {
        const before = await countPersons(storage);
        const recording: RecordedCall[] = [];
        instrument.recording = recording;
        await run[variant]();
        instrument.recording = undefined;
        created[variant] += (await countPersons(storage)) - before;
        for (const { output, failed } of recording)
          if (failed && output.Item) recordBytes[variant] += itemSize(output.Item as Record<string, unknown>);
        // No index is queried by a write: the entry size is not used.
        const capacity = capacityOf(recording, 0);
        for (const measure of Object.keys(capacity) as (keyof Capacity)[])
          totals[variant][measure] += capacity[measure];
      }

    const perRequest = (count: number, runs: number) => Number((count / runs).toFixed(3));
    for (const variant of VARIANTS)
      rows.push({
        operation,
        variant,
        request: `${request}${variant === 'unkeyed' ? '' : variant === 'keyed' ? ', a new Idempotency-Key' : ', the keyed request again'}`,
        iterations,
        latency: summarise(samples[variant]),
        calls: perRequest(tallies[variant].calls, iterations),
        callsByCommand: Object.fromEntries(
          Object.entries(tallies[variant].byCommand).map(([command, count]) => [
            command,
            perRequest(count, iterations),
          ]),
        ),
        capacity: Object.fromEntries(
          Object.entries(totals[variant]).map(([measure, sum]) => [measure, perRequest(sum, accountingRuns)]),
        ) as unknown as Capacity,
        accountingRuns,
        personsCreated: perRequest(created[variant], accountingRuns),
        recordBytes: Math.round(recordBytes[variant] / accountingRuns),
      });
  }

  const differences: KeyedDifference[] = KEYED_OPERATIONS.flatMap((operation) => {
    const of = (variant: Variant) =>
      rows.find((row) => row.operation === operation && row.variant === variant) as KeyedRow;
    const unkeyed = of('unkeyed');
    return (['keyed', 'replay'] as const).map((variant) => {
      const row = of(variant);
      const less = (a: number, b: number) => Number((a - b).toFixed(3));
      return {
        operation,
        variant,
        calls: less(row.calls, unkeyed.calls),
        wcu: less(
          row.capacity.wcu - row.capacity.postingsWcu,
          unkeyed.capacity.wcu - unkeyed.capacity.postingsWcu,
        ),
        rcu: less(row.capacity.rcu, unkeyed.capacity.rcu),
        medianMs: less(row.latency.median, unkeyed.latency.median),
        p99Ms: less(row.latency.p99, unkeyed.latency.p99),
      };
    });
  });

  return { tablePersons: await countPersons(storage), rows, differences };
};
