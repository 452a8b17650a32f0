/**
 * Section 7: bulk import and export (issue #35). A local HTTP server over the bench table with the
 * handlers wired as deployed (the create with its idempotency store), then
 * - a sequential loop of single POSTs, one after the other, as a client without the importer sends;
 * - `npm run import`'s code (lib/cli/importer.ts) on a fresh file at each concurrency;
 * - `npm run export`'s code (lib/cli/exporter.ts) over the whole table, its output counted and dropped.
 * Each run creates its own persons (names and emails of one length), so every run pays the same.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { buildHandler as buildExport } from '../../functions/export-persons';
import { buildHandler as buildList } from '../../functions/list-persons';
import { apiClient } from '../../lib/cli/api-client';
import { exportPersons } from '../../lib/cli/exporter';
import { importPersons, refusedCount } from '../../lib/cli/importer';
import { openPersonFile } from '../../lib/cli/person-file';
import { idempotencyStore } from '../../lib/db/idempotency/idempotency-store';
import { personExport } from '../../lib/db/person/read/person-export';
import { personList } from '../../lib/db/person/read/person-list';
import { personRepository } from '../../lib/db/person-repository';
import type { Storage } from '../../lib/db/table/client';
import { createLocalServer, type HttpFunction } from '../../lib/local/server';
import { type Instrument, newTally } from './capacity';
import type { BenchConfig } from './config';

export interface BulkRow {
  /** `sequential POSTs`, or `import at concurrency N`. */
  run: string;
  concurrency: number;
  persons: number;
  seconds: number;
  perSecond: number;
  /** Over the sequential loop's rate. */
  overSequential: number;
}

export interface BulkSection {
  rows: BulkRow[];
  export: { persons: number; seconds: number; perSecond: number; callsPerPerson: number; pages: number };
}

const bodyOf = (run: string, n: number) => ({
  Names: { '@set': [{ first_name: `Bulk${String(n).padStart(5, '0')}`, last_name: `Run ${run}` }] },
  Emails: { '@set': [{ email: `bulk-${run}-${String(n).padStart(5, '0')}@bench.example.org` }] },
});

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

export const runBulk = async (
  storage: Storage,
  raw: DynamoDBClient,
  instrument: Instrument,
  config: BenchConfig,
  log: (message: string) => void,
): Promise<BulkSection> => {
  const { persons: perRun, concurrencies, exportLimit } = config.bulk;
  const handlers: Record<string, HttpFunction> = {
    'create-person': buildCreate({
      persons: personRepository(storage),
      idempotency: { store: idempotencyStore({ client: raw, tableName: storage.tableName }) },
    }) as HttpFunction,
    'list-persons': buildList({ personList: personList(storage) }) as HttpFunction,
    'export-persons': buildExport({ personExport: personExport(storage) }) as HttpFunction,
  };
  const server: Server = createLocalServer({
    load: async (name) => {
      const handler = handlers[name];
      if (!handler) throw new Error(`The benchmark serves no ${name}`);
      return handler;
    },
    onError: (error) => log(`bulk server: ${String(error)}`),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const folder = await mkdtemp(join(tmpdir(), 'bench-bulk-'));
  const runId = Date.now().toString(36);
  try {
    // A warm-up: the handlers' first requests (module setup, id block, connections) are in no run.
    const warm = apiClient({ api });
    for (let n = 0; n < 5; n++)
      await warm.send({
        method: 'POST',
        path: '/Person',
        headers: { 'x-requester-person': '0' },
        body: JSON.stringify(bodyOf(`${runId}-warm`, n)),
      });

    const rows: Omit<BulkRow, 'overSequential'>[] = [];
    log(`bulk: ${perRun} sequential POSTs`);
    const client = apiClient({ api });
    let started = performance.now();
    for (let n = 0; n < perRun; n++) {
      const answer = await client.send({
        method: 'POST',
        path: '/Person',
        headers: { 'x-requester-person': '0' },
        body: JSON.stringify(bodyOf(`${runId}-seq`, n)),
      });
      if (answer.status !== 201)
        throw new Error(`sequential POST: ${answer.status} ${answer.text.slice(0, 300)}`);
    }
    let seconds = (performance.now() - started) / 1000;
    rows.push({
      run: 'sequential POSTs (no key)',
      concurrency: 1,
      persons: perRun,
      seconds,
      perSecond: perRun / seconds,
    });

    for (const concurrency of concurrencies) {
      const path = join(folder, `c${concurrency}.ndjson`);
      const run = `${runId}-c${concurrency}`;
      await writeFile(
        path,
        Array.from({ length: perRun }, (_, n) => `${JSON.stringify(bodyOf(run, n))}\n`).join(''),
      );
      log(`bulk: import of ${perRun} persons at concurrency ${concurrency}`);
      const file = await openPersonFile(path);
      started = performance.now();
      const summary = await importPersons({ file, client: apiClient({ api }), requester: 0, concurrency });
      seconds = (performance.now() - started) / 1000;
      if (summary.created !== perRun || refusedCount(summary) > 0)
        throw new Error(`import at ${concurrency}: ${JSON.stringify(summary)}`);
      rows.push({
        run: `npm run import, --concurrency ${concurrency}`,
        concurrency,
        persons: perRun,
        seconds,
        perSecond: perRun / seconds,
      });
    }
    const sequential = rows[0]?.perSecond ?? 1;

    log('bulk: export of the whole table');
    let written = 0;
    let pages = 0;
    const sink = new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk).length > 0 ? 1 : 0;
        done();
      },
    });
    const tally = newTally();
    instrument.tally = tally;
    started = performance.now();
    const exported = await exportPersons({
      client: apiClient({ api }),
      out: sink,
      limit: exportLimit,
      onPage: () => {
        pages++;
      },
    });
    seconds = (performance.now() - started) / 1000;
    instrument.tally = undefined;
    const { calls } = tally;
    if (exported !== written) throw new Error(`export wrote ${written} lines for ${exported} persons`);
    return {
      rows: rows.map((row) => ({
        ...row,
        seconds: round(row.seconds),
        perSecond: round(row.perSecond, 1),
        overSequential: round(row.perSecond / sequential),
      })),
      export: {
        persons: exported,
        seconds: round(seconds),
        perSecond: round(exported / seconds, 1),
        callsPerPerson: round(calls / Math.max(1, exported), 3),
        pages,
      },
    };
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
};
