/**
 * `npm run export` against `npm start`, from the outside, and the round trip it exists for: export a
 * store, import the file into an empty one, and the persons are the same (ids and dates aside).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personBody } from '../support/api';
import { cli } from '../support/cli';
import { request } from '../support/http';
import { type ServerProcess, startServer } from '../support/server';

let source: ServerProcess;
let target: ServerProcess;
let folder: string;

beforeAll(async () => {
  [source, target, folder] = await Promise.all([
    startServer({ env: { ENRICHMENT: 'off' } }),
    startServer({ env: { ENRICHMENT: 'off' } }),
    mkdtemp(join(tmpdir(), 'export-')),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([source?.stop(), target?.stop()]);
});

const post = async (api: string, body: object) => {
  const response = await request(api, 'POST', '/Person', { body, requester: 0 });
  expect(response.status).toBe(201);
};

const countOf = async (api: string) =>
  ((await (await fetch(`${api}/Person?limit=0`)).json()) as { Pagination: { count: number } }).Pagination
    .count;

/** What a person is, apart from what a store assigns: ids, links, ownership keys, metadata. */
const ASSIGNED = new Set(['id', '@id', 'person_fk', 'CoreMetaData', '@context']);
const withoutAssigned = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutAssigned);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !ASSIGNED.has(key))
      .map(([key, inner]) => [key, withoutAssigned(inner)]),
  );
};
const personsIn = async (path: string) =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const comparable = (persons: Record<string, unknown>[]) =>
  persons
    .map(withoutAssigned)
    .map((person) => JSON.stringify(person))
    .sort();

describe('npm run export', () => {
  let exported: string;

  beforeAll(async () => {
    for (const sample of ['docs/samples/persons.ndjson', 'docs/samples/grc-persons.json']) {
      const run = await cli('import', [
        sample,
        '--api',
        source.url,
        '--map',
        join(folder, 'm'),
        '--rejects',
        join(folder, 'r'),
      ]);
      expect(run.code, run.output).toBe(0);
    }
    // Persons with every kind of sub-object, and more of them than one page holds.
    await post(source.url, {
      ...personBody('Mary', 'Somerville', 'mary.somerville@example.org', 'm.somerville@example.net'),
      local_reference_id: 'full-1',
      PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0002', local_reference_id: 'p1' }] },
      PostalAddresses: { '@set': [{ address1: '12 Chelsea Square', city: 'London', country_code: 'GB' }] },
      PersonRoles: { '@set': [{ name: 'Mathematician' }] },
      SocialAddresses: { linkedin: 'https://www.linkedin.com/in/mary-somerville-example' },
    });
    // 49 persons in all: two pages of --limit 25, the second one short.
    for (let n = 0; n < 40; n++)
      await post(source.url, personBody(`Page${n}`, 'Filler', `filler-${n}@example.org`));
    exported = join(folder, 'source.ndjson');
    const run = await cli('export', ['--api', source.url, '--out', exported, '--limit', '25']);
    expect(run.code, run.output).toBe(0);
  }, 180_000);

  it('writes every person once, as GET /Person/{id} answers it, and says how many', async () => {
    const persons = await personsIn(exported);
    const total = await countOf(source.url);

    expect(persons).toHaveLength(total);
    expect(new Set(persons.map(({ id }) => id)).size).toBe(total);
    const one = persons.find(({ local_reference_id }) => local_reference_id === 'full-1');
    expect(one).toEqual(await (await fetch(`${source.url}/Person/${one?.id}`)).json());
  });

  it('gives the same persons back when its file is imported into an empty store (ids and dates aside)', async () => {
    const run = await cli('import', [exported, '--api', target.url]);
    expect(run.code, run.output).toBe(0);
    const again = join(folder, 'target.ndjson');
    expect((await cli('export', ['--api', target.url, '--out', again])).code).toBe(0);

    expect(comparable(await personsIn(again))).toEqual(comparable(await personsIn(exported)));
  }, 180_000);

  it('writes to stdout when given no file, with progress and its summary on stderr only', async () => {
    const run = await cli('export', ['--api', source.url]);

    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(await countOf(source.url));
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ '@type': 'Person' });
    expect(run.output).toMatch(/export: \d+ persons to stdout in [\d.]+ s/);
  }, 60_000);

  it('refuses a limit the API does not take, before it asks anything', async () => {
    const run = await cli('export', ['--api', source.url, '--limit', '501']);

    expect(run.code).toBe(2);
    expect(run.output).toContain('--limit must be an integer from 1 to 500');
  });
});
