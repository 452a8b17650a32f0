/**
 * `npm run duplicates -- --scan` (API.md 12.1, issue #57 step 3) against DynamoDB Local: a store whose
 * persons were written with no detector running is checked once, page by page; a run stopped after a
 * page goes on from there; a finished scan checks nothing until it is restarted; and the command
 * itself, on a running DynamoDB Local.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { duplicateReads } from '../../lib/db/duplicates/duplicate-reads';
import { pairStore } from '../../lib/db/duplicates/pair-store';
import { scanPositions } from '../../lib/db/duplicates/scan-position';
import { personExport } from '../../lib/db/person/read/person-export';
import { pairIdOf } from '../../lib/domain/duplicates';
import { scanDuplicates } from '../../lib/duplicates/scan-duplicates';
import { createTestTable, type TestTable, testRepository } from '../../test/support/dynamo';
import { personApi, uniqueEmail } from '../support/api';
import { checkInvariants, snapshot } from '../support/invariants';

const run = promisify(execFile);

/** A table of its own with `twins` planted pairs (a person with an email and phone, and its email-less twin) and `others` unalike persons: the pairs' ids. */
const plantedStore = async (twins: number, others: number) => {
  const table = await createTestTable();
  const api = personApi(testRepository(table));
  const create = async (body: object) => {
    const { status, body: created } = await api.post(body);
    expect(status).toBe(201);
    return created.id as number;
  };
  const pairs: string[] = [];
  for (let n = 0; n < twins; n++) {
    const last = `Twin${'abcdefghij'[n % 10]}${'klmnopqrst'[Math.floor(n / 10) % 10]}`;
    const phone = { PhoneNumbers: { '@set': [{ phone_number: `+44 20 7946 ${String(1000 + n)}` }] } };
    const names = { Names: { '@set': [{ first_name: 'Planted', last_name: last }] } };
    const first = await create({ ...names, ...phone, Emails: { '@set': [{ email: uniqueEmail('t') }] } });
    const second = await create({ ...names, ...phone });
    pairs.push(pairIdOf(first, second));
  }
  for (let n = 0; n < others; n++)
    await create({
      Names: { '@set': [{ first_name: `Other${'abcdefghij'[n % 10]}`, last_name: `Alone${n}x` }] },
    });
  return { table, pairs };
};

const depsOf = (table: TestTable) => ({
  persons: personExport(table),
  positions: scanPositions(table),
  detector: { reads: duplicateReads(table), pairs: pairStore(table) },
});

const openPairs = async (table: TestTable, ids: readonly string[]) =>
  (await Promise.all(ids.map((id) => pairStore(table).get(id)))).filter(
    (stored) => stored?.pair.status === 'open',
  ).length;

describe('npm run duplicates -- --scan', () => {
  it('checks every person once, page by page, and finds every planted pair', async () => {
    const { table, pairs } = await plantedStore(6, 5);
    expect(await openPairs(table, pairs)).toBe(0);
    const pages: number[] = [];
    const result = await scanDuplicates(depsOf(table), {
      limit: 4,
      onPage: ({ checked }) => void pages.push(checked),
    });
    expect(result).toMatchObject({ checked: 17, done: true, created: 6, alreadyDone: false });
    // Pages of at most 4 (the export's pages may hold fewer), the last at the end.
    expect(pages.at(-1)).toBe(17);
    expect(pages.every((checked, n) => checked - (pages[n - 1] ?? 0) <= 4)).toBe(true);
    expect(await openPairs(table, pairs)).toBe(6);
    // Finished: a second run checks nothing and writes nothing, until restarted (which finds nothing new).
    const before = await snapshot(table);
    expect(await scanDuplicates(depsOf(table))).toMatchObject({ alreadyDone: true, checked: 17 });
    expect(await scanDuplicates(depsOf(table), { restart: true })).toMatchObject({ checked: 17, created: 0 });
    expect((await snapshot(table)).filter((item) => item.pk !== 'DUPSCAN#persons')).toEqual(
      before.filter((item) => item.pk !== 'DUPSCAN#persons'),
    );
    expect(await checkInvariants(table)).toEqual([]);
  }, 60_000);

  it('goes on from its last page when a run stops in the middle', async () => {
    const { table, pairs } = await plantedStore(4, 2);
    const stop = new Error('stopped');
    await expect(
      scanDuplicates(depsOf(table), {
        limit: 3,
        onPage: ({ checked }) => {
          if (checked >= 6) throw stop;
        },
      }),
    ).rejects.toBe(stop);
    const stopped = await scanPositions(table).read();
    expect(stopped).toMatchObject({ done: false });
    const stoppedAt = stopped?.checked ?? 0;
    expect(stoppedAt).toBeGreaterThanOrEqual(6);
    // The run goes on: it checks the persons after the stop, and only they (10 in all).
    const deps = depsOf(table);
    const checked = new Set<number>();
    const { reads } = deps.detector;
    const counting = {
      ...deps,
      detector: {
        ...deps.detector,
        reads: {
          ...reads,
          stored: (id: number) => {
            checked.add(id);
            return reads.stored(id);
          },
        },
      },
    };
    expect(await scanDuplicates(counting, { limit: 3 })).toMatchObject({ checked: 10, done: true });
    expect(checked.size).toBe(10 - stoppedAt);
    expect(await openPairs(table, pairs)).toBe(4);
  }, 60_000);

  it('runs as a command on a running DynamoDB Local, with a summary line', async () => {
    const { table, pairs } = await plantedStore(2, 1);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'lib/local/duplicates.ts', '--scan'], {
      env: { ...process.env, DYNAMODB_ENDPOINT: inject('dynamoEndpoint'), TABLE_NAME: table.tableName },
    });
    expect(stdout).toMatch(
      new RegExp(
        `^duplicates ${table.tableName}: 5 persons checked, 2 new pair\\(s\\) in [\\d.]+ s; GET /duplicates lists them\\n$`,
      ),
    );
    expect(await openPairs(table, pairs)).toBe(2);
    const again = await run(process.execPath, ['--import', 'tsx', 'lib/local/duplicates.ts', '--scan'], {
      env: { ...process.env, DYNAMODB_ENDPOINT: inject('dynamoEndpoint'), TABLE_NAME: table.tableName },
    });
    expect(again.stdout).toContain('the scan finished before (5 persons checked)');
    await expect(
      run(process.execPath, ['--import', 'tsx', 'lib/local/duplicates.ts'], { env: { ...process.env } }),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--scan is the job this command runs'),
    });
  }, 60_000);
});
