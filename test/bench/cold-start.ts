/**
 * Section 4: every function bundled with the stack's esbuild settings (infra/bundling.ts), its size,
 * and how long a fresh `node` takes to import the bundle and answer one event, against a bare
 * `node -e 0`, alternated, in the environment the stack deploys with (Powertools at INFO, no
 * `--enable-source-maps`) and against DynamoDB Local; and what `--enable-source-maps` would cost.
 */
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_FILE, FUNCTION_ENVIRONMENT } from '../../infra/bundling';
import { DELIVER_HANDLER, type LaneInvocation } from '../../lib/webhooks/lane-invoker';
import { bundleFunctions } from '../support/bundles';
import type { BenchConfig } from './config';
import { median } from './stats';

export interface ColdRow {
  function: string;
  bundleBytes: number;
  sourceMapBytes: number;
  /** Median wall time of bare `node -e 0`, spawn to exit. */
  bareMs: number;
  /** Median wall time of a fresh node importing the bundle and answering one event, spawn to exit. */
  coldMs: number;
  /** coldMs − bareMs. */
  overBareMs: number;
  /**
   * The import alone over bare node: the median of (cold run − its first event) − bareMs, i.e. a
   * fresh process up to the bundle imported, without what the first event waits on DynamoDB for.
   */
  importOverBareMs: number;
  /** Medians measured inside the process: the bundle's import, then its first event. */
  importMs: number;
  firstEventMs: number;
  /** Median of the same event answered again by the same process, warm. */
  warmEventMs: number;
  /**
   * What a cold container adds: over bare node and over a warm answer to the same event
   * (overBareMs − warmEventMs). The request's own work (a list reading 8 index shards) is not a cold start.
   */
  coldCostMs: number;
  /** Median CPU time (user + system) of the process when it had answered, boot included. */
  cpuMs: number;
  /** cpuMs − bareCpuMs: the same comparison in CPU time, which load on the machine disturbs less. */
  cpuOverBareMs: number;
  status: number | null;
}

export interface ColdSection {
  runs: number;
  /** Median CPU time of a bare node (`node -e` printing its CPU time). */
  bareCpuMs: number;
  rows: ColdRow[];
  /** One function's cold start with and without `--enable-source-maps` (medians, ms). */
  sourceMaps: { function: string; withMs: number; withoutMs: number; costMs: number };
  /**
   * One function's cold start with the X-Ray tracer on, as deployed (every row above), and with it
   * off (`POWERTOOLS_TRACE_ENABLED=false`: the SDK still imported, no segment sent): what tracing
   * adds at run time (medians, ms).
   */
  tracing: { function: string; onMs: number; offMs: number; costMs: number; datagrams: number };
}

/** The function whose cold start is also measured with source maps, and without tracing. */
const SAMPLE = 'get-person';

/**
 * What Lambda sets in an actively traced function (test/support/xray.ts reads the segments in the
 * tests): Powertools' tracer turns itself on, as deployed, and sends its segments over UDP to
 * `daemon`, a socket of the bench's that only counts them.
 */
const tracedEnvironment = (daemon: string): NodeJS.ProcessEnv => ({
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  // The X-Ray SDK's Lambda mode (a facade segment per invocation, from `_X_AMZN_TRACE_ID`).
  LAMBDA_TASK_ROOT: process.cwd(),
  _HANDLER: 'index.handler',
  _X_AMZN_TRACE_ID: `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${'0'.repeat(23)}1;Parent=${'0'.repeat(15)}1;Sampled=1`,
  AWS_XRAY_DAEMON_ADDRESS: daemon,
});

/** What the stack sets on every function that changes how it starts (no NODE_OPTIONS). */
export const DEPLOYED_ENVIRONMENT = { ...FUNCTION_ENVIRONMENT, NODE_OPTIONS: '' };

