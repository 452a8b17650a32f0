import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildListPersons } from '../../functions/list-persons';
import { toPersonItem } from '../../lib/db/person/person-items';
import { personList } from '../../lib/db/person/read/person-list';
import { SAMPLE_PER_SHARD } from '../../lib/db/person/read/posting-search';
import { postingItemsOf } from '../../lib/db/person/write/postings';
import {
  LEGACY_PERSON_COUNTER,
  PERSON_COUNTER_KEYS,
  PERSON_LIST_PARTITIONS,
  PERSON_LIST_SHARDS,
} from '../../lib/db/table/keys';
import type { paginatedList } from '../../lib/domain/listing';
import { applyPatch } from '../../lib/domain/patch';
import { NO_ABBREVIATIONS } from '../../lib/domain/person';
import { CreatePersonBody } from '../../lib/domain/schemas';
import { personApi, personBody, uniqueEmail } from '../support/api';
import { createTestTable, putItems, type TestTable, testRepository } from '../support/dynamo';
import { httpEvent, invoke } from '../support/events';
import { checkInvariants } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

const BASE = 'https://api.example.test';
const CONTEXT = `${BASE}/context.jsonld`;

interface Stub {
  '@context': string;
  '@type': string;
  '@id': string;
  id: number;
  property_name: string;
  property_value: string;
  thing_type: string;
}

interface StubList {
  '@context': string;
  Pagination: { '@context': string; '@type': string; count: number; limit: number; offset: number };
  '@set': Stub[];
}

/** The envelope as lib/domain/listing.ts builds it. */
type PaginatedList<T> = ReturnType<typeof paginatedList<T>>;

interface Problem {
  type: string;
  status: number;
  errors?: { path: string; message: string }[];
}

type Query = Record<string, string>;

interface CostRecord {
  message: unknown;
  fields: Record<string, unknown>;
}

/** A logger that keeps what `personList` logs, to read the cost of each request back. */
/**
 * What an unfiltered first page may read (keys.ts): the window, what each partition read past it (at
 * most its last chunk, ceil(limit / 8) + 1) and the person counters.
 */
const firstPageBound = (limit: number) =>
  limit +
  (limit === 0 ? 0 : PERSON_LIST_PARTITIONS.length * (Math.ceil(limit / PERSON_LIST_SHARDS) + 1)) +
  PERSON_COUNTER_KEYS.length;

const recordingLogger = () => {
  const records: CostRecord[] = [];
  return {
    records,
    info: (message: unknown, ...extra: unknown[]) => {
      records.push({ message, fields: (extra[0] ?? {}) as Record<string, unknown> });
    },
  };
};

type Logger = ReturnType<typeof recordingLogger>;

const listOn =
  (table: TestTable, logger?: Logger) =>
  <T = StubList>(query: Query = {}) =>
    invoke<T>(
      buildListPersons({
        personList: personList({
          client: table.client,
          tableName: table.tableName,
          ...(logger ? { logger } : {}),
        }),
      }),
      httpEvent({ method: 'GET', route: '/Person', query }),
    );

const list = <T = StubList>(query: Query = {}) => listOn(suite.table)<T>(query);
const page = (query: Query) => list<PaginatedList<Stub>>(query);

/** Calls a `previousPage`/`nextPage`/`@id` link as a client would: its path and query, nothing else. */
const follow = (table: TestTable, link: string) => {
  const url = new URL(link);
  expect(`${url.origin}${url.pathname}`).toBe(`${BASE}/Person`);
  return listOn(table)<PaginatedList<Stub>>(Object.fromEntries(url.searchParams));
};

/** A link's query as an object: the contract fixes which parameters a link carries, not their order. */
const linkQuery = (link: string | null) => {
  if (link === null) return null;
  const url = new URL(link);
  return { url: `${url.origin}${url.pathname}`, query: Object.fromEntries(url.searchParams) };
};

const personLink = (query: Query) => ({ url: `${BASE}/Person`, query });

const stubOf = ({ id, fullname }: { id: number; fullname: string }): Stub => ({
  '@context': CONTEXT,
  '@type': 'Stub',
  '@id': `${BASE}/Person/${id}`,
  id,
  property_name: 'fullname',
  property_value: fullname,
  thing_type: 'Person',
});

const valuesOf = (stubs: Stub[]) => stubs.map((stub) => stub.property_value);

const expectValidationError = (
  response: { status: number; headers: Query; body: unknown },
  param: string,
) => {
  expect(response.status).toBe(400);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = response.body as Problem;
  expect(problem).toMatchObject({ type: '/problems/validation-error', status: 400 });
  expect(problem.errors?.map((error) => error.path)).toContain(`/${param}`);
};

