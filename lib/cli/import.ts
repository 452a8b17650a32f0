/**
 * `npm run import -- FILE`: loads a file of persons (NDJSON or a JSON array, our shape or GRC's)
 * through the API. docs/import-export.md has the options; exit status 0 when nothing
 * was refused (or `--allow-rejects`), 1 when something was, 2 when the run could not start or finish.
 */
import { parseArgs } from 'node:util';
import { API_OPTIONS, apiOf, checkApi, clientFromFlags } from './api-options';
import { runCommand, UsageError } from './command';
import { ImportInterrupted, type ImportSummary, importPersons, refusedCount } from './importer';
import { openOutcomeLog, outcomePathsFor } from './outcome-log';
import { openPersonFile } from './person-file';
import { progressReporter } from './progress';

const USAGE = `usage: npm run import -- FILE [--api URL] [--token JWT | --sigv4 [--region R]]
       [--requester ID] [--concurrency N] [--resume] [--allow-rejects] [--map PATH] [--rejects PATH]`;

const integerFlag = (name: string, value: string, min: number) => {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < min)
    throw new UsageError(`--${name} must be an integer >= ${min}`);
  return number;
};

const summaryLine = (summary: ImportSummary) => {
  const refused = Object.entries(summary.refused)
    .map(([type, count]) => `${type} ${count}`)
    .join(', ');
  return [
    `${summary.total} records`,
    `created ${summary.created}`,
    `replayed ${summary.replayed}`,
    `refused ${refusedCount(summary)}${refused ? ` (${refused})` : ''}`,
    ...(summary.skipped > 0 ? [`skipped ${summary.skipped} (settled before)`] : []),
    `retries ${summary.retries}`,
  ].join(', ');
};

const main = async (argv: string[]): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...API_OPTIONS,
      requester: { type: 'string', default: '0' },
      concurrency: { type: 'string', default: '8' },
      resume: { type: 'boolean', default: false },
      'allow-rejects': { type: 'boolean', default: false },
      map: { type: 'string' },
      rejects: { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('name one file to import');
  const [path] = positionals as [string];
  const requester = integerFlag('requester', values.requester, 0);
  const concurrency = integerFlag('concurrency', values.concurrency, 1);
  const client = clientFromFlags(values);

  const file = await openPersonFile(path);
  await checkApi(client, apiOf(values));
  const defaults = outcomePathsFor(path);
  const paths = { map: values.map ?? defaults.map, rejects: values.rejects ?? defaults.rejects };
  const log = await openOutcomeLog(paths, values.resume);
  const progress = progressReporter(file.total);
  let done = log.settled.size;
  let created = 0;
  let refused = 0;
  progress.update(done, '');
  try {
    const summary = await importPersons({
      file,
      client,
      requester,
      concurrency,
      settled: log.settled,
      onOutcome: async (outcome) => {
        await log.record(outcome);
        done++;
        if (outcome.outcome === 'created' || outcome.outcome === 'replayed') created++;
        else refused++;
        progress.update(done, `stored ${created}, refused ${refused}`);
      },
    });
    progress.stop();
    console.log(`import ${path}: ${summaryLine(summary)}`);
    console.log(`  map: ${paths.map}   rejects: ${paths.rejects}`);
    return refusedCount(summary) === 0 || values['allow-rejects'] ? 0 : 1;
  } catch (error) {
    progress.stop();
    if (!(error instanceof ImportInterrupted)) throw error;
    console.error(`import ${path}: ${error.message}`);
    console.error(`  so far: ${summaryLine(error.summary)}; --resume goes on from there`);
    return 2;
  } finally {
    await log.close();
  }
};

await runCommand(USAGE, main);
