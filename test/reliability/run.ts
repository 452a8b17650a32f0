/**
 * `npm run reliability`: the long versions of the reliability checks, one after another so that each
 * has the machine to itself, then one Markdown summary table on stdout (progress goes to stderr).
 *
 * 1. load: 32 clients x 6 000 colliding operations against `npm start` (load.ts, verify.ts);
 * 2. crash: DynamoDB Local killed mid-burst against `npm start --data DIR`, three rounds (crash.ts);
 * 3. contention: rounds of N concurrent PATCHes of one person without If-Match, each changing a field
 *    of its own; every one must be 200 and visible afterwards (contention.ts);
 * 4. predictable id: creates naming as requester the id the next person is about to get, one by one
 *    and in bursts; each must be 403 unknown-requester, or 201 once that id is a person (predictable-id.ts);
 * 5. fuzz: the test/fuzz/ properties with a large `FUZZ_RUNS`, read back from `RELIABILITY_REPORT`.
 *
 * `--skip load|crash|contention|predictable-id|fuzz` leaves a check out. Exits non-zero on any 5xx
 * where the contract allows none, invariant violation, 5xx from bad input, lost acknowledged write or
 * change, or broken promise of the load, crash, contention and predictable-id checks. Writes DynamoDB
 * Local itself drops when it is SIGKILLed right after acknowledging them (see crash.ts) are counted and
 * listed, not failed: that is its durability.
 *
 *   npm run reliability -- --operations 10000 --clients 32 --rounds 5 --fuzz-runs 5000 --seed 42 \
 *     --contention 100 --contention-rounds 10 --predictions 400
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { JAVA_DEFAULT, startServer } from '../support/server';
import { type ContentionResult, runContention } from './contention';
import { type CrashResult, runCrash, STORAGE_DURABILITY_WINDOW_MS } from './crash';
import { figuresOf, kindTable, type RunFigures } from './figures';
import { type LoadRun, runLoad } from './load';
import { type PredictableIdResult, runPredictableId } from './predictable-id';
import { storageOf } from './storage';
import { type Verdict, verifyRun } from './verify';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values } = parseArgs({
  options: {
    operations: { type: 'string', default: '6000' },
    clients: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
    contention: { type: 'string', default: '100' },
    'contention-rounds': { type: 'string', default: '10' },
    predictions: { type: 'string', default: '400' },
    'fuzz-runs': { type: 'string', default: process.env.FUZZ_RUNS ?? '2000' },
    seed: { type: 'string' },
    skip: { type: 'string', multiple: true, default: [] },
  },
  strict: true,
});
const operations = Number(values.operations);
const clients = Number(values.clients);
const rounds = Number(values.rounds);
const contention = Number(values.contention);
const contentionRounds = Number(values['contention-rounds']);
const predictions = Number(values.predictions);
const fuzzRuns = Number(values['fuzz-runs']);
const seed = Number(values.seed ?? Date.now() % 2 ** 31);
const skip = new Set(values.skip);
const progress = (line: string) => console.error(`[reliability] ${line}`);

interface LoadOutcome {
  run: LoadRun;
  verdict: Verdict;
  figures: RunFigures;
}

const runLoadCheck = async (): Promise<LoadOutcome> => {
  progress(`load: ${clients} clients, ${operations} operations, seed ${seed}`);
  const server = await startServer({ env: JAVA_DEFAULT, timeoutMs: 120_000 });
  try {
    const run = await runLoad({ url: server.url, clients, operations, seed });
    progress(`load: ${run.exchanges.length} requests in ${(run.wallMs / 1000).toFixed(1)} s; verifying`);
    const table = await storageOf(server);
    const verdict = await verifyRun(run, { url: server.url, table });
    table.client.destroy();
    const figures = figuresOf(run.exchanges);
    progress(`load figures:\n${kindTable(figures)}`);
    for (const line of [
      ...verdict.violations,
      ...verdict.invariantViolations,
      ...verdict.lostAcknowledged,
    ].slice(0, 50))
      progress(`load: ${line}`);
    return { run, verdict, figures };
  } finally {
    await server.stop();
  }
};

const runCrashCheck = async (): Promise<CrashResult> => {
  const dataDir = await mkdtemp(join(tmpdir(), 'persons-crash-'));
  progress(`crash: ${rounds} rounds of kill and restart on ${dataDir}, ${clients} clients`);
  try {
    const result = await runCrash({
      dataDir,
      clients,
      rounds,
      seed,
      killAfterAcknowledged: 150,
      downMs: 4_000,
      log: (line) => progress(`crash: ${line}`),
    });
    for (const line of [...result.violations, ...result.invariantViolations, ...result.lostUnexplained].slice(
      0,
      50,
    ))
      progress(`crash: ${line}`);
    for (const line of result.lostToStorage)
      progress(`crash: dropped by DynamoDB Local at the kill: ${line}`);
    return result;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
};

const runContentionCheck = async (): Promise<ContentionResult> => {
  progress(`contention: ${contentionRounds} rounds of ${contention} concurrent PATCHes of one person`);
  const server = await startServer({ env: JAVA_DEFAULT, timeoutMs: 120_000 });
  try {
    const result = await runContention({
      url: server.url,
      concurrency: contention,
      rounds: contentionRounds,
      seed,
      log: (line) => progress(`contention: ${line}`),
    });
    for (const line of [...result.lostChanges, ...result.violations].slice(0, 50))
      progress(`contention: ${line}`);
    return result;
  } finally {
    await server.stop();
  }
};

const runPredictableIdCheck = async (): Promise<PredictableIdResult> => {
  progress(`predictable id: ${predictions} creates naming a predicted requester id`);
  const server = await startServer({ env: JAVA_DEFAULT, timeoutMs: 120_000 });
  try {
    const result = await runPredictableId({
      url: server.url,
      predictions,
      seed,
      log: (line) => progress(`predictable id: ${line}`),
    });
    for (const line of result.violations.slice(0, 50)) progress(`predictable id: ${line}`);
    return result;
  } finally {
    await server.stop();
  }
};

/** One line per fuzz property, as test/fuzz/harness.ts writes them; unknown fields are tolerated. */
interface FuzzLine {
  suite?: string;
  property?: string;
  runs?: number;
  status5xx?: number;
  failed?: boolean;
}

