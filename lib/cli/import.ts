/**
 * `npm run import -- FILE`: loads a file of persons (NDJSON or a JSON array, our shape or GRC's)
 * through the API. docs/import-export.md has the options; exit status 0 when nothing
 * was refused (or `--allow-rejects`), 1 when something was, 2 when the run could not start or finish.
 */
import { parseArgs } from 'node:util';
import { API_OPTIONS, apiOf, checkApi, clientFromFlags } from './api-options';
import { runCommand, UsageError } from './command';
import {
  DEFAULT_CONCURRENCY,
  ImportInterrupted,
  type ImportSummary,
  importPersons,
  refusedCount,
} from './importer';
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

/** An argument as a POSIX shell reads it back: as it is when that is safe, else in single quotes. */
const shellQuoted = (arg: string) =>
  /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * The command that goes on from where this run stopped: the same arguments and `--resume`. A token is
 * not printed (the terminal or the CI log may be read by others): `"$TOKEN"` stands for it.
 */
const resumeCommand = (argv: readonly string[]) => {
  const args: string[] = [];
  for (let at = 0; at < argv.length; at++) {
    const arg = argv[at] as string;
    if (arg === '--token' && at + 1 < argv.length) {
      args.push('--token', '"$TOKEN"');
      at++;
    } else if (arg.startsWith('--token=')) args.push('--token="$TOKEN"');
    else args.push(shellQuoted(arg));
  }
  if (!argv.includes('--resume')) args.push('--resume');
  return `npm run import -- ${args.join(' ')}`;
};

/**
 * A Ctrl-C under `npm run` reaches the import twice at once (from the terminal, and forwarded by npm
 * to its child): a signal this soon after the first is the same Ctrl-C, not a second one.
 */
const SAME_SIGNAL_MS = 1_000;

const main = async (argv: string[]): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...API_OPTIONS,
      requester: { type: 'string', default: '0' },
      concurrency: { type: 'string', default: String(DEFAULT_CONCURRENCY) },
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
  const before = log.settled.size;
  const progress = progressReporter(file.total, { start: before });
  let done = before;
  let created = 0;
  let refused = 0;

  // Ctrl-C (or a SIGTERM): send no more lines, let the ones in flight end and be recorded, put the
  // terminal back (the bar hid the cursor and turned line wrap off), say how to go on. Again: at once.
  const stopping = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  let stoppedAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stoppedBy === undefined) {
      stoppedBy = signal;
      stoppedAt = Date.now();
      stopping.abort();
      progress.stop();
      console.error(
        `import ${path}: ${signal}: sending no more lines, waiting for those in flight (Ctrl-C again to quit now)`,
      );
      return;
    }
    if (Date.now() - stoppedAt < SAME_SIGNAL_MS) return;
    progress.stop();
    console.error(`import ${path}: stopped at once; the lines in flight are sent again, and replayed, by:`);
    console.error(`  ${resumeCommand(argv)}`);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    const summary = await importPersons({
      file,
      client,
      requester,
      concurrency,
      settled: log.settled,
      signal: stopping.signal,
      onOutcome: async (outcome) => {
        await log.record(outcome);
        done++;
        if (outcome.outcome === 'created' || outcome.outcome === 'replayed') created++;
        else refused++;
        progress.update(done, `stored ${created}, refused ${refused}`);
      },
    });
    progress.stop();
    if (stoppedBy !== undefined) {
      const sent = summary.created + summary.replayed + refusedCount(summary);
      const left = summary.total - summary.skipped - sent;
      console.error(
        `import ${path}: stopped (${stoppedBy}) with ${left} of ${summary.total} records left: ` +
          `sent ${sent} (${summaryLine(summary)})`,
      );
      console.error(`  map: ${paths.map}   rejects: ${paths.rejects}`);
      console.error(`  to go on: ${resumeCommand(argv)}`);
      return 130;
    }
    console.log(`import ${path}: ${summaryLine(summary)}`);
    console.log(`  map: ${paths.map}   rejects: ${paths.rejects}`);
    return refusedCount(summary) === 0 || values['allow-rejects'] ? 0 : 1;
  } catch (error) {
    progress.stop();
    if (!(error instanceof ImportInterrupted)) throw error;
    console.error(`import ${path}: ${error.message}`);
    console.error(`  so far: ${summaryLine(error.summary)}; --resume goes on from there:`);
    console.error(`  ${resumeCommand(argv)}`);
    return 2;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await log.close();
  }
};

await runCommand(USAGE, main);
