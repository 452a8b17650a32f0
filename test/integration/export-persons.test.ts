/**
 * GET /Person/export against DynamoDB Local: following `next` from the first page gives every person
 * exactly once (those of the 8 shards and of the legacy partition), each as GET /Person/{id} answers
 * it, whatever the page size; every page costs a few calls whatever the table holds; a bad limit,
 * cursor or parameter is 400 problem+json.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildExport } from '../../functions/export-persons';
import { personExport } from '../../lib/db/person/read/person-export';
import {
  LEGACY_PERSON_LIST_PARTITION,
  PERSON_LIST_INDEX,
  PERSON_LIST_PARTITIONS,
  personKey,
  personListKey,
} from '../../lib/db/table/keys';
import { seedPersons } from '../bench/seed';
import { type Json, personApi, personBody, uniqueEmail } from '../support/api';
import { createTestTable, type TestTable, testRepository } from '../support/dynamo';
import { httpEvent, invoke } from '../support/events';
import { scanAll } from '../support/invariants';

interface ExportPage {
  '@context': string;
  '@type': string;
  '@set': (Json & { id: number })[];
  next: string | null;
}

/** One DynamoDB call a page made: the command, and for a Query the index and how many items came. */
interface Call {
  command: string;
  index?: string;
  items: number;
}

const SEEDED = 250;

let table: TestTable;
let api: ReturnType<typeof personApi>;
/** Every person stored, by id. */
let stored: Set<number>;
let legacyId: number;
/** The calls of the request under way. */
let calls: Call[] = [];

const exportHandler = (maxPageBytes?: number) =>
  buildExport({ personExport: personExport({ ...table, ...(maxPageBytes ? { maxPageBytes } : {}) }) });

/** One request to the export, with the calls it made. */
const request = async (query: Record<string, string>, maxPageBytes?: number) => {
  calls = [];
  const response = await invoke<ExportPage>(
    exportHandler(maxPageBytes),
    httpEvent({ method: 'GET', route: '/Person/export', ...(Object.keys(query).length ? { query } : {}) }),
  );
  return { ...response, calls };
};

/** The query of a `next` link, checked to be an absolute link to the export built like the others. */
const queryOfNext = (next: string, limit: string) => {
  const url = new URL(next);
  expect(`${url.origin}${url.pathname}`).toBe('https://api.example.test/Person/export');
  expect([...url.searchParams.keys()]).toEqual(['limit', 'cursor']);
  expect(url.searchParams.get('limit')).toBe(limit);
  return Object.fromEntries(url.searchParams);
};

/** Follows `next` from the first page to the end: each page's persons and calls. */
const exportAll = async (limit: string, maxPageBytes?: number, cursor?: string) => {
  const pages: { persons: ExportPage['@set']; calls: Call[] }[] = [];
  let query: Record<string, string> | null = { limit, ...(cursor ? { cursor } : {}) };
  while (query) {
    const { status, headers, body, calls: made } = await request(query, maxPageBytes);
    expect(status).toBe(200);
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(headers['cache-control']).toBe('no-store');
    expect(body['@type']).toBe('PersonExport');
    expect(body['@context']).toBe('https://api.example.test/context.jsonld');
    pages.push({ persons: body['@set'], calls: made });
    query = body.next === null ? null : queryOfNext(body.next, limit);
    expect(pages.length).toBeLessThan(SEEDED * 2);
  }
  return pages;
};

const idsOf = (pages: { persons: { id: number }[] }[]) =>
  pages.flatMap(({ persons }) => persons.map(({ id }) => id));

const queries = (made: Call[]) => made.filter(({ command }) => /^Query/.test(command));
const batchGets = (made: Call[]) => made.filter(({ command }) => /^BatchGet/.test(command));

beforeAll(async () => {
  table = await createTestTable();
  table.client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const input = args.input as { IndexName?: string };
      calls.push({
        command: context.commandName ?? '',
        ...(input.IndexName ? { index: input.IndexName } : {}),
        items: ((result.output as { Items?: unknown[] }).Items ?? []).length,
      });
      return result;
    },
    { step: 'initialize', name: 'recordExportCalls' },
  );
  api = personApi(testRepository(table));
  // Persons the API made, with more than a name: phones, addresses, a vocabulary prefix, no email.
  for (const body of [
    { ...personBody('Ada', 'Lovelace', uniqueEmail('export')), local_reference_id: 'ada-1' },
    {
      ...personBody('Grace', 'Hopper'),
      PhoneNumbers: { '@set': [{ phone_number: '+1 555 0100' }] },
      PostalAddresses: { '@set': [{ address1: '1 Navy Yard', city: 'Arlington', country_code: 'US' }] },
    },
    { Names: { '@set': [{ first_name: 'James', last_name: 'Doolittle', name_prefix_fk: 21 }] } },
    { Names: { '@set': [{ freeform_name: 'Cher' }] } },
    personBody('Zoë', 'Ñandú', uniqueEmail('export'), uniqueEmail('export')),
  ])
    expect((await api.post(body)).status).toBe(201);
  await seedPersons(table, { from: 0, count: SEEDED });
  const persons = (await scanAll(table)).filter((item) => item.type === 'Person');
  stored = new Set(persons.map((item) => item.id as number));
  // One person as a table written before the split holds it: in the one old partition.
  legacyId = persons[0]?.id as number;
  await table.client.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: personKey(legacyId),
      UpdateExpression: 'SET listPk = :legacy',
      ExpressionAttributeValues: { ':legacy': LEGACY_PERSON_LIST_PARTITION },
    }),
  );
}, 120_000);