interface FuzzOutcome {
  ran: boolean;
  exitCode: number | null;
  properties: FuzzLine[];
}

const runFuzz = async (): Promise<FuzzOutcome> => {
  if (!existsSync('test/fuzz')) {
    progress('fuzz: no test/fuzz folder; skipped');
    return { ran: false, exitCode: null, properties: [] };
  }
  const reportDir = await mkdtemp(join(tmpdir(), 'reliability-report-'));
  const report = join(reportDir, 'report.jsonl');
  progress(`fuzz: FUZZ_RUNS=${fuzzRuns}`);
  try {
    const exitCode = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/fuzz'], {
        env: { ...process.env, FUZZ_RUNS: String(fuzzRuns), RELIABILITY_REPORT: report },
        stdio: ['ignore', process.stderr, process.stderr],
      });
      child.on('exit', (code) => resolve(code));
    });
    const text = existsSync(report) ? await readFile(report, 'utf8') : '';
    const properties = text
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as FuzzLine];
        } catch {
          return [];
        }
      })
      .filter((line) => line.suite === undefined || line.suite === 'fuzz');
    return { ran: true, exitCode, properties };
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }
};

const ms = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? '-' : `${Math.round(value)} ms`;

/** `{"400": 2, "0": 1}` as `400 x 2, no answer x 1`, or `0`. */
const statusList = (counts: Record<number, number>) =>
  Object.entries(counts)
    .map(([status, count]) => `${status === '0' ? 'no answer' : status} x ${count}`)
    .join(', ') || '0';