// ---------------------------------------------------------------------------------------------------
// The directory: the only persons in the suite's table. Tests read it and never write, so every count
// and every order below is known exactly. `rank` is the position of the folded fullname, written by
// hand: equal ranks are equal folded fullnames, ordered by id. The creation order is scrambled on
// purpose, and the three Emile Zolas are created so that id order is the reverse of code-point order.
// ---------------------------------------------------------------------------------------------------

const ROSTER_SIZE = 52;
const roster = Array.from({ length: ROSTER_SIZE }, (_, index) => ROSTER_SIZE - index).map((n) => ({
  rank: 100 + n,
  body: personBody('Rolf', `Roster${String(n).padStart(2, '0')}`),
}));

const DIRECTORY = [
  { rank: 200, body: personBody('Zoë', 'Smith', 'zoe@example.org') },
  { rank: 30, body: personBody('Émile', 'Zola', 'emile.1@example.org') },
  { rank: 21, body: personBody('Ann', 'Leeds', 'ann.leeds@example.org') },
  { rank: 40, body: personBody('Jose', 'Martinez', 'jmartinez@example.org') },
  ...roster.slice(0, 26),
  { rank: 30, body: personBody('emile', 'zola', 'emile.2@example.org') },
  { rank: 50, body: { Names: { '@set': [{ freeform_name: 'La Joséphine' }] } } },
  { rank: 10, body: personBody('Adam', 'Ng', 'adam@example.org') },
  {
    rank: 41,
    body: {
      Names: {
        '@set': [
          { first_name: 'José', last_name: 'Núñez' },
          { first_name: 'Pepe', last_name: 'Smith' },
        ],
      },
      Emails: { '@set': [{ email: 'jose@lanacion.example' }, { email: 'pepe.smith@work.example' }] },
    },
  },
  ...roster.slice(26),
  { rank: 30, body: personBody('EMILE', 'ZOLA', 'emile.3@example.org') },
  { rank: 31, body: personBody('Emilia', 'Clarke', 'emilia@example.org') },
  { rank: 20, body: personBody('Ann', 'Lee', 'ann.lee@example.org') },
];

interface Listed {
  rank: number;
  id: number;
  fullname: string;
}

let created: Listed[] = [];
/** The directory in the contract's ascending order: folded fullname (by rank), ties by id. */
let ascending: Listed[] = [];
let descending: Listed[] = [];

const named = (...fullnames: string[]) =>
  fullnames.map((fullname) => {
    const person = created.find((candidate) => candidate.fullname === fullname);
    if (!person) throw new Error(`no person ${fullname} in the directory`);
    return person;
  });

/** The stubs the contract expects for a set of persons, in ascending list order. */
const inOrder = (persons: Listed[]) => ascending.filter((person) => persons.includes(person));

beforeAll(async () => {
  created = [];
  for (const { rank, body } of DIRECTORY) {
    const response = await suite.api.post(body);
    expect(response.status).toBe(201);
    created.push({ rank, id: response.body.id, fullname: response.body.fullname });
  }
  ascending = [...created].sort((a, b) => a.rank - b.rank || a.id - b.id);
  descending = [...ascending].reverse();
});

describe('GET /Person: the stub list (API.md 4)', () => {
  it('answers with @context, Pagination {count, limit, offset} and an @set of Stubs', async () => {
    const [adam] = named('Adam Ng');
    const response = await list({ search: 'adam ng' });

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toEqual({
      '@context': CONTEXT,
      Pagination: { '@context': CONTEXT, '@type': 'Pagination', count: 1, limit: 1, offset: 0 },
      '@set': [
        {
          '@context': CONTEXT,
          '@type': 'Stub',
          '@id': `${BASE}/Person/${adam?.id}`,
          id: adam?.id,
          property_name: 'fullname',
          property_value: 'Adam Ng',
          thing_type: 'Person',
        },
      ],
    });
  });

  it('defaults to limit 50, offset 0 and ascending order', async () => {
    const { status, body } = await list();
    expect(status).toBe(200);
    expect(body.Pagination).toEqual({
      '@context': CONTEXT,
      '@type': 'Pagination',
      count: DIRECTORY.length,
      limit: 50,
      offset: 0,
    });
    expect(body['@set']).toEqual(ascending.slice(0, 50).map(stubOf));
  });

  it('counts every person without filters, whatever the window', async () => {
    const { body } = await list({ limit: '3', offset: '7' });
    expect(body.Pagination).toMatchObject({ count: DIRECTORY.length, limit: 3, offset: 7 });
    expect(body['@set']).toEqual(ascending.slice(7, 10).map(stubOf));
  });

  it('counts the persons matching the filters, not the stubs in the window', async () => {
    const { body } = await list({ last_name: 'roster', limit: '5', offset: '10' });
    expect(body.Pagination).toMatchObject({ count: ROSTER_SIZE, limit: 5, offset: 10 });
    expect(body['@set']).toHaveLength(5);
  });

  it('reports as limit the number of stubs in this response, not the limit asked for', async () => {
    const { body } = await list({ last_name: 'roster', limit: '10', offset: '50' });
    expect(body.Pagination).toMatchObject({ count: ROSTER_SIZE, limit: ROSTER_SIZE - 50, offset: 50 });
    expect(body['@set']).toHaveLength(ROSTER_SIZE - 50);
  });

  it('applies the default limit 50 to a filtered list too', async () => {
    const { body } = await list({ last_name: 'roster' });
    expect(body.Pagination).toMatchObject({ count: ROSTER_SIZE, limit: 50, offset: 0 });
    expect(body['@set']).toHaveLength(50);
  });

  it('returns the window at limit and offset', async () => {
    const { body } = await list({ limit: '4', offset: '2' });
    expect(body['@set']).toEqual(ascending.slice(2, 6).map(stubOf));
  });
});

