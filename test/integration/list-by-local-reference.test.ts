/**
 * `GET /Person?local_reference_id=<value>` (API.md 4, #32): the persons whose root
 * `local_reference_id` is exactly the value, alone or with the other filters, counted, sorted and
 * windowed as every list; found through their reference items (lib/db/person/write/local-references.ts), which
 * every write keeps in its own transaction. The invariant checker (after the file) checks that every
 * person with a value has exactly its one reference item and no other is stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildListPersons } from '../../functions/list-persons';
import { personList } from '../../lib/db/person/read/person-list';
import type { paginatedList } from '../../lib/domain/listing';
import { LIMITS } from '../../lib/domain/schemas';
import { seedPersons } from '../bench/seed';
import { personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { createTestTable, type TestTable, testRepository } from '../support/dynamo';
import { httpEvent, invoke } from '../support/events';
import { scanAll, snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

interface Stub {
  id: number;
  property_value: string;
}

interface StubList {
  Pagination: { count: number; limit: number; offset: number };
  '@set': Stub[];
}

type PaginatedList = ReturnType<typeof paginatedList<Stub>>;

interface Cost {
  source: string;
  calls: number;
  itemsRead: number;
  capacityUnits: number;
  references?: number;
}

type Query = Record<string, string>;

/** Lists on a table (the suite's unless given), keeping the cost line each request logs. */
const lister = (table?: TestTable) => {
  const costs: Cost[] = [];
  const logger = {
    info: (_: unknown, ...fields: unknown[]) => void costs.push(fields[0] as Cost),
  };
  const list = <T = StubList>(query: Query) =>
    invoke<T>(
      buildListPersons({ personList: personList({ ...(table ?? suite.table), logger }) }),
      httpEvent({ method: 'GET', route: '/Person', query }),
    );
  return { list, lastCost: () => costs.at(-1) as Cost };
};

const { list, lastCost } = lister();

/** The persons a value finds, as `fullname` in list order. */
const found = async (query: Query) => {
  const { status, body } = await list(query);
  expect(status).toBe(200);
  return body['@set'].map((stub) => stub.property_value);
};

const create = async (first: string, last: string, local_reference_id?: string | null, extra = {}) => {
  const { status, body } = await suite.api.post({
    ...personBody(first, last, uniqueEmail()),
    ...(local_reference_id === undefined ? {} : { local_reference_id }),
    ...extra,
  });
  expect(status).toBe(201);
  return body;
};

