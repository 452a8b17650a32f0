/**
 * The fuzzers' shared machinery: run settings (`FUZZ_RUNS`, `FUZZ_SEED`, `FUZZ_PATH`), calling a handler
 * and keeping its raw answer, the checks every answer must pass, the "table unchanged" guard, the
 * prototype-pollution guard, and the summary line for `npm run reliability` (`RELIABILITY_REPORT`).
 */
import { appendFileSync } from 'node:fs';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import fc from 'fast-check';
import { expect } from 'vitest';
import { z } from 'zod';
import { PROBLEM_TYPES } from '../../lib/api/problems';
import { createTestTable, type TestTable } from '../support/dynamo';
import { lambdaContext } from '../support/events';
import { fuzzRuns, wholeNumber } from '../support/fuzz-runs';
import { checkInvariants, type Item, snapshot } from '../support/invariants';

// ---------------------------------------------------------------------------------------------------
// Settings and summary
// ---------------------------------------------------------------------------------------------------

/**
 * Runs per property: `FUZZ_RUNS` for long runs, else the CI share the property asks for, capped by
 * `FUZZ_RUNS_MAX` (test/support/fuzz-runs.ts).
 */
export const runsFor = fuzzRuns;

/**
 * The CI share of the properties that send a request a run through a handler against DynamoDB Local
 * (POST, PATCH and list bodies): 150 each. At 300 they took 50 to 60 s a file of CI's first pass, the
 * largest part of its time after the load runs; the long runs (`FUZZ_RUNS=5000`, `npm run
 * reliability`) are where their depth comes from.
 */
export const REQUEST_FUZZ_RUNS = 150;

/** Generous per-test timeout that grows with the runs asked for. */
export const timeoutFor = (ciRuns: number, msPerRun = 150) =>
  Math.max(120_000, runsFor(ciRuns) * msPerRun * 3);

export interface Tally {
  property: string;
  seed: number;
  /** Runs asked for; `runs` is lower when the time limit ended the property early. */
  planned: number;
  /** Generated runs, each one request; the status counts below are theirs. */
  runs: number;
  /** Runs spent shrinking a failure to a smaller input (not in the status counts). */
  shrinkRuns: number;
  status2xx: number;
  status3xx: number;
  status4xx: number;
  status5xx: number;
  failed: boolean;
  durationMs: number;
}

let current: Tally | undefined;

/** Set once a run failed: the runs after it are fast-check shrinking the failure. */
let shrinking = false;

const record = (status: number) => {
  if (!current || shrinking) return;
  if (status >= 500) current.status5xx += 1;
  else if (status >= 400) current.status4xx += 1;
  else if (status >= 300) current.status3xx += 1;
  else current.status2xx += 1;
};

/** One JSON line per property in the file `RELIABILITY_REPORT` names, for the reliability summary. */
const report = (tally: Tally) => {
  const file = process.env.RELIABILITY_REPORT;
  if (file) appendFileSync(file, `${JSON.stringify({ suite: 'fuzz', ...tally })}\n`);
};

/**
 * `fc.assert` over an async property with the run's settings. The seed is chosen here (or read from
 * `FUZZ_SEED`, with `FUZZ_PATH` to replay one counterexample) so that it is known even on success;
 * on failure fast-check's message names the seed and path to replay with.
 */