describe('GET /Person: absolute URLs (API.md 1)', () => {
  it('builds @id, stub @ids and page links from the scheme, host and API Gateway stage', async () => {
    const event = httpEvent({
      method: 'GET',
      route: '/Person',
      query: { first_name: 'emile', perPage: '2' },
    });
    event.rawPath = '/prod/Person';
    event.requestContext.stage = 'prod';
    const { body } = await invoke<PaginatedList<Stub>>(
      buildListPersons({
        personList: personList({ client: suite.table.client, tableName: suite.table.tableName }),
      }),
      event,
    );
    const prod = `${BASE}/prod`;
    expect(body['@context']).toBe(`${prod}/context.jsonld`);
    expect(body.items.map((stub) => stub['@id'])).toEqual(
      named('Émile Zola', 'emile zola').map((person) => `${prod}/Person/${person.id}`),
    );
    expect(linkQuery(body['@id'])).toEqual({
      url: `${prod}/Person`,
      query: { first_name: 'emile', page: '1', perPage: '2' },
    });
    expect(linkQuery(body.nextPage)).toEqual({
      url: `${prod}/Person`,
      query: { first_name: 'emile', page: '2', perPage: '2' },
    });
  });
});

describe('GET /Person: limit and offset bounds (API.md 4)', () => {
  it('limit=0 returns the count with an empty @set', async () => {
    const { status, body } = await list({ limit: '0' });
    expect(status).toBe(200);
    expect(body.Pagination).toMatchObject({ count: DIRECTORY.length, limit: 0, offset: 0 });
    expect(body['@set']).toEqual([]);
  });

  it('limit=0 with a filter returns the filtered count with an empty @set', async () => {
    const { body } = await list({ limit: '0', first_name: 'emile' });
    expect(body.Pagination).toMatchObject({ count: 3, limit: 0, offset: 0 });
    expect(body['@set']).toEqual([]);
  });

  it.each([
    ['1', 1],
    ['50', 50],
    ['500', DIRECTORY.length],
  ])('accepts limit=%s', async (limit, stubs) => {
    const { status, body } = await list({ limit });
    expect(status).toBe(200);
    expect(body['@set']).toEqual(ascending.slice(0, stubs).map(stubOf));
  });

  it.each(['501', '1000', '-1', '1.5', 'abc', '1e3', '0x10', 'Infinity'])(
    'rejects limit=%s with 400 validation-error',
    async (limit) => {
      expectValidationError(await list({ limit }), 'limit');
    },
  );

  it.each(['-1', '1.5', 'abc', '1e3', '-0.5', 'NaN'])(
    'rejects offset=%s with 400 validation-error',
    async (offset) => {
      expectValidationError(await list({ offset }), 'offset');
    },
  );

  it.each([
    ['at the end', { offset: String(DIRECTORY.length) }, DIRECTORY.length],
    ['far past the end', { offset: '100000' }, DIRECTORY.length],
    ['past the end of a filtered list', { offset: '3', first_name: 'emile' }, 3],
  ])('an offset %s gives an empty @set with the full count', async (_, query, count) => {
    const { status, body } = await list(query);
    expect(status).toBe(200);
    expect(body.Pagination).toMatchObject({ count, limit: 0, offset: Number(query.offset) });
    expect(body['@set']).toEqual([]);
  });
});

