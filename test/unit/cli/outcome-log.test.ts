import { appendFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openOutcomeLog, outcomePathsFor } from '../../../lib/cli/outcome-log';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'outcome-log-'));
});

const linesOf = async (path: string) =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe('the map and the rejects of an import', () => {
  it('sit beside the input, named after it', () => {
    expect(outcomePathsFor('samples/persons.ndjson')).toEqual({
      map: 'samples/persons.map.ndjson',
      rejects: 'samples/persons.rejects.ndjson',
    });
  });

  it('record each person stored in the map and each refusal in the rejects', async () => {
    const paths = { map: join(folder, 'a.map.ndjson'), rejects: join(folder, 'a.rejects.ndjson') };
    const log = await openOutcomeLog(paths, false);
    const problem = { type: '/problems/duplicate-email', status: 409 };

    await log.record({ line: 1, outcome: 'created', id: 30711, local_reference_id: 'hr-1' });
    await log.record({ line: 2, outcome: 'replayed', id: 30712, local_reference_id: null });
    await log.record({
      line: 3,
      outcome: 'refused',
      status: 409,
      type: 'duplicate-email',
      input: { a: 1 },
      problem,
    });
    await log.close();

    expect(await linesOf(paths.map)).toEqual([
      { line: 1, id: 30711, local_reference_id: 'hr-1' },
      { line: 2, id: 30712, local_reference_id: null, replayed: true },
    ]);
    expect(await linesOf(paths.rejects)).toEqual([
      { line: 3, status: 409, type: 'duplicate-email', input: { a: 1 }, problem },
    ]);
  });

  it('tell a resumed run which lines are settled, a line cut short by a kill not among them, and are appended to', async () => {
    const paths = { map: join(folder, 'b.map.ndjson'), rejects: join(folder, 'b.rejects.ndjson') };
    const first = await openOutcomeLog(paths, false);
    await first.record({ line: 1, outcome: 'created', id: 1, local_reference_id: null });
    await first.record({
      line: 4,
      outcome: 'refused',
      status: 400,
      type: 'validation-error',
      input: 'x',
      problem: {},
    });
    await first.close();
    await appendFile(paths.map, '{"line":7,"id":');

    const resumed = await openOutcomeLog(paths, true);
    await resumed.record({ line: 2, outcome: 'created', id: 2, local_reference_id: null });
    await resumed.close();

    expect([...resumed.settled].sort()).toEqual([1, 4]);
    expect((await readFile(paths.map, 'utf8')).startsWith('{"line":1,"id":1')).toBe(true);
    expect(
      (await readFile(paths.map, 'utf8')).trimEnd().endsWith('{"line":2,"id":2,"local_reference_id":null}'),
    ).toBe(true);
  });

  it('start afresh when not resuming', async () => {
    const paths = { map: join(folder, 'b.map.ndjson'), rejects: join(folder, 'b.rejects.ndjson') };
    const log = await openOutcomeLog(paths, false);
    await log.close();

    expect(log.settled.size).toBe(0);
    expect(await readFile(paths.map, 'utf8')).toBe('');
  });
});