/** Imports the bundle, answers one event, and says how long each took; `-e` like the bare run. */
const DRIVER = `
const started = performance.now();
const { handler } = await import(process.env.BENCH_BUNDLE_URL);
const imported = performance.now();
const context = {
  callbackWaitsForEmptyEventLoop: false, functionName: 'bench', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:bench', memoryLimitInMB: '512',
  awsRequestId: 'cold-start', logGroupName: '/aws/lambda/bench', logStreamName: 'bench',
  getRemainingTimeInMillis: () => 10000, done() {}, fail() {}, succeed() {},
};
const result = await handler(JSON.parse(process.env.BENCH_EVENT), context);
const answered = performance.now();
const cpu = process.cpuUsage();
// The same event again, warm: what the request itself costs, which no cold start can save.
await handler(JSON.parse(process.env.BENCH_EVENT), context);
const warm = performance.now() - answered;
process.stdout.write('\\n@bench ' + JSON.stringify({
  importMs: imported - started, firstEventMs: answered - imported, warmEventMs: warm,
  status: result?.statusCode ?? null, cpuMs: (cpu.user + cpu.system) / 1000,
}) + '\\n');
process.exit(0);
`;

/** A bare node that says how much CPU time it took. */
const BARE_CPU = 'const c = process.cpuUsage(); process.stdout.write(String((c.user + c.system) / 1000))';

interface Run {
  ms: number;
  stdout: string;
  stderr: string;
  code: number | null;
}

const runNode = (args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<Run>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - started, stdout, stderr, code }));
  });

/**
 * The first event each function answers: its sample in events/, the delivering function's lane (one
 * no subscription has: a run that finds nothing to do), or an empty stream batch.
 */
const firstEvent = async (name: string, unique: string): Promise<unknown> => {
  if (name === DELIVER_HANDLER) return { subscriptionId: `cold-start-${unique}` } satisfies LaneInvocation;
  const file = join('events', `${name}.json`);
  const event = JSON.parse(await readFile(file, 'utf8').catch(() => '{"Records":[]}')) as Record<
    string,
    unknown
  >;
  if (name === 'create-person')
    event.body = JSON.stringify({
      Names: { '@set': [{ first_name: 'Cold', last_name: `Start ${unique}` }] },
      Emails: { '@set': [{ email: `cold-${unique}@bench.example.org` }] },
    });
  return event;
};