export const fuzz = async <T>(
  property: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  ciRuns: number,
  /** What one run may take, as `timeoutFor` counts it: the time limit of the runs and their shrinking. */
  msPerRun?: number,
) => {
  const seed = wholeNumber('FUZZ_SEED') ?? (Date.now() ^ (Math.random() * 0x7fffffff)) & 0x7fffffff;
  const path = process.env.FUZZ_PATH || undefined;
  const tally: Tally = {
    property,
    seed,
    planned: runsFor(ciRuns),
    runs: 0,
    shrinkRuns: 0,
    status2xx: 0,
    status3xx: 0,
    status4xx: 0,
    status5xx: 0,
    failed: false,
    durationMs: 0,
  };
  const started = performance.now();
  current = tally;
  shrinking = false;
  try {
    await fc.assert(
      fc.asyncProperty(arbitrary, async (value) => {
        if (shrinking) tally.shrinkRuns += 1;
        else tally.runs += 1;
        try {
          await predicate(value);
        } catch (error) {
          shrinking = true;
          throw error;
        }
      }),
      {
        numRuns: runsFor(ciRuns),
        seed,
        ...(path ? { path } : {}),
        // Shrinking against a real table is slow: it stops in time for the report and the replay hint
        // to come out before the test's own timeout would cut them off.
        plugins: [fc.interruptAfterTimeLimit(timeoutFor(ciRuns, msPerRun) - 30_000)],
      },
    );
  } catch (error) {
    tally.failed = true;
    const { cause } = error as Error;
    const message = `${(error as Error).message}${cause instanceof Error ? `\nCause: ${cause.message}` : ''}`;
    const failedPath = /path: "([^"]+)"/.exec(message)?.[1] ?? '<the path below>';
    throw new Error(
      `${property} failed; replay it with FUZZ_SEED=${seed} FUZZ_PATH=${failedPath}\n${message}`,
      { cause: error },
    );
  } finally {
    current = undefined;
    tally.durationMs = Math.round(performance.now() - started);
    report(tally);
  }
};

// ---------------------------------------------------------------------------------------------------
// Calling handlers
// ---------------------------------------------------------------------------------------------------

export type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Calls a handler and keeps its answer as it is (the body unparsed); counted in the running tally. */
export const call = async (
  handler: Handler,
  event: APIGatewayProxyEventV2,
  context: Context = lambdaContext(),
): Promise<RawResponse> => {
  const result = await handler(event, context);
  const status = result.statusCode ?? 200;
  record(status);
  if (process.env.FUZZ_DEBUG) console.log('DBG', status, (result.body ?? '').slice(0, 300));
  return {
    status,
    headers: Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
    ),
    text: result.isBase64Encoded
      ? Buffer.from(result.body ?? '', 'base64').toString('utf8')
      : (result.body ?? ''),
  };
};

// ---------------------------------------------------------------------------------------------------
// What every answer must be
// ---------------------------------------------------------------------------------------------------

const problemTypes = Object.keys(PROBLEM_TYPES) as (keyof typeof PROBLEM_TYPES)[];

export const ProblemBody = z.strictObject({
  type: z.enum(problemTypes.map((type) => `/problems/${type}`) as [string, ...string[]]),
  title: z.string().min(1),
  status: z.int().min(400).max(599),
  detail: z.string(),
  instance: z.string(),
  errors: z
    .array(z.strictObject({ path: z.string(), message: z.string().min(1), existing: z.url().optional() }))
    .optional(),
});

/** Marks of internals: stack frames, source files, SDK and JS error names, AWS identifiers. */
const LEAK_PATTERNS = [
  /\n\s*at\s/,
  /\bat\s+\S+\s+\(\S*:\d+:\d+\)/,
  /node_modules/,
  /\.(?:ts|js|mjs|cjs):\d+/,
  /[A-Za-z]*Exception\b/,
  /\$metadata|\$fault|\$response/,
  /\b(?:Type|Syntax|Range|Reference|Internal)Error\b/,
  /DynamoDB/i,
  /aws-sdk|@smithy|smithy/i,
  /arn:/,
  /Cannot read propert|is not a function|is not defined|Maximum call stack/,
  /Unexpected token|in JSON at position|Unexpected end of JSON/,
  /TransactionCanceled|ConditionalCheckFailed|ProvisionedThroughput|ThrottlingException/,
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up/,
  /ZodError|invalid_type|unrecognized_keys/,
];

/**
 * No internals in a body. A mark the request itself carried (an unknown key named `arn:x` is echoed
 * in its error path) is the client's own text, not a leak; the table name never is.
 */
export const expectNoLeak = (text: string, request: string, tableName: string) => {
  expect(text, 'the table name leaked').not.toContain(tableName);
  for (const pattern of LEAK_PATTERNS) {
    const found = pattern.exec(text)?.[0];
    if (found !== undefined && !request.includes(found))
      expect.fail(`the body leaks internals (${pattern}): ${text.slice(0, 500)}`);
  }
};