describe('local_reference_id: an exact match of the root value', () => {
  it('finds only the exact value: not a longer one, another case or a shorter one', async () => {
    const tag = uniqueTag('ref');
    const exact = await create('Exact', 'Match', `${tag}-1`);
    await create('Longer', 'Value', `${tag}-10`);
    await create('Other', 'Case', `${tag.toUpperCase()}-1`);
    await create('Shorter', 'Value', tag);
    expect(await found({ local_reference_id: `${tag}-1` })).toEqual([exact.fullname]);
    expect(await found({ local_reference_id: `${tag}-10` })).toEqual(['Longer Value']);
    expect(await found({ local_reference_id: `${tag.toUpperCase()}-1` })).toEqual(['Other Case']);
    expect(await found({ local_reference_id: tag })).toEqual(['Shorter Value']);
    expect(await found({ local_reference_id: `${tag}-` })).toEqual([]);
    expect(await found({ local_reference_id: `${tag}-1 ` })).toEqual([]);
  });

  it.each([
    ['spaces and URL delimiters', 'a b/c?d&e=f#g%h+i;j'],
    ['quotes, backslashes and a NUL', `"x'\\y\u0000`],
    ['accents, scripts and emoji', 'José-Ünïcödé-日本語-😀'],
    ['a key-like shape', 'PERSON#1'],
    ['the longest allowed length', '\u20ac'.repeat(LIMITS.localReferenceId)],
  ])('finds a value of %s', async (_, special) => {
    const tag = uniqueTag('Special');
    const value = `${tag}${special}`.slice(0, LIMITS.localReferenceId);
    const person = await create('Special', tag, value);
    expect(person.local_reference_id).toBe(value);
    expect(await found({ local_reference_id: value })).toEqual([person.fullname]);
  });

  it('tells a composed accent from a decomposed one, and accents from none: the value is not folded', async () => {
    const tag = uniqueTag('nfc');
    await create('Composed', 'Form', `Jos\u00e9-${tag}`);
    await create('Decomposed', 'Form', `Jose\u0301-${tag}`);
    await create('Plain', 'Form', `Jose-${tag}`);
    expect(await found({ local_reference_id: `Jos\u00e9-${tag}` })).toEqual(['Composed Form']);
    expect(await found({ local_reference_id: `Jose\u0301-${tag}` })).toEqual(['Decomposed Form']);
    expect(await found({ local_reference_id: `Jose-${tag}` })).toEqual(['Plain Form']);
  });

  it("never matches a sub-object's local_reference_id", async () => {
    const tag = uniqueTag('sub');
    await create('Sub', 'Objects', null, {
      Names: { '@set': [{ first_name: 'Sub', last_name: 'Objects', local_reference_id: `${tag}-name` }] },
      Emails: { '@set': [{ email: uniqueEmail(), local_reference_id: `${tag}-email` }] },
      PhoneNumbers: { '@set': [{ phone_number: '+1 202 555 0100', local_reference_id: `${tag}-phone` }] },
    });
    for (const value of [`${tag}-name`, `${tag}-email`, `${tag}-phone`])
      expect((await list({ local_reference_id: value })).body.Pagination.count).toBe(0);
  });

  it('an empty value is the same as leaving it out', async () => {
    const all = await list({ limit: '0' });
    const empty = await list({ local_reference_id: '', limit: '0' });
    expect(empty.status).toBe(200);
    expect(empty.body.Pagination.count).toBe(all.body.Pagination.count);
    expect(lastCost().source).toBe('index');
  });

  it(`accepts ${LIMITS.localReferenceId} characters and refuses a longer value with 400`, async () => {
    expect((await list({ local_reference_id: 'x'.repeat(LIMITS.localReferenceId) })).status).toBe(200);
    const { status, body } = await list<{ type: string; errors: { path: string }[] }>({
      local_reference_id: 'x'.repeat(LIMITS.localReferenceId + 1),
    });
    expect(status).toBe(400);
    expect(body.type).toBe('/problems/validation-error');
    expect(body.errors.map((error) => error.path)).toEqual(['/local_reference_id']);
  });
});

describe('local_reference_id shared by several persons', () => {
  const shared = uniqueTag('shared');
  /** Created out of order; `Émile Zola` twice (equal folded fullnames: ordered by id). */
  const NAMES: [string, string][] = [
    ['Zoë', 'Zimmer'],
    ['émile', 'zola'],
    ['Adam', 'Ng'],
    ['Émile', 'Zola'],
    ['Bea', 'Álvarez'],
    ['Carl', 'Berg'],
  ];
  const ASCENDING = ['Adam Ng', 'Bea Álvarez', 'Carl Berg', 'émile zola', 'Émile Zola', 'Zoë Zimmer'];
  beforeAll(async () => {
    for (const [first, last] of NAMES) await create(first, last, shared);
    // Persons holding another value, and none: never among them.
    await create('Adam', 'Other', `${shared}x`);
    await create('Adam', 'None');
  });

  it('all come back, counted and in list order, either way', async () => {
    const { body } = await list({ local_reference_id: shared });
    expect(body.Pagination).toMatchObject({ count: 6, limit: 6, offset: 0 });
    expect(body['@set'].map((stub) => stub.property_value)).toEqual(ASCENDING);
    expect(await found({ local_reference_id: shared, sort_dir: '0' })).toEqual([...ASCENDING].reverse());
  });

  it.each([
    ['1', '0', '2'],
    ['1', '2', '3'],
    ['1', '5', '5'],
    ['0', '1', '3'],
    ['0', '4', '10'],
  ])('windows with sort_dir=%s, offset %s, limit %s', async (sort_dir, offset, limit) => {
    const order = sort_dir === '1' ? ASCENDING : [...ASCENDING].reverse();
    const { body } = await list({ local_reference_id: shared, sort_dir, offset, limit });
    const expected = order.slice(Number(offset), Number(offset) + Number(limit));
    expect(body.Pagination).toMatchObject({ count: 6, limit: expected.length, offset: Number(offset) });
    expect(body['@set'].map((stub) => stub.property_value)).toEqual(expected);
  });

  it('limit=0 gives the count alone', async () => {
    const { body } = await list({ local_reference_id: shared, limit: '0' });
    expect(body).toMatchObject({ Pagination: { count: 6, limit: 0 }, '@set': [] });
  });

  it.each(['1', '0'])(
    'pages with page/perPage (sort_dir=%s), the links keeping the value',
    async (sort_dir) => {
      const order = sort_dir === '1' ? ASCENDING : [...ASCENDING].reverse();
      const { body } = await list<PaginatedList>({
        local_reference_id: shared,
        sort_dir,
        page: '2',
        perPage: '4',
      });
      expect(body).toMatchObject({ total: 6, page: 2, perPage: 4, nextPage: null });
      expect(body.items.map((stub) => stub.property_value)).toEqual(order.slice(4));
      expect(new URL(body.previousPage as string).searchParams.get('local_reference_id')).toBe(shared);
    },
  );

  it.each<[string, Query, string[]]>([
    ['first_name', { first_name: 'emile' }, ['émile zola', 'Émile Zola']],
    ['first_name of one character', { first_name: 'b' }, ['Bea Álvarez']],
    ['last_name of two characters', { last_name: 'zo' }, ['émile zola', 'Émile Zola']],
    ['search', { search: 'alvarez' }, ['Bea Álvarez']],
    ['email', { email: 'example.org' }, ASCENDING],
    ['first_name and search', { first_name: 'emile', search: 'zol' }, ['émile zola', 'Émile Zola']],
    ['a filter no one of them matches', { search: 'other' }, []],
  ])('combines with %s: AND', async (_, filters, expected) => {
    expect(await found({ local_reference_id: shared, ...filters })).toEqual(expected);
    expect((await list({ local_reference_id: shared, ...filters, limit: '0' })).body.Pagination.count).toBe(
      expected.length,
    );
  });

  it('a filter alone still finds the persons of other values: the value is what narrows', async () => {
    expect((await found({ last_name: 'other', first_name: 'adam' })).length).toBeGreaterThanOrEqual(1);
    expect(await found({ local_reference_id: shared, last_name: 'other' })).toEqual([]);
  });
});

