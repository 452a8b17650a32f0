/**
 * `npm run import` (and `npm run export`) on input that once got altered or crashed the tool (issue #53
 * step 10), run as a user runs them against `npm start`: a line that is not UTF-8 is refused, not sent
 * with U+FFFD in place of its bytes; a line or element nested 100 000 deep is the API's to refuse, and
 * the rejects hold it, with no stack trace; a folder or a missing path is a message and exit status 2.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail, uniqueTag } from '../support/api';
import { cli } from '../support/cli';
import { serverSuite } from '../support/server-suite';

const server = serverSuite({ env: { ENRICHMENT: 'off' } });
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'import-input-'));
});

const person = (first: string, reference = uniqueTag('ref')) => ({
  local_reference_id: reference,
  Names: { '@set': [{ first_name: first, last_name: 'Input' }] },
  Emails: { '@set': [{ email: uniqueEmail() }] },
});
const line = (value: unknown) => Buffer.from(`${JSON.stringify(value)}\n`);
const linesOf = async (path: string) =>
  (await readFile(path, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text));
const countOf = async (reference: string) => {
  const response = await fetch(`${server.url}/Person?limit=0&local_reference_id=${reference}`);
  return ((await response.json()) as { Pagination: { count: number } }).Pagination.count;
};
/** What a crash prints: a stack frame, or an error object's fields. */
const CRASH = /\n\s+at |RangeError|errno:|code: '/;

describe('a line that is not UTF-8', () => {
  it('is refused, in the rejects with its line number and bytes, and the other lines imported', async () => {
    const [good, bad, after] = [uniqueTag('utf8'), uniqueTag('latin1'), uniqueTag('utf8')];
    // "José" as Windows-1252 writes it: E9 alone, no UTF-8 sequence.
    const latin1 = Buffer.from(JSON.stringify(person('José', bad)), 'latin1');
    const path = join(folder, 'latin1.ndjson');
    await writeFile(
      path,
      Buffer.concat([line(person('Zoë', good)), latin1, Buffer.from('\n'), line(person('Ann', after))]),
    );

    const run = await cli('import', [path, '--api', server.url]);

    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain('3 records, created 2, replayed 0, refused 1 (not-utf-8 1)');
    expect(run.output).not.toMatch(CRASH);
    expect(await countOf(bad)).toBe(0);
    expect([await countOf(good), await countOf(after)]).toEqual([1, 1]);
    const [reject, ...others] = await linesOf(join(folder, 'latin1.rejects.ndjson'));
    expect(others).toEqual([]);
    expect(reject).toMatchObject({
      line: 2,
      type: 'not-utf-8',
      detail: expect.stringMatching(/^line 2 is not UTF-8: byte 0xE9 at byte \d+ of the line/),
    });
    expect(Buffer.from(reject.input_base64, 'base64').equals(latin1)).toBe(true);
    expect((await linesOf(join(folder, 'latin1.map.ndjson'))).map(({ line }) => line).sort()).toEqual([1, 3]);
  }, 60_000);
});

describe('input nested 100 000 deep', () => {
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

  it('as an NDJSON line, is sent, refused by the API and kept in the rejects as written', async () => {
    const reference = uniqueTag('deep');
    const path = join(folder, 'deep.ndjson');
    await writeFile(path, Buffer.concat([line(person('Deep', reference)), Buffer.from(`${deep}\n`)]));

    const run = await cli('import', [path, '--api', server.url]);

    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain('2 records, created 1, replayed 0, refused 1 (validation-error 1)');
    expect(run.output).not.toMatch(CRASH);
    expect(await countOf(reference)).toBe(1);
    expect(await linesOf(join(folder, 'deep.rejects.ndjson'))).toEqual([
      expect.objectContaining({ line: 2, status: 400, type: 'validation-error', input: deep }),
    ]);
  }, 60_000);

  it('as an element of a JSON array, is sent as written (not written again) and refused by the API', async () => {
    const reference = uniqueTag('deep');
    const path = join(folder, 'deep.json');
    await writeFile(path, `[${JSON.stringify(person('Deep', reference))},\n${deep}]\n`);

    const run = await cli('import', [path, '--api', server.url]);

    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain('2 records, created 1, replayed 0, refused 1 (validation-error 1)');
    expect(run.output).not.toMatch(CRASH);
    expect(await countOf(reference)).toBe(1);
    expect(await linesOf(join(folder, 'deep.rejects.ndjson'))).toEqual([
      expect.objectContaining({ line: 2, status: 400, input: deep }),
    ]);
  }, 60_000);
});

describe('a path that is no file to read or write', () => {
  beforeAll(async () => {
    await mkdir(join(folder, 'persons.ndjson'));
    await mkdir(join(folder, 'a-folder'));
    await writeFile(join(folder, 'one.ndjson'), line(person('One')));
  });

  it.each([
    ['import', ['persons.ndjson'], /persons\.ndjson is a folder, not a file/],
    ['import', ['missing.ndjson'], /missing\.ndjson: no such file/],
    ['import', ['one.ndjson', '--map', 'a-folder'], /a-folder is a folder, not a file/],
    ['import', ['one.ndjson', '--rejects', 'a-folder'], /a-folder is a folder, not a file/],
    [
      'import',
      ['one.ndjson', '--map', join('no-folder', 'map.ndjson')],
      /map\.ndjson: there is no folder \S*no-folder to write it in/,
    ],
    ['export', ['--out', 'a-folder'], /a-folder is a folder, not a file/],
    [
      'export',
      ['--out', join('no-folder', 'out.ndjson')],
      /out\.ndjson: there is no folder \S*no-folder to write it in/,
    ],
  ])('%s %j: exit 2 with a message, no error object', async (tool, args, message) => {
    const paths = args.map((arg) => (arg.startsWith('--') ? arg : join(folder, arg)));

    const run = await cli(tool, [...paths, '--api', server.url]);

    expect(run.code, run.output).toBe(2);
    expect(run.output).toMatch(message);
    expect(run.output).not.toMatch(CRASH);
    expect(run.output).not.toMatch(/EISDIR|ENOENT/);
  });
});