/** A 4xx/5xx is RFC 9457 problem+json whose `status` is the HTTP status and whose type is known. */
export const expectProblem = (response: RawResponse) => {
  expect(response.headers['content-type']?.split(';')[0]?.trim()).toBe('application/problem+json');
  const body = ProblemBody.parse(JSON.parse(response.text));
  expect(body.status).toBe(response.status);
  const type = body.type.slice('/problems/'.length) as keyof typeof PROBLEM_TYPES;
  expect(PROBLEM_TYPES[type].status).toBe(response.status);
  return body;
};

/** Never a 5xx, no leak, and every 4xx is well-formed problem+json. Returns the parsed body. */
export const expectSafeAnswer = (response: RawResponse, request: string, table: TestTable): unknown => {
  if (response.status >= 500)
    expect.fail(`a ${response.status}: ${response.text.slice(0, 500)}\nrequest: ${request.slice(0, 500)}`);
  expectNoLeak(response.text, request, table.tableName);
  if (response.status >= 400) return expectProblem(response);
  return response.text ? JSON.parse(response.text) : undefined;
};

// ---------------------------------------------------------------------------------------------------
// Guards
// ---------------------------------------------------------------------------------------------------

/**
 * The table a property runs against, with the "a refused request changes nothing" guard: the table as
 * last seen, re-read only after a request that was allowed to change it, compared after every refusal.
 * Every comparison scans the whole table, so once it holds `maxItems` items more than its setup made
 * (a person's search postings alone are dozens) it is retired (the invariant checker must find nothing
 * in it) and a fresh one, set up the same way, takes its place: long runs stay linear.
 */
export const workbench = async <S>(
  first: TestTable,
  setup: (table: TestTable) => Promise<S>,
  { maxItems = 250 }: { maxItems?: number } = {},
) => {
  let current = { table: first, ...(await setup(first)) };
  let known: Item[] | undefined;
  const limit = (await snapshot(first)).length + maxItems;

  const retire = async (table: TestTable) => {
    expect(await checkInvariants(table), 'the invariant checker found problems').toEqual([]);
    if (table !== first) await table.client.send(new DeleteTableCommand({ TableName: table.tableName }));
  };

  return {
    /** The current table and what `setup` made in it. */
    get current() {
      return current;
    },
    /** Reads the state before the next request, if a write may have changed it; rotates a full table. */
    async before() {
      known ??= await snapshot(current.table);
      if (known.length <= limit) return;
      await retire(current.table);
      const table = await createTestTable();
      current = { table, ...(await setup(table)) };
      known = await snapshot(table);
    },
    /** After a read, whatever its status, the table must be exactly as before. */
    async unchanged(request: string) {
      const now = await snapshot(current.table);
      expect(now, `a read changed the table; request: ${request.slice(0, 300)}`).toEqual(known);
    },
    /** After a 4xx the table must be exactly as before; after anything else it is read again next time. */
    async after(status: number, request: string) {
      if (status >= 400 && status < 500) {
        const now = await snapshot(current.table);
        expect(now, `a ${status} changed the table; request: ${request.slice(0, 300)}`).toEqual(known);
        known = now;
      } else known = undefined;
    },
    /** Something outside the guarded requests wrote: read the table again before the next one. */
    forget() {
      known = undefined;
    },
    /** Checks and drops the last table made on the way (the first one is the suite's to check). */
    async close() {
      if (current.table !== first) await retire(current.table);
    },
  };
};

export type Workbench<S> = Awaited<ReturnType<typeof workbench<S>>>;

const BUILT_INS = [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype];

const shapeOf = (target: object) =>
  Object.getOwnPropertyNames(target)
    .sort()
    .map((name) => [name, Object.getOwnPropertyDescriptor(target, name)?.value] as const);

/** Captures the built-in prototypes now; `check()` fails if any gained, lost or changed a property. */
export const prototypeGuard = () => {
  const baseline = BUILT_INS.map(shapeOf);
  return {
    check() {
      const probe = {} as Record<string, unknown>;
      for (const name of ['polluted', 'isAdmin', 'a', 'x'])
        expect(probe[name], `({}).${name} is set: prototype pollution`).toBeUndefined();
      expect(BUILT_INS.map(shapeOf), 'a built-in prototype changed').toEqual(baseline);
    },
  };
};