const summary = (
  load: LoadOutcome | undefined,
  crash: CrashResult | undefined,
  contended: ContentionResult | undefined,
  predicted: PredictableIdResult | undefined,
  fuzz: FuzzOutcome | undefined,
) => {
  const rows: [string, string][] = [];
  const failures: string[] = [];
  if (load) {
    const { run, verdict, figures } = load;
    rows.push(
      [
        'load: clients x operations',
        `${run.clients} x ${run.operations} (${figures.requests} requests, ${(run.wallMs / 1000).toFixed(1)} s)`,
      ],
      [
        'load: 2xx / 4xx / 5xx / no answer',
        `${figures.ok} / ${figures.clientErrors} / ${figures.serverErrors} / ${figures.unanswered}`,
      ],
      ['load: conflicts refused (409)', `${figures.conflicts}`],
      ['load: 503 (storage retries exhausted)', `${figures.unavailable}`],
      ['load: persons / emails held at the end', `${verdict.persons} / ${verdict.emailsHeld}`],
      [
        'load: addresses checked against their latest acknowledged write',
        `${verdict.addressesCheckedInOrder}`,
      ],
    );
    for (const [kind, f] of Object.entries(figures.byKind))
      rows.push([
        `load: ${kind} p50 / p99 (${f.requests}, ${f.conflicts} refused)`,
        `${ms(f.p50)} / ${ms(f.p99)}`,
      ]);
    rows.push(
      ['load: invariant violations', `${verdict.invariantViolations.length}`],
      ['load: lost acknowledged writes', `${verdict.lostAcknowledged.length}`],
      ['load: other broken promises', `${verdict.violations.length}`],
    );
    if (verdict.invariantViolations.length > 0) failures.push('load: invariant violations');
    if (verdict.lostAcknowledged.length > 0) failures.push('load: lost acknowledged writes');
    if (verdict.violations.length > 0) failures.push('load: broken promises');
    if (figures.serverErrors + figures.unanswered > 0) failures.push('load: 5xx or unanswered requests');
  }
  if (crash) {
    const outage = crash.rounds.reduce((sum, round) => sum + (round.duringOutage[503] ?? 0), 0);
    const outageOther = crash.rounds.reduce(
      (sum, round) =>
        sum +
        Object.entries(round.duringOutage).reduce(
          (n, [status, count]) => n + (status === '503' ? 0 : count),
          0,
        ),
      0,
    );
    rows.push(
      ['crash: rounds (kill, stop, restart on the folder)', `${crash.rounds.length}`],
      [
        'crash: writes acknowledged before the kills',
        `${crash.rounds.map((r) => r.acknowledgedBeforeKill).join(' + ')}`,
      ],
      ['crash: answers while storage was down: 503 / other', `${outage} / ${outageOther}`],
      [
        'crash: slowest answer while down, first 503 after the kill',
        `${ms(Math.max(...crash.rounds.map((r) => r.slowestOutageAnswerMs)))}, ${ms(Math.max(...crash.rounds.map((r) => r.firstUnavailableMs)))}`,
      ],
      [
        'crash: server survived / clean stop',
        `${crash.rounds.every((r) => r.serverSurvived)} / ${crash.rounds.every((r) => r.stopExitCode === 0)}`,
      ],
      ['crash: restart on the folder', crash.restartMs.map((t) => ms(t)).join(', ') || 'did not restart'],
      ['crash: writes answered 503 that landed anyway', `${crash.landedUnacknowledged}`],
      ['crash: invariant violations after restart', `${crash.invariantViolations.length}`],
      [
        'crash: lost acknowledged writes (ours: acknowledged long before the kill)',
        `${crash.lostUnexplained.length}`,
      ],
      [
        `crash: acknowledged writes DynamoDB Local dropped at SIGKILL (answered < ${STORAGE_DURABILITY_WINDOW_MS} ms before)`,
        `${crash.lostToStorage.length}`,
      ],
      ['crash: other broken promises', `${crash.violations.length}`],
    );
    if (crash.invariantViolations.length > 0) failures.push('crash: invariant violations');
    if (crash.lostUnexplained.length > 0) failures.push('crash: lost acknowledged writes');
    if (crash.violations.length > 0) failures.push('crash: broken promises');
  }
  if (contended) {
    const { figures, rounds } = contended;
    const others = Object.values(figures.otherStatuses).reduce((sum, n) => sum + n, 0);
    rows.push(
      [
        'contention: rounds x concurrent PATCHes of one person',
        `${rounds.length} x ${contended.concurrency} (${figures.requests} requests, ${(contended.wallMs / 1000).toFixed(1)} s)`,
      ],
      [
        'contention: 200 / 5xx (of which 503) / other',
        `${figures.ok} / ${figures.serverErrors} (${figures.unavailable}) / ${statusList(figures.otherStatuses)}`,
      ],
      ['contention: PATCH p50 / p99', `${ms(figures.p50)} / ${ms(figures.p99)}`],
      [
        'contention: version growth / 200s, per round',
        rounds.map((r) => `${r.versionAfter - r.versionBefore}/${r.ok}`).join(', ') || '-',
      ],
      ['contention: lost changes', `${contended.lostChanges.length}`],
      ['contention: other broken promises', `${contended.violations.length}`],
    );
    if (figures.serverErrors > 0) failures.push('contention: 5xx');
    if (others > 0) failures.push('contention: PATCHes not answered 200');
    if (contended.lostChanges.length > 0) failures.push('contention: lost changes');
    if (contended.violations.length > 0) failures.push('contention: broken promises');
  }
  if (predicted) {
    const { figures } = predicted;
    const { ordinary } = figures;
    rows.push(
      [
        'predictable id: creates naming a predicted requester / ordinary creates',
        `${figures.requests} / ${ordinary.requests} (${(predicted.wallMs / 1000).toFixed(1)} s)`,
      ],
      [
        'predictable id: 403 / 201 / 5xx / other',
        `${figures.forbidden} / ${figures.created} / ${figures.serverErrors} / ${statusList(figures.otherStatuses)}`,
      ],
      [
        'predictable id: ordinary creates 201 / 5xx / other',
        `${ordinary.created} / ${ordinary.serverErrors} / ${statusList(ordinary.otherStatuses)}`,
      ],
      ['predictable id: other broken promises', `${predicted.violations.length}`],
    );
    if (figures.serverErrors + ordinary.serverErrors > 0) failures.push('predictable id: 5xx');
    if (Object.keys(figures.otherStatuses).length + Object.keys(ordinary.otherStatuses).length > 0)
      failures.push('predictable id: answers other than 403 and 201');
    if (predicted.violations.length > 0) failures.push('predictable id: broken promises');
  }
  if (fuzz?.ran) {
    const runs = fuzz.properties.reduce((sum, p) => sum + (p.runs ?? 0), 0);
    const fiveXX = fuzz.properties.reduce((sum, p) => sum + (p.status5xx ?? 0), 0);
    const failed = fuzz.properties.filter((p) => p.failed).map((p) => p.property);
    rows.push(
      ['fuzz: properties / runs', `${fuzz.properties.length} / ${runs} (FUZZ_RUNS=${fuzzRuns})`],
      ['fuzz: 5xx from bad input', `${fiveXX}`],
      ['fuzz: failed properties', failed.length > 0 ? failed.join(', ') : '0'],
    );
    if (fiveXX > 0) failures.push('fuzz: 5xx from bad input');
    if (failed.length > 0 || fuzz.exitCode !== 0) failures.push(`fuzz: vitest exited with ${fuzz.exitCode}`);
  } else rows.push(['fuzz', 'not run']);
  rows.push(['**verdict**', failures.length === 0 ? '**pass**' : `**FAIL**: ${failures.join('; ')}`]);
  return {
    table: [
      '| check | figure |',
      '|---|---|',
      ...rows.map(([check, figure]) => `| ${check} | ${figure} |`),
    ].join('\n'),
    failures,
  };
};

const started = performance.now();
const load = skip.has('load') ? undefined : await runLoadCheck();
const crash = skip.has('crash') ? undefined : await runCrashCheck();
const contended = skip.has('contention') ? undefined : await runContentionCheck();
const predicted = skip.has('predictable-id') ? undefined : await runPredictableIdCheck();
const fuzz = skip.has('fuzz') ? undefined : await runFuzz();
const { table, failures } = summary(load, crash, contended, predicted, fuzz);
console.log(
  `\n## Reliability (seed ${seed}, ${((performance.now() - started) / 1000).toFixed(0)} s)\n\n${table}\n`,
);
process.exit(failures.length === 0 ? 0 : 1);
