/**
 * `npm run export`: every full Person as NDJSON, to stdout or `--out FILE`, with progress on stderr.
 * docs/import-export.md has the options; exit status 0 when every person was
 * written, 2 when the export could not start or stopped.
 */
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { API_OPTIONS, apiOf, checkApi, clientFromFlags } from './api-options';
import { runCommand, UsageError } from './command';
import { ExportFailed, exportPersons } from './exporter';
import { openWritable } from './files';
import { progressReporter } from './progress';

const USAGE = `usage: npm run export -- [--out FILE] [--api URL] [--token JWT | --sigv4 [--region R]] [--limit N]`;

const main = async (argv: string[]): Promise<number> => {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { ...API_OPTIONS, out: { type: 'string' }, limit: { type: 'string', default: '100' } },
  });
  const limit = Number(values.limit);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 500)
    throw new UsageError('--limit must be an integer from 1 to 500');
  const client = clientFromFlags(values);
  const api = apiOf(values);
  await checkApi(client, api);
  const { text } = await client.send({ method: 'GET', path: '/Person?limit=0' });
  const total = (JSON.parse(text) as { Pagination: { count: number } }).Pagination.count;

  const out = values.out ? await openWritable(values.out, 'w') : process.stdout;
  const progress = progressReporter(total, { label: 'export' });
  const started = performance.now();
  try {
    const written = await exportPersons({
      client,
      out,
      limit,
      onPage: (done) => progress.update(done, ''),
    });
    progress.stop();
    if (values.out) {
      out.end();
      await finished(out);
    }
    const seconds = (performance.now() - started) / 1000;
    console.error(
      `export: ${written} persons to ${values.out ?? 'stdout'} in ${seconds.toFixed(1)} s (${(written / seconds).toFixed(1)}/s)`,
    );
    return 0;
  } catch (error) {
    progress.stop();
    if (!(error instanceof ExportFailed)) throw error;
    console.error(`export: ${error.message}`);
    return 2;
  }
};

await runCommand(USAGE, main);