describe('GET /Person/export', () => {
  it('has persons in every shard and one in the legacy partition (the checks below need them)', async () => {
    const partitions = new Set(
      (await scanAll(table)).filter((item) => item.type === 'Person').map((item) => item.listPk),
    );
    expect([...partitions].sort()).toEqual([...PERSON_LIST_PARTITIONS].sort());
    expect(stored.size).toBe(SEEDED + 5);
  });

  it.each(['7', '500'])(
    'with limit=%s gives every person exactly once, each as GET /Person/{id} answers it, and next null at the end',
    async (limit) => {
      const pages = await exportAll(limit);
      const ids = idsOf(pages);

      expect(ids.length).toBe(stored.size);
      expect(new Set(ids)).toEqual(stored);
      expect(ids).toContain(legacyId);
      for (const { persons } of pages) expect(persons.length).toBeLessThanOrEqual(Number(limit));
      for (const person of pages.flatMap(({ persons }) => persons)) {
        const { status, body } = await api.get(person.id);
        expect(status).toBe(200);
        expect(person).toEqual(body);
      }
    },
    120_000,
  );

  it.each(['7', '100', '500'])(
    'with limit=%s costs at most two calls per person, a page at most two Queries of the index and one BatchGetItem per 100',
    async (limit) => {
      const pages = await exportAll(limit);
      const made = pages.flatMap(({ calls: page }) => page);

      expect(made.length).toBeLessThanOrEqual(2 * stored.size);
      for (const { persons, calls: page } of pages) {
        expect(queries(page).length).toBeGreaterThanOrEqual(1);
        expect(queries(page).length).toBeLessThanOrEqual(2);
        expect(queries(page).every(({ index }) => index === PERSON_LIST_INDEX)).toBe(true);
        // A Query reads at most one entry more than the page takes: cost grows with the page.
        expect(queries(page).reduce((sum, { items }) => sum + items, 0)).toBeLessThanOrEqual(
          Number(limit) + 2,
        );
        expect(batchGets(page).length).toBe(Math.ceil(persons.length / 100));
        expect(page.length).toBe(queries(page).length + batchGets(page).length);
      }
      // About two calls per 100 persons at the default page size: a page's Queries, and its BatchGetItem.
      if (limit === '100') expect(made.length).toBeLessThanOrEqual(2 * Math.ceil(stored.size / 100) + 2 * 9);
    },
    120_000,
  );

  it('answers the first page of 100 when asked without parameters, and links the next with limit=100', async () => {
    const { status, body } = await request({});

    expect(status).toBe(200);
    expect(body['@set'].length).toBeGreaterThan(0);
    expect(body['@set'].length).toBeLessThanOrEqual(100);
    expect(queryOfNext(body.next as string, '100').cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('ends a page of large persons early, and goes on from there, when the page would pass its byte budget', async () => {
    const pages = await exportAll('50', 3_000);

    expect(new Set(idsOf(pages))).toEqual(stored);
    expect(idsOf(pages).length).toBe(stored.size);
    expect(Math.max(...pages.map(({ persons }) => persons.length))).toBeLessThan(10);
  }, 120_000);

  it('goes on from a cursor whose person was renamed since (from its old place): no one else lost or repeated', async () => {
    const { body } = await request({ limit: '5' });
    const first = body['@set'].map(({ id }) => id);
    const { cursor } = queryOfNext(body.next as string, '5');
    const renamed = first.at(-1) as number;

    const patched = await api.patch(renamed, {
      Names: { '@set': [{ first_name: 'Renamed', last_name: 'During Export' }] },
    });
    const rest = idsOf(await exportAll('5', undefined, cursor));

    expect(patched.status).toBe(200);
    // The renamed person came on the first page, and may come again at its new place: no snapshot.
    expect(rest.filter((id) => id === renamed).length).toBeLessThanOrEqual(1);
    const others = [...first, ...rest].filter((id) => id !== renamed);
    expect(others.length).toBe(stored.size - 1);
    expect(new Set(others)).toEqual(new Set([...stored].filter((id) => id !== renamed)));
  }, 60_000);

  it.each<[string, Record<string, string>]>([
    ['limit=0', { limit: '0' }],
    ['limit=501', { limit: '501' }],
    ['limit=ten', { limit: 'ten' }],
    ['limit=', { limit: '' }],
    ['a cursor that is no base64url', { cursor: 'a+b/c=' }],
    ['a cursor of no JSON', { cursor: Buffer.from('{"p":').toString('base64url') }],
    [
      'a cursor past the last partition',
      { cursor: Buffer.from(JSON.stringify({ p: PERSON_LIST_PARTITIONS.length })).toString('base64url') },
    ],
    [
      "a cursor whose key is another partition's",
      {
        cursor: Buffer.from(
          JSON.stringify({ p: 0, k: { ...personKey(1), ...personListKey('ada', 1), listPk: 'PERSONS#1' } }),
        ).toString('base64url'),
      },
    ],
    ['an unknown parameter', { offset: '10' }],
    ['a filter of the list', { search: 'ada' }],
  ])('refuses %s with 400 validation-error problem+json', async (_, query) => {
    const { status, headers, body, calls: made } = await request(query);

    expect(status).toBe(400);
    expect(headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(body).toMatchObject({
      type: '/problems/validation-error',
      status: 400,
      instance: '/Person/export',
    });
    expect(made).toEqual([]);
  });

  it('names the parameters it takes when it refuses another', async () => {
    const { body } = await request({ sort_dir: '1' });

    expect((body as unknown as { errors: unknown }).errors).toEqual([
      {
        path: '/sort_dir',
        message: 'sort_dir is not a query parameter of this route; it accepts limit, cursor',
      },
    ]);
  });
});