describe('GET /Person: order (API.md 4)', () => {
  it.each([
    ['1', 'ascending', () => ascending],
    ['0', 'descending', () => descending],
  ])(
    'sort_dir=%s lists the whole directory %s by folded fullname, ties by id',
    async (sort_dir, _, expected) => {
      const { body } = await list({ sort_dir, limit: '500' });
      expect(body['@set']).toEqual(expected().map(stubOf));
    },
  );

  it('sorts case and accents folded: Émile, emile and EMILE sort together, before Emilia', async () => {
    const { body } = await list({ first_name: 'emil' });
    expect(valuesOf(body['@set'])).toEqual(['Émile Zola', 'emile zola', 'EMILE ZOLA', 'Emilia Clarke']);
  });

  it.each([
    ['1', (ids: number[]) => [...ids].sort((a, b) => a - b)],
    ['0', (ids: number[]) => [...ids].sort((a, b) => b - a)],
  ])(
    'with sort_dir=%s, persons whose folded fullnames are equal are ordered by id',
    async (sort_dir, order) => {
      const { body } = await list({ last_name: 'zola', sort_dir });
      const ids = body['@set'].map((stub) => stub.id);
      expect(ids).toHaveLength(3);
      expect(ids).toEqual(order(named('Émile Zola', 'emile zola', 'EMILE ZOLA').map((person) => person.id)));
    },
  );

  it('sorts a fullname before the longer fullnames it begins', async () => {
    const { body } = await list({ first_name: 'ann' });
    expect(valuesOf(body['@set'])).toEqual(['Ann Lee', 'Ann Leeds']);
  });

  it('windows a descending filtered list from its own start', async () => {
    const { body } = await list({ last_name: 'zola', sort_dir: '0', limit: '2', offset: '1' });
    expect(body.Pagination).toMatchObject({ count: 3, limit: 2, offset: 1 });
    expect(valuesOf(body['@set'])).toEqual(['emile zola', 'Émile Zola']);
  });

  it.each(['2', '-1', 'asc', 'desc', 'true', '01'])(
    'rejects sort_dir=%s with 400 validation-error',
    async (sort_dir) => {
      expectValidationError(await list({ sort_dir }), 'sort_dir');
    },
  );
});

describe('GET /Person: filters (API.md 4)', () => {
  it.each([
    ['first_name', 'jose', ['Jose Martinez', 'José Núñez']],
    ['first_name', 'JOSÉ', ['Jose Martinez', 'José Núñez']],
    ['first_name', 'mil', ['Émile Zola', 'emile zola', 'EMILE ZOLA', 'Emilia Clarke']],
    ['first_name', 'pepe', ['José Núñez']],
    ['last_name', 'nunez', ['José Núñez']],
    ['last_name', 'ÑÚÑ', ['José Núñez']],
    ['last_name', 'SMITH', ['José Núñez', 'Zoë Smith']],
    ['last_name', 'ola', ['Émile Zola', 'emile zola', 'EMILE ZOLA']],
    ['email', 'LANACION', ['José Núñez']],
    ['email', 'work.example', ['José Núñez']],
    ['email', 'emile.', ['Émile Zola', 'emile zola', 'EMILE ZOLA']],
    ['email', 'zola', []],
    ['search', 'josephine', ['La Joséphine']],
    ['search', 'jose', ['Jose Martinez', 'José Núñez', 'La Joséphine']],
    ['search', 'adam ng', ['Adam Ng']],
    ['search', 'clarke', ['Emilia Clarke']],
    ['search', 'pepe', ['José Núñez']],
    ['search', 'ann.lee', ['Ann Lee', 'Ann Leeds']],
    ['search', 'Zoe\u0308', ['Zoë Smith']],
  ])('%s=%s matches %j, case- and accent-insensitive substring', async (param, value, expected) => {
    const { status, body } = await list({ [param]: value });
    expect(status).toBe(200);
    expect(valuesOf(body['@set'])).toEqual(expected);
    expect(body.Pagination.count).toBe(expected.length);
  });

  it('first_name matches any of the Names, not only the primary', async () => {
    const { body } = await list({ first_name: 'pepe' });
    expect(body['@set']).toEqual(named('José Núñez').map(stubOf));
  });

  it('last_name matches any of the Names, not only the primary', async () => {
    const { body } = await list({ last_name: 'smith' });
    expect(body['@set']).toEqual(inOrder(named('José Núñez', 'Zoë Smith')).map(stubOf));
  });

  it('email matches any of the Emails, not only the primary', async () => {
    const { body } = await list({ email: 'pepe.smith' });
    expect(body['@set']).toEqual(named('José Núñez').map(stubOf));
  });

  it('first_name does not match a freeform name; search does', async () => {
    expect((await list({ first_name: 'josephine' })).body['@set']).toEqual([]);
    expect((await list({ search: 'josephine' })).body['@set']).toEqual(named('La Joséphine').map(stubOf));
  });

  it.each([
    [{ first_name: 'jose', last_name: 'nunez' }, ['José Núñez']],
    [{ first_name: 'emile', email: '.2@' }, ['emile zola']],
    [{ search: 'smith', email: 'zoe' }, ['Zoë Smith']],
    [{ first_name: 'ann', last_name: 'leeds', search: 'ann.leeds@' }, ['Ann Leeds']],
    [{ first_name: 'emilia', last_name: 'zola' }, []],
    [{ last_name: 'roster', email: 'example' }, []],
  ])('combines filters %j with AND', async (query, expected) => {
    const { body } = await list(query);
    expect(valuesOf(body['@set'])).toEqual(expected);
    expect(body.Pagination.count).toBe(expected.length);
  });

  it('finds nothing, with count 0, when no person matches', async () => {
    const { status, body } = await list({ search: 'no such person anywhere' });
    expect(status).toBe(200);
    expect(body.Pagination).toMatchObject({ count: 0, limit: 0, offset: 0 });
    expect(body['@set']).toEqual([]);
  });

  it.each(['first_name', 'last_name', 'email', 'search'])(
    'an empty %s is the same as leaving it out',
    async (param) => {
      expect((await list({ [param]: '' })).body).toEqual((await list()).body);
      expect((await list({ [param]: '', last_name: 'roster' })).body).toEqual(
        (await list({ last_name: 'roster' })).body,
      );
    },
  );
});