describe('local_reference_id follows every write', () => {
  it('a PATCH moves the person from the old value to the new one', async () => {
    const tag = uniqueTag('move');
    const person = await create('Moving', 'Person', `${tag}-old`);
    const { status } = await suite.api.patch(person.id, { local_reference_id: `${tag}-new` });
    expect(status).toBe(200);
    expect(await found({ local_reference_id: `${tag}-old` })).toEqual([]);
    expect(await found({ local_reference_id: `${tag}-new` })).toEqual(['Moving Person']);
  });

  it.each([null, ''])('clearing it with %j removes the person from every value', async (cleared) => {
    const tag = uniqueTag('clear');
    const person = await create('Cleared', 'Person', tag);
    expect((await suite.api.patch(person.id, { local_reference_id: cleared })).status).toBe(200);
    expect(await found({ local_reference_id: tag })).toEqual([]);
    expect((await suite.api.get(person.id)).body.local_reference_id).toBe(cleared);
  });

  it('a first value set by a PATCH finds the person', async () => {
    const tag = uniqueTag('first');
    const person = await create('Late', 'Reference');
    expect((await suite.api.patch(person.id, { local_reference_id: tag })).status).toBe(200);
    expect(await found({ local_reference_id: tag })).toEqual(['Late Reference']);
  });

  it('a rename shows the new fullname in the stub, and its new place in the order', async () => {
    const tag = uniqueTag('rename');
    const person = await create('Aaron', 'Renamed', tag);
    await create('Mia', 'Stays', tag);
    expect(await found({ local_reference_id: tag })).toEqual(['Aaron Renamed', 'Mia Stays']);
    const nameId = (person.Names['@set'][0] as { id: number }).id;
    expect(
      (await suite.api.patch(person.id, { Names: { '@set': [{ id: nameId, first_name: 'Zacharie' }] } }))
        .status,
    ).toBe(200);
    expect(await found({ local_reference_id: tag })).toEqual(['Mia Stays', 'Zacharie Renamed']);
    expect(await found({ local_reference_id: tag, first_name: 'aaron' })).toEqual([]);
  });

  it("a change of a sub-object's local_reference_id changes nothing the root value finds", async () => {
    const tag = uniqueTag('subchange');
    const person = await create('Kept', 'Root', tag);
    const nameId = (person.Names['@set'][0] as { id: number }).id;
    await suite.api.patch(person.id, {
      Names: { '@set': [{ id: nameId, first_name: 'Kept', local_reference_id: `${tag}-name` }] },
    });
    expect(await found({ local_reference_id: tag })).toEqual(['Kept Root']);
    expect(await found({ local_reference_id: `${tag}-name` })).toEqual([]);
  });

  it('a create refused with 409 (duplicate email) leaves no reference item', async () => {
    const tag = uniqueTag('refused');
    const email = uniqueEmail();
    await suite.api.post({ ...personBody('First', 'Holder', email), local_reference_id: `${tag}-holder` });
    const before = await snapshot(suite.table);
    const { status } = await suite.api.post({
      ...personBody('Second', 'Claimant', email),
      local_reference_id: `${tag}-claimant`,
    });
    expect(status).toBe(409);
    expect(await snapshot(suite.table)).toEqual(before);
    expect(await found({ local_reference_id: `${tag}-claimant` })).toEqual([]);
  });

  it('a PATCH refused with 409 (duplicate email) leaves the reference item where it was', async () => {
    const tag = uniqueTag('refusedpatch');
    const taken = uniqueEmail();
    await create('Email', 'Holder', undefined, { Emails: { '@set': [{ email: taken }] } });
    const person = await create('Would', 'Move', `${tag}-old`);
    const before = await snapshot(suite.table);
    const { status } = await suite.api.patch(person.id, {
      local_reference_id: `${tag}-new`,
      Emails: { '@set': [{ email: taken }] },
    });
    expect(status).toBe(409);
    expect(await snapshot(suite.table)).toEqual(before);
    expect(await found({ local_reference_id: `${tag}-old` })).toEqual(['Would Move']);
    expect(await found({ local_reference_id: `${tag}-new` })).toEqual([]);
  });
});

