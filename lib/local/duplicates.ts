/**
 * `npm run duplicates -- --scan`: every person of the store checked for duplicates once (API.md 12.1,
 * lib/duplicates/scan-duplicates.ts), with progress on stderr (a bar on a terminal). Like `npm run
 * backfill`, it works on the DynamoDB Local of a running `npm start` when `DYNAMODB_ENDPOINT` is set,
 * else on one of its own on the folder `--data` (default `.data`); with `--aws` on the table
 * `TABLE_NAME` in the AWS account and region of the environment (an operator's job, deployed). Run it
 * again to go on after a stop; `--restart` checks every person again.
 */
import { parseArgs } from 'node:util';
import { runCommand, UsageError } from '../cli/command';
import { progressReporter } from '../cli/progress';
import { duplicateReads } from '../db/duplicates/duplicate-reads';
import { pairStore } from '../db/duplicates/pair-store';
import { scanPositions } from '../db/duplicates/scan-position';
import { personExport } from '../db/person/read/person-export';
import { countPersons } from '../db/person/read/person-list';
import { scanDuplicates } from '../duplicates/scan-duplicates';
import { commandStorage } from './dynamo-local';

const USAGE =
  'usage: npm run duplicates -- --scan [--restart] [--concurrency N] [--data DIR | --aws]   (TABLE_NAME, DYNAMODB_ENDPOINT from the environment)';

const main = async (argv: string[]): Promise<number> => {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      scan: { type: 'boolean', default: false },
      restart: { type: 'boolean', default: false },
      concurrency: { type: 'string', default: '4' },
      data: { type: 'string', default: process.env.DATA_DIR ?? '.data' },
      aws: { type: 'boolean', default: false },
    },
  });
  if (!values.scan) throw new UsageError('--scan is the job this command runs');
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new UsageError('--concurrency must be a whole number from 1 to 64');

  const { storage, close } = await commandStorage({ data: values.data, aws: values.aws });
  const { tableName } = storage;
  try {
    const positions = scanPositions(storage);
    const start = values.restart ? 0 : ((await positions.read())?.checked ?? 0);
    const progress = progressReporter(await countPersons(storage), { label: 'duplicates', start });
    const started = performance.now();
    const result = await scanDuplicates(
      {
        persons: personExport(storage),
        positions,
        detector: { reads: duplicateReads(storage), pairs: pairStore(storage) },
      },
      {
        concurrency,
        restart: values.restart,
        onPage: ({ checked }, created) => progress.update(checked, `${created} new pair(s)`),
      },
    );
    progress.stop();
    const seconds = (performance.now() - started) / 1000;
    console.log(
      result.alreadyDone
        ? `duplicates ${tableName}: the scan finished before (${result.checked} persons checked); --restart checks every person again`
        : `duplicates ${tableName}: ${result.checked} persons checked, ${result.created} new pair(s) in ${seconds.toFixed(1)} s; GET /duplicates lists them`,
    );
    return 0;
  } finally {
    await close();
  }
};

await runCommand(USAGE, main);