describe('GET /Person with page/perPage: the PaginatedList of Stubs (API.md 4 and 6)', () => {
  const rosterAscending = () => ascending.filter((person) => person.fullname.startsWith('Rolf Roster'));

  it('answers with the full envelope: @context, @id, @type, itemType Stub, page, perPage, total, links, items', async () => {
    const rosters = rosterAscending();
    const response = await page({ last_name: 'roster', page: '2', perPage: '20' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const { '@id': id, previousPage, nextPage, ...rest } = response.body;
    expect(rest).toEqual({
      '@context': CONTEXT,
      '@type': 'PaginatedList',
      itemType: 'Stub',
      page: 2,
      perPage: 20,
      total: ROSTER_SIZE,
      items: rosters.slice(20, 40).map(stubOf),
    });
    expect(linkQuery(id)).toEqual(personLink({ last_name: 'roster', page: '2', perPage: '20' }));
    expect(linkQuery(previousPage)).toEqual(personLink({ last_name: 'roster', page: '1', perPage: '20' }));
    expect(linkQuery(nextPage)).toEqual(personLink({ last_name: 'roster', page: '3', perPage: '20' }));
  });

  it.each([
    ['first', 1, [0, 20], null, 2],
    ['middle', 2, [20, 40], 1, 3],
    ['last', 3, [40, 52], 2, null],
  ])(
    'on the %s page, links keep the filters and sort_dir, null at the ends',
    async (_, pageNo, [from, to], previous, next) => {
      const rosters = [...rosterAscending()].reverse();
      const query = { last_name: 'ROSTER', sort_dir: '0' };
      const { body } = await page({ ...query, page: String(pageNo), perPage: '20' });
      const link = (n: number | null) =>
        n === null ? null : personLink({ ...query, page: String(n), perPage: '20' });
      expect(body.items).toEqual(rosters.slice(from, to).map(stubOf));
      expect(body.total).toBe(ROSTER_SIZE);
      expect(linkQuery(body['@id'])).toEqual(link(pageNo));
      expect(linkQuery(body.previousPage)).toEqual(link(previous));
      expect(linkQuery(body.nextPage)).toEqual(link(next));
    },
  );

  it.each<[string, Query, number]>([
    ['4', { last_name: 'roster' }, ROSTER_SIZE],
    ['99', { last_name: 'roster' }, ROSTER_SIZE],
    ['999999999', { last_name: 'roster' }, ROSTER_SIZE],
    ['5', {}, DIRECTORY.length],
    ['999999999', {}, DIRECTORY.length],
  ])(
    'page %s of %j, past the end, has empty items, the full total and no nextPage',
    async (pageNo, query, total) => {
      const { status, body } = await page({ ...query, page: pageNo, perPage: '20' });
      expect(status).toBe(200);
      expect(body).toMatchObject({ page: Number(pageNo), perPage: 20, total, items: [], nextPage: null });
    },
  );

  it('a list that fits on one page has no previousPage and no nextPage', async () => {
    const { body } = await page({ first_name: 'emile', perPage: '10' });
    expect(body).toMatchObject({ page: 1, total: 3, previousPage: null, nextPage: null });
    expect(valuesOf(body.items)).toEqual(['Émile Zola', 'emile zola', 'EMILE ZOLA']);
  });

  it('an empty list has total 0, empty items and no links', async () => {
    const { body } = await page({ search: 'no such person anywhere', page: '1' });
    expect(body).toMatchObject({
      page: 1,
      perPage: 10,
      total: 0,
      items: [],
      previousPage: null,
      nextPage: null,
    });
  });

  it.each([
    [{ page: '1' }, 1, 10],
    [{ perPage: '5' }, 1, 5],
    [{ page: '2' }, 2, 10],
  ])('defaults page to 1 and perPage to 10: %j', async (query, pageNo, perPage) => {
    const { body } = await page(query);
    expect(body).toMatchObject({ page: pageNo, perPage, total: DIRECTORY.length });
    expect(body.items).toEqual(ascending.slice((pageNo - 1) * perPage, pageNo * perPage).map(stubOf));
    expect(linkQuery(body['@id'])).toEqual(personLink({ page: String(pageNo), perPage: String(perPage) }));
  });

  it('accepts perPage=100', async () => {
    const { status, body } = await page({ perPage: '100' });
    expect(status).toBe(200);
    expect(body.items).toEqual(ascending.map(stubOf));
    expect(body.nextPage).toBeNull();
  });

  it('gives the same stubs as limit/offset for the same window', async () => {
    const paged = await page({ page: '3', perPage: '7', sort_dir: '0' });
    const windowed = await list({ limit: '7', offset: '14', sort_dir: '0' });
    expect(paged.body.items).toEqual(windowed.body['@set']);
    expect(paged.body.items).toEqual(descending.slice(14, 21).map(stubOf));
  });

  it.each([
    ['page', '0'],
    ['page', '-1'],
    ['page', '1.5'],
    ['page', 'abc'],
    ['perPage', '0'],
    ['perPage', '101'],
    ['perPage', '-5'],
    ['perPage', '2.5'],
    ['perPage', 'ten'],
  ])('rejects %s=%s with 400 validation-error', async (param, value) => {
    expectValidationError(await list({ [param]: value }), param);
  });

  it.each<Query>([
    { limit: '10', page: '1' },
    { offset: '0', page: '1' },
    { limit: '10', perPage: '10' },
    { offset: '5', perPage: '10' },
    { limit: '5', offset: '5', page: '2', perPage: '5' },
  ])('rejects both paging styles in one request, %j, with 400 validation-error', async (query) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ type: '/problems/validation-error', status: 400 });
  });
});