describe('local_reference_id: what a request reads', () => {
  it('reads the matches and the checks of the other filters on them, whatever the table holds', async () => {
    const table = await createTestTable();
    // 150 persons without a value (straight into storage, as the bench seeds them), then 3 with one.
    await seedPersons(table, { from: 0, count: 150 });
    const api = personApi(testRepository(table));
    const tag = uniqueTag('cost');
    for (const first of ['Ada', 'Alan', 'Grace']) {
      const { status } = await api.post({
        ...personBody(first, 'Costed', uniqueEmail()),
        local_reference_id: tag,
      });
      expect(status).toBe(201);
    }
    expect((await scanAll(table)).filter((item) => item.type === 'LocalReference')).toHaveLength(3);
    const there = lister(table);
    const costOf = async (query: Query, count: number) => {
      expect((await there.list(query)).body.Pagination.count).toBe(count);
      return there.lastCost();
    };

    // The value alone: its 3 items, one Query, a read unit (3 stubs of some 60 bytes, read strongly).
    expect(await costOf({ local_reference_id: tag, limit: '1' }, 3)).toMatchObject({
      source: 'local reference',
      calls: 1,
      itemsRead: 3,
      references: 3,
    });
    expect(there.lastCost().capacityUnits).toBeLessThanOrEqual(1);
    // Another filter: one BatchGetItem of the candidates' postings of its gram (only Ada's is there),
    // or, for a fragment under 3 code points, of the candidates themselves.
    expect(await costOf({ local_reference_id: tag, first_name: 'ada' }, 1)).toMatchObject({
      calls: 2,
      itemsRead: 3 + 1,
    });
    expect(await costOf({ local_reference_id: tag, first_name: 'al' }, 1)).toMatchObject({
      calls: 2,
      itemsRead: 3 + 3,
    });
    // Two: the second checks only the candidates the first left.
    expect(await costOf({ local_reference_id: tag, first_name: 'ada', search: 'costed' }, 1)).toMatchObject({
      calls: 3,
      itemsRead: 3 + 1 + 1,
    });
    expect(await costOf({ local_reference_id: tag, first_name: 'a', search: 'costed' }, 3)).toMatchObject({
      calls: 3,
      itemsRead: 3 + 3 + 3,
    });
    // A value no one holds: one Query, nothing read, no other filter checked.
    expect(await costOf({ local_reference_id: `${tag}-none`, search: 'a' }, 0)).toMatchObject({
      calls: 1,
      itemsRead: 0,
    });

    // The same on the suite's table, which holds other persons than these 150.
    const other = uniqueTag('costs');
    for (const first of ['Ada', 'Alan', 'Grace']) await create(first, 'Costed', other);
    await list({ local_reference_id: other, first_name: 'ada' });
    expect(lastCost()).toMatchObject({ source: 'local reference', calls: 2, itemsRead: 3 + 1 });
  }, 120_000);
});