export const runColdStart = async (
  environment: { TABLE_NAME: string; DYNAMODB_ENDPOINT: string },
  config: BenchConfig,
  log: (message: string) => void,
): Promise<ColdSection> => {
  const names = (await readdir('functions'))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.replace(/\.ts$/, ''))
    .sort();
  const outdir = await mkdtemp(join(tmpdir(), 'person-bench-bundles-'));
  const daemon = createSocket('udp4');
  let datagrams = 0;
  daemon.on('message', () => {
    datagrams++;
  });
  await new Promise<void>((bound) => daemon.bind(0, '127.0.0.1', bound));
  try {
    log(`cold start: bundling ${names.length} functions`);
    await bundleFunctions(names, outdir);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...DEPLOYED_ENVIRONMENT,
      ...environment,
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      // The SDK's notice that it will need Node 22 in 2027; Lambda runs Node 24.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...tracedEnvironment(`127.0.0.1:${daemon.address().port}`),
    };
    /** One fresh process importing the bundle and answering its first event. */
    const coldRun = async (name: string, run: number, extraEnv: NodeJS.ProcessEnv = {}) => {
      const event = JSON.stringify(await firstEvent(name, `${Date.now().toString(36)}-${run}`));
      const result = await runNode(['--input-type=module', '-e', DRIVER], {
        ...env,
        ...extraEnv,
        BENCH_BUNDLE_URL: pathToFileURL(join(outdir, name, BUNDLE_FILE)).href,
        BENCH_EVENT: event,
      });
      const line = result.stdout.split('\n').find((text) => text.startsWith('@bench '));
      if (result.code !== 0 || !line)
        throw new Error(`${name} cold start failed (${result.code}): ${result.stderr.slice(0, 2000)}`);
      const measured = JSON.parse(line.slice('@bench '.length)) as {
        importMs: number;
        firstEventMs: number;
        warmEventMs: number;
        status: number | null;
        cpuMs: number;
      };
      // Spawn to exit, less the warm event the driver answers after the first.
      return { ...measured, ms: result.ms - measured.warmEventMs };
    };
    const bareRun = async () => {
      const result = await runNode(['-e', '0'], env);
      if (result.code !== 0) throw new Error(`node -e 0 exited with ${result.code}: ${result.stderr}`);
      return result.ms;
    };

    // Bare node's CPU time, for the CPU columns (wall time is compared with `node -e 0` itself).
    const bareCpu: number[] = [];
    for (let run = 0; run < config.cold.runs; run++) {
      const result = await runNode(['-e', BARE_CPU], env);
      bareCpu.push(Number(result.stdout));
    }
    const bareCpuMs = median(bareCpu);

    const rows: ColdRow[] = [];
    for (const name of names) {
      const bundle = join(outdir, name, BUNDLE_FILE);
      const bare: number[] = [];
      const cold: number[] = [];
      const imports: number[] = [];
      const events: number[] = [];
      const warmEvents: number[] = [];
      const cpu: number[] = [];
      const withoutEvent: number[] = [];
      let status: number | null = null;
      for (let run = 0; run < config.cold.runs; run++) {
        const measureBare = async () => {
          bare.push(await bareRun());
        };
        const measureCold = async () => {
          const measured = await coldRun(name, run);
          cold.push(measured.ms);
          imports.push(measured.importMs);
          events.push(measured.firstEventMs);
          warmEvents.push(measured.warmEventMs);
          cpu.push(measured.cpuMs);
          withoutEvent.push(measured.ms - measured.firstEventMs);
          status = measured.status;
        };
        // Alternate which goes first, so neither always runs on a warmer machine.
        if (run % 2 === 0) {
          await measureBare();
          await measureCold();
        } else {
          await measureCold();
          await measureBare();
        }
      }
      const row: ColdRow = {
        function: name,
        bundleBytes: (await stat(bundle)).size,
        sourceMapBytes: (await stat(`${bundle}.map`)).size,
        bareMs: median(bare),
        coldMs: median(cold),
        overBareMs: median(cold) - median(bare),
        importOverBareMs: median(withoutEvent) - median(bare),
        importMs: median(imports),
        firstEventMs: median(events),
        warmEventMs: median(warmEvents),
        coldCostMs: median(cold) - median(bare) - median(warmEvents),
        cpuMs: median(cpu),
        cpuOverBareMs: median(cpu) - bareCpuMs,
        status,
      };
      log(
        `cold start: ${name} ${Math.round(row.coldMs)} ms vs bare ${Math.round(row.bareMs)} ms (import ${Math.round(row.importMs)} ms)`,
      );
      rows.push(row);
    }

    /** The sample's cold start in two environments, alternated run by run (medians, ms). */
    const compared = async (first: NodeJS.ProcessEnv, second: NodeJS.ProcessEnv) => {
      const firstMs: number[] = [];
      const secondMs: number[] = [];
      for (let run = 0; run < config.cold.runs; run++) {
        const pair = [
          async () => firstMs.push((await coldRun(SAMPLE, run, first)).ms),
          async () => secondMs.push((await coldRun(SAMPLE, run, second)).ms),
        ];
        for (const measure of run % 2 === 0 ? pair : pair.reverse()) await measure();
      }
      return [median(firstMs), median(secondMs)] as const;
    };
    const sample = SAMPLE;

    // What `--enable-source-maps` would cost a cold start: the same bundle with and without it.
    const [withMs, withoutMs] = await compared({ NODE_OPTIONS: '--enable-source-maps' }, {});
    const sourceMaps = { function: sample, withMs, withoutMs, costMs: withMs - withoutMs };
    log(`cold start: --enable-source-maps would cost ${sample} ${Math.round(sourceMaps.costMs)} ms`);

    // What the tracer costs at run time: the same bundle traced (as every row above) and not.
    const datagramsBefore = datagrams;
    const [onMs, offMs] = await compared({}, { POWERTOOLS_TRACE_ENABLED: 'false' });
    const tracing = { function: sample, onMs, offMs, costMs: onMs - offMs, datagrams: datagramsBefore };
    log(
      `cold start: tracing costs ${sample} ${Math.round(tracing.costMs)} ms (${datagramsBefore} segments sent)`,
    );
    return {
      runs: config.cold.runs,
      bareCpuMs,
      rows,
      sourceMaps,
      tracing,
    };
  } finally {
    daemon.close();
    await rm(outdir, { recursive: true, force: true });
  }
};