describe('GET /Person: unknown query parameters (API.md 4)', () => {
  it.each(['name', 'sort', 'firstName', 'Limit', 'per_page', 'q'])(
    'rejects the unknown parameter %s with 400 validation-error',
    async (param) => {
      expectValidationError(await list({ [param]: '1' }), param);
    },
  );
});

describe('GET /Person: every list request logs its cost (issue 3)', () => {
  const costOf = (logger: Logger) => {
    const costs = logger.records.filter(({ fields }) => 'itemsRead' in fields);
    expect(costs).toHaveLength(1);
    return costs[0]?.fields as { calls: number; itemsRead: number; capacityUnits: number };
  };

  it.each<Query>([
    {},
    { limit: '0' },
    { limit: '5', offset: '3', sort_dir: '0' },
    { search: 'zola' },
    { page: '2', perPage: '5' },
    { last_name: 'roster', page: '1' },
  ])('logs calls, itemsRead and capacityUnits once for %j', async (query) => {
    const logger = recordingLogger();
    const { status } = await listOn(suite.table, logger)(query);
    expect(status).toBe(200);
    const cost = costOf(logger);
    expect(cost).toEqual(
      expect.objectContaining({
        calls: expect.any(Number),
        itemsRead: expect.any(Number),
        capacityUnits: expect.any(Number),
      }),
    );
    expect(cost.calls).toBeGreaterThanOrEqual(1);
  });

  it('a filtered list reads the postings of its fragment and names the probe it read whole (issue 26)', async () => {
    const logger = recordingLogger();
    await listOn(suite.table, logger)({ first_name: 'adam', limit: '1' });
    const cost = costOf(logger) as ReturnType<typeof costOf> & Record<string, unknown>;
    expect(cost).toMatchObject({ source: 'postings', probe: expect.stringMatching(/^first_name "/) });
    // Adam's postings of two grams at most, 8 shards sampled each: not the directory's entries.
    expect(cost.itemsRead).toBeLessThan(DIRECTORY.length);
  });

  it('a filter of one code point reads every index entry: no posting narrows it', async () => {
    const logger = recordingLogger();
    const { body } = await listOn(suite.table, logger)({ first_name: 'a', limit: '1' });
    expect(body.Pagination.count).toBeGreaterThan(0);
    expect(costOf(logger)).toMatchObject({ source: 'index, filtered' });
    expect(costOf(logger).itemsRead).toBeGreaterThanOrEqual(DIRECTORY.length);
  });

  it.each([0, 1, 10])(
    'an unfiltered first page with limit %i reads the limit, a chunk past it per partition and the person counters',
    async (limit) => {
      const logger = recordingLogger();
      await listOn(suite.table, logger)({ limit: String(limit) });
      expect(costOf(logger).itemsRead).toBeLessThanOrEqual(firstPageBound(limit));
    },
  );
});

describe('GET /Person: the list follows every write (API.md 4)', () => {
  // A table of its own: these tests write, and the directory's counts must stay exact.
  let table: TestTable;
  let api: ReturnType<typeof personApi>;

  beforeAll(async () => {
    table = await createTestTable();
    api = personApi(testRepository(table));
  });
  afterAll(async () => {
    expect(await checkInvariants(table)).toEqual([]);
  });

  const create = async (body: unknown) => {
    const response = await api.post(body);
    expect(response.status).toBe(201);
    return response.body;
  };

  it('counts a created person at once, with and without filters', async () => {
    const before = (await listOn(table)({ limit: '0' })).body.Pagination.count;
    await create(personBody('Nadia', 'Counted', uniqueEmail('nadia')));
    expect((await listOn(table)({ limit: '0' })).body.Pagination.count).toBe(before + 1);
    expect((await listOn(table)({ last_name: 'counted', limit: '0' })).body.Pagination.count).toBe(1);
  });

  it('a renamed person moves to its new place in the order and matches only its new name', async () => {
    const moving = await create(personBody('Aaron', 'Mover', uniqueEmail('mover')));
    await create(personBody('Mia', 'Mover', uniqueEmail('mover')));
    const nameId = (moving.Names['@set'][0] as { id: number }).id;
    expect(valuesOf((await listOn(table)({ last_name: 'mover' })).body['@set'])).toEqual([
      'Aaron Mover',
      'Mia Mover',
    ]);

    const { status } = await api.patch(moving.id, {
      Names: { '@set': [{ id: nameId, first_name: 'Zacharie' }] },
    });
    expect(status).toBe(200);

    expect(valuesOf((await listOn(table)({ last_name: 'mover' })).body['@set'])).toEqual([
      'Mia Mover',
      'Zacharie Mover',
    ]);
    expect((await listOn(table)({ first_name: 'aaron' })).body['@set']).toEqual([]);
    expect((await listOn(table)({ search: 'zacharie' })).body['@set']).toEqual([
      stubOf({ id: moving.id, fullname: 'Zacharie Mover' }),
    ]);
  });

  it('a deleted email no longer matches the email filter; an added one does', async () => {
    const kept = uniqueEmail('kept');
    const dropped = uniqueEmail('dropped');
    const person = await create(personBody('Edith', 'Emails', kept, dropped));
    const droppedId = (person.Emails['@set'] as { id: number; email: string }[]).find(
      (item) => item.email === dropped,
    )?.id;
    const added = uniqueEmail('added');
    const { status } = await api.patch(person.id, {
      Emails: { '@set': [{ id: droppedId }, { email: added }] },
    });
    expect(status).toBe(200);

    expect((await listOn(table)({ email: dropped })).body.Pagination.count).toBe(0);
    expect((await listOn(table)({ search: dropped })).body.Pagination.count).toBe(0);
    expect((await listOn(table)({ email: added })).body['@set']).toEqual([
      stubOf({ id: person.id, fullname: 'Edith Emails' }),
    ]);
    expect((await listOn(table)({ email: kept })).body.Pagination.count).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------------
// A few thousand persons, in a table of their own, written straight into storage. Names come in pairs
// whose folded fullnames are equal (`Émile ZÓLA0007` and `emile Zola0007`), with ids shuffled so that
// neither insertion order nor code-point order gives the contract's order: by `key`, ties by id.
// ---------------------------------------------------------------------------------------------------

const BIG = 2_500;

/** mulberry32: a small seeded generator, so a failure is reproducible. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const shuffled = <T>(values: T[], random: () => number) => {
  const copy = [...values];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
};

const FIRST_NAMES = ['Émile', 'emile', 'EMILE', 'Emilé'];
const LAST_NAMES = ['ZÓLA', 'Zola', 'zolá'];

interface BigPerson {
  key: number;
  id: number;
  fullname: string;
}

const seedBigTable = async (): Promise<{ table: TestTable; expected: BigPerson[] }> => {
  const table = await createTestTable();
  const random = seeded(2_500);
  const slots = shuffled(
    Array.from({ length: BIG }, (_, index) => index),
    random,
  );
  const now = new Date().toISOString();
  const persons: BigPerson[] = [];
  const items = slots.flatMap((slot, index) => {
    const key = Math.floor(index / 2);
    const body = CreatePersonBody.parse(
      personBody(
        FIRST_NAMES[index % FIRST_NAMES.length] ?? 'Emile',
        `${LAST_NAMES[index % LAST_NAMES.length]}${String(key).padStart(4, '0')}`,
      ),
    );
    let next = 1_000_000 + slot * 2;
    const { person } = applyPatch(null, body, {
      requester: 0,
      now,
      nextId: () => next++,
      changeId: 0,
      abbreviations: NO_ABBREVIATIONS,
    });
    const item = toPersonItem(person);
    persons.push({ key, id: person.id, fullname: item.fullname });
    // The person and its search postings, as a create writes them.
    return [item, ...postingItemsOf(person)];
  });

  await putItems(table, items, { concurrency: 25 });
  await table.client.send(
    new PutCommand({
      TableName: table.tableName,
      // The one counter of a table written before the counters were sharded: read as one more shard.
      Item: { ...LEGACY_PERSON_COUNTER, value: BIG },
    }),
  );

  return { table, expected: persons.sort((a, b) => a.key - b.key || a.id - b.id) };
};

describe(`GET /Person over ${BIG} persons`, () => {
  let big: { table: TestTable; expected: BigPerson[] };

  beforeAll(async () => {
    big = await seedBigTable();
  });

  const expectedIds = (sort_dir: string) => {
    const ids = big.expected.map((person) => person.id);
    return sort_dir === '1' ? ids : ids.reverse();
  };

  it.each(['1', '0'])(
    'limit/offset paging with sort_dir=%s returns every person exactly once, in order',
    async (sort_dir) => {
      const seen: Stub[] = [];
      const limit = 450;
      for (let offset = 0; ; offset += limit) {
        const { status, body } = await listOn(big.table)({
          sort_dir,
          limit: String(limit),
          offset: String(offset),
        });
        expect(status).toBe(200);
        expect(body.Pagination).toMatchObject({ count: BIG, offset, limit: body['@set'].length });
        if (body['@set'].length === 0) break;
        seen.push(...body['@set']);
      }
      expect(seen.map((stub) => stub.id)).toEqual(expectedIds(sort_dir));
      expect(new Set(seen.map((stub) => stub.id)).size).toBe(BIG);
      const byId = new Map(big.expected.map((person) => [person.id, person.fullname]));
      expect(seen.every((stub) => stub.property_value === byId.get(stub.id))).toBe(true);
    },
  );

  it.each(['1', '0'])(
    'page/perPage paging with sort_dir=%s, following nextPage, returns every person exactly once, in order',
    async (sort_dir) => {
      const perPage = 97;
      const seen: number[] = [];
      let response = await listOn(big.table)<PaginatedList<Stub>>({ sort_dir, perPage: String(perPage) });
      let pages = 1;
      while (true) {
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ total: BIG, page: pages, perPage });
        seen.push(...response.body.items.map((stub) => stub.id));
        if (response.body.nextPage === null) break;
        expect(linkQuery(response.body.nextPage)?.query).toEqual({
          sort_dir,
          page: String(pages + 1),
          perPage: String(perPage),
        });
        response = await follow(big.table, response.body.nextPage);
        pages += 1;
      }
      expect(pages).toBe(Math.ceil(BIG / perPage));
      expect(seen).toEqual(expectedIds(sort_dir));
      expect(new Set(seen).size).toBe(BIG);
    },
  );

  it('counts all of them from the counter, and a filter counts its matches', async () => {
    expect((await listOn(big.table)({ limit: '0' })).body.Pagination.count).toBe(BIG);
    const matching = big.expected.filter((person) => person.fullname.endsWith('0042'));
    const { body } = await listOn(big.table)({ last_name: 'zola0042' });
    expect(body.Pagination.count).toBe(matching.length);
    expect(body['@set'].map((stub) => stub.id)).toEqual(matching.map((person) => person.id));
  });

  it('a filtered list reads about the postings of one gram of its fragment, not the table (issue 26)', async () => {
    const logger = recordingLogger();
    const { body } = await listOn(big.table, logger)({ search: 'zola0001', limit: '1' });
    expect(body.Pagination.count).toBe(2);
    const cost = logger.records.find(({ fields }) => 'itemsRead' in fields)?.fields as {
      itemsRead: number;
      probePostings: number;
      samplePostings: number;
    };
    // The persons holding the fragment's rarest gram ("01" at the end: 0001, 0101, ... 1201).
    const rarest = big.expected.filter((person) => person.fullname.endsWith('01')).length;
    // The probe read whole is the one whose sample (one Query in one shard) shows fewest postings
    // ("001" or "000": under 100 persons); the others' samples are at most 64 postings each.
    expect(cost.probePostings).toBeLessThan(4 * rarest);
    expect(cost.itemsRead).toBeLessThanOrEqual(cost.probePostings + cost.samplePostings + 1);
    expect(cost.samplePostings).toBeLessThanOrEqual(6 * SAMPLE_PER_SHARD);
  });

  it.each([0, 1, 50, 500])(
    'an unfiltered first page with limit %i reads the limit, a chunk past it per partition and the person counters',
    async (limit) => {
      const logger = recordingLogger();
      const { body } = await listOn(big.table, logger)({ limit: String(limit) });
      expect(body['@set']).toHaveLength(limit);
      const cost = logger.records.find(({ fields }) => 'itemsRead' in fields)?.fields as {
        calls: number;
        itemsRead: number;
        capacityUnits: number;
      };
      expect(cost).toMatchObject({
        calls: expect.any(Number),
        itemsRead: expect.any(Number),
        capacityUnits: expect.any(Number),
      });
      expect(cost.itemsRead).toBeLessThanOrEqual(firstPageBound(limit));
    },
  );
});