describe("local_reference_id survives a merge: the client's own key finds the survivor (API.md 13.1)", () => {
  const merge = async (survivor: number, source: number) =>
    expect((await suite.api.merge(survivor, { source })).status).toBe(200);
  const referenceItems = async (value: string) =>
    (await scanAll(suite.table)).filter((item) => item.pk === `LOCALREF#${value}`);

  it('answers the survivor once, with its own fullname, in place of the merged person', async () => {
    const tag = uniqueTag('merged');
    const survivor = await create('Ada', 'Survivor');
    const source = await create('Bea', 'Source', tag);
    await merge(survivor.id, source.id);
    const { body } = await list({ local_reference_id: tag });
    expect(body.Pagination.count).toBe(1);
    expect(body['@set'].map(({ id, property_value }) => [id, property_value])).toEqual([
      [survivor.id, 'Ada Survivor'],
    ]);
    // The merged reference: the source's key and id, and nothing personal.
    expect(await referenceItems(tag)).toEqual([expect.not.objectContaining({ fullname: expect.anything() })]);
    expect((await referenceItems(tag))[0]).toMatchObject({ id: source.id, merged: true });
  });

  it('answers the survivor once when it holds the key itself too, and once for two sources of the key', async () => {
    const tag = uniqueTag('twice');
    const survivor = await create('Cleo', 'Holder', tag);
    const first = await create('Dan', 'First', tag);
    const second = await create('Eve', 'Second', tag);
    await merge(survivor.id, first.id);
    await merge(survivor.id, second.id);
    expect(await found({ local_reference_id: tag })).toEqual(['Cleo Holder']);
    expect((await list({ local_reference_id: tag, limit: '0' })).body.Pagination.count).toBe(1);
    expect(lastCost()).toMatchObject({ source: 'local reference', references: 3, merged: 2 });
  });

  it('follows a chain to its live end: B into A, then A into C answers C', async () => {
    const tag = uniqueTag('chain');
    const a = await create('Abe', 'Middle', `${tag}-a`);
    const b = await create('Bo', 'First', tag);
    const c = await create('Cy', 'End');
    await merge(a.id, b.id);
    await merge(c.id, a.id);
    expect(await found({ local_reference_id: `${tag}-a` })).toEqual(['Cy End']);
    expect(await found({ local_reference_id: tag })).toEqual(['Cy End']);
    // B's key: its Query, then B, A and C read, one BatchGetItem each.
    expect(lastCost()).toMatchObject({ calls: 1 + 3, itemsRead: 1 + 3, merged: 1 });
  });

  it('checks the other filters on the survivor, as on any candidate', async () => {
    const tag = uniqueTag('filtered');
    const survivor = await create('Fay', 'Kept');
    const source = await create('Gus', 'Gone', tag);
    const other = await create('Hal', 'Other', tag);
    await merge(survivor.id, source.id);
    expect(await found({ local_reference_id: tag })).toEqual(['Fay Kept', 'Hal Other']);
    expect(await found({ local_reference_id: tag, last_name: 'kept' })).toEqual(['Fay Kept']);
    // The survivor holds the source's Name now (API.md 13), so the source's name finds it.
    expect(await found({ local_reference_id: tag, last_name: 'gone' })).toEqual(['Fay Kept']);
    expect(await found({ local_reference_id: tag, last_name: 'other' })).toEqual(['Hal Other']);
    expect(await found({ local_reference_id: tag, first_name: 'h' })).toEqual([other.fullname]);
    expect(await found({ local_reference_id: tag, search: 'fay' })).toEqual(['Fay Kept']);
  });

  it("answers nothing once the survivor is erased, whose erasure deletes the chain's merged references", async () => {
    const tag = uniqueTag('erased');
    const a = await create('Ivo', 'Middle', `${tag}-a`);
    const b = await create('Jo', 'First', tag);
    const c = await create('Kim', 'End');
    await merge(a.id, b.id);
    await merge(c.id, a.id);
    expect(await referenceItems(tag)).toHaveLength(1);
    expect((await suite.api.erase(c.id)).status).toBe(200);
    expect(await found({ local_reference_id: tag })).toEqual([]);
    expect(await found({ local_reference_id: `${tag}-a` })).toEqual([]);
    expect(await referenceItems(tag)).toEqual([]);
    expect(await referenceItems(`${tag}-a`)).toEqual([]);
  });
});
