import { describe, expect, it } from 'vitest';
import { buildHandler as buildGetPrefix } from '../../functions/get-prefix';
import { buildHandler as buildGetSuffix } from '../../functions/get-suffix';
import { buildHandler as buildListPersonAudit } from '../../functions/list-person-audit';
import { buildHandler as buildListPrefixes } from '../../functions/list-prefixes';
import { buildHandler as buildListSuffixes } from '../../functions/list-suffixes';
import { SEEDED_VOCABULARY } from '../../infra/handlers/seed/vocabulary-seed';
import { auditLog } from '../../lib/db/history/audit-log';
import { vocabularyRepository } from '../../lib/db/vocabulary/vocabulary-repository';
import type { paginatedList } from '../../lib/domain/listing';
import type { VocabularyRepository } from '../../lib/domain/ports/vocabulary';
import { type Json, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { httpEvent, invoke } from '../support/events';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

const BASE = 'https://api.example.test';
const CONTEXT = `${BASE}/context.jsonld`;

type Query = Record<string, string>;

/** The envelope as lib/domain/listing.ts builds it. */
type PaginatedList<T> = ReturnType<typeof paginatedList<T>>;

interface AuditEntry {
  '@type': string;
  id: number;
  person_id: number;
  action: string;
  requester: number | null;
  at: string;
  changed: string[];
}

interface Problem {
  type: string;
  status: number;
  errors?: { path: string; message: string }[];
}

type Reply = { status: number; headers: Query; body: unknown };

/** A link as its address and its query as an object: the contract fixes the parameters, not their order. */
const linkOf = (link: string | null) => {
  if (link === null) return null;
  const url = new URL(link);
  return { url: `${url.origin}${url.pathname}`, query: Object.fromEntries(url.searchParams) };
};

const pageLink = (path: string, page: number | null, perPage: number) =>
  page === null ? null : { url: `${BASE}${path}`, query: { page: String(page), perPage: String(perPage) } };

const expectProblem = (response: Reply, status: number, type: string) => {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ type: `/problems/${type}`, status });
};

const expectValidationError = (response: Reply, param: string) => {
  expectProblem(response, 400, 'validation-error');
  expect((response.body as Problem).errors?.map((error) => error.path)).toContain(`/${param}`);
};

const BAD_PAGE_VALUES = [
  ['page', '0'],
  ['page', '-1'],
  ['page', '1.5'],
  ['page', 'first'],
  ['perPage', '0'],
  ['perPage', '101'],
  ['perPage', '-10'],
  ['perPage', '2.5'],
  ['perPage', 'all'],
] as const;

// ---------------------------------------------------------------------------------------------------
// GET /Prefix, /Prefix/{id}, /Suffix, /Suffix/{id}
// ---------------------------------------------------------------------------------------------------

const KINDS = [
  {
    kind: 'Prefix',
    field: 'prefix',
    seeded: SEEDED_VOCABULARY.NamePrefix.map(({ id, term, abbreviation }) => ({
      id,
      text: term,
      abbreviation,
    })),
    buildList: buildListPrefixes,
    buildGet: buildGetPrefix,
  },
  {
    kind: 'Suffix',
    field: 'suffix',
    seeded: SEEDED_VOCABULARY.NameSuffix.map(({ id, term, abbreviation }) => ({
      id,
      text: term,
      abbreviation,
    })),
    buildList: buildListSuffixes,
    buildGet: buildGetSuffix,
  },
];

for (const { kind, field, seeded, buildList, buildGet } of KINDS) {
  describe(`GET /${kind} and GET /${kind}/{id} (API.md 1 and 6)`, () => {
    const path = `/${kind}`;
    const vocabulary = (): VocabularyRepository =>
      vocabularyRepository({ client: suite.table.client, tableName: suite.table.tableName });
    const list = (query: Query = {}) =>
      invoke<PaginatedList<Json>>(
        buildList({ vocabulary: vocabulary() }),
        httpEvent({ method: 'GET', route: path, query }),
      );
    const get = (id: string) =>
      invoke<Json>(
        buildGet({ vocabulary: vocabulary() }),
        httpEvent({ method: 'GET', route: `${path}/{id}`, path: `${path}/${id}`, pathParameters: { id } }),
      );
    const follow = (link: string) => {
      const url = new URL(link);
      expect(`${url.origin}${url.pathname}`).toBe(`${BASE}${path}`);
      return list(Object.fromEntries(url.searchParams));
    };
    /** What the contract fixes of an item; an item may carry more (an `@context`, say). */
    const itemOf = ({ id, text, abbreviation }: { id: number; text: string; abbreviation: string }) => ({
      '@type': kind,
      '@id': `${BASE}${path}/${id}`,
      id,
      [field]: text,
      abbreviation,
    });

    it(`answers page 1 of 10 in the PaginatedList envelope, itemType ${kind}, total the seeded count`, async () => {
      const response = await list();
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const { '@id': id, previousPage, nextPage, items, ...rest } = response.body;
      expect(rest).toEqual({
        '@context': CONTEXT,
        '@type': 'PaginatedList',
        itemType: kind,
        page: 1,
        perPage: 10,
        total: seeded.length,
      });
      expect(items).toMatchObject(seeded.slice(0, 10).map(itemOf));
      expect(linkOf(id)).toEqual(pageLink(path, 1, 10));
      expect(previousPage).toBeNull();
      expect(linkOf(nextPage)).toEqual(pageLink(path, 2, 10));
    });

    it(`lists every seeded ${kind} with @type, @id, id and ${field} on one page of 100`, async () => {
      const { body } = await list({ perPage: '100' });
      expect(body.items).toMatchObject(seeded.map(itemOf));
      expect(body).toMatchObject({ total: seeded.length, previousPage: null, nextPage: null });
    });

    it('pages through every item exactly once by following nextPage, with links null at the ends', async () => {
      const perPage = 5;
      const lastPage = Math.ceil(seeded.length / perPage);
      const seen: Json[] = [];
      let response = await list({ perPage: String(perPage) });
      for (let page = 1; ; page++) {
        const { body } = response;
        expect(body).toMatchObject({ page, perPage, total: seeded.length });
        expect(linkOf(body['@id'])).toEqual(pageLink(path, page, perPage));
        expect(linkOf(body.previousPage)).toEqual(pageLink(path, page > 1 ? page - 1 : null, perPage));
        expect(linkOf(body.nextPage)).toEqual(pageLink(path, page < lastPage ? page + 1 : null, perPage));
        seen.push(...body.items);
        if (body.nextPage === null) break;
        response = await follow(body.nextPage);
      }
      expect(seen).toMatchObject(seeded.map(itemOf));
    });

    it('a page past the end has empty items, the full total and no nextPage', async () => {
      const pastTheEnd = Math.ceil(seeded.length / 5) + 1;
      const { status, body } = await list({ page: String(pastTheEnd), perPage: '5' });
      expect(status).toBe(200);
      expect(body).toMatchObject({
        page: pastTheEnd,
        perPage: 5,
        total: seeded.length,
        items: [],
        nextPage: null,
      });
    });

    it.each(BAD_PAGE_VALUES)('rejects %s=%s with 400 validation-error', async (param, value) => {
      expectValidationError(await list({ [param]: value }), param);
    });

    it.each([seeded[0], seeded.at(-1)])(`GET ${path}/{id} answers 200 with the item %j`, async (item) => {
      if (!item) throw new Error('no seeded item');
      const response = await get(String(item.id));
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.body).toMatchObject(itemOf(item));
    });

    it(`GET ${path}/{id} carries @context, as every resource does (API.md 2)`, async () => {
      const { body } = await get('1');
      expect(body['@context']).toBe(CONTEXT);
    });

    it.each([String(seeded.length + 1), '999999', '0', '-1', '1.5', 'abc', '1e1'])(
      `GET ${path}/%s is 404 not-found problem+json`,
      async (id) => {
        expectProblem(await get(id), 404, 'not-found');
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------------
// GET /Person/{id}/audit
// ---------------------------------------------------------------------------------------------------

const audit = (id: number | string, query: Query = {}) =>
  invoke<PaginatedList<AuditEntry>>(
    buildListPersonAudit({
      audit: auditLog({ client: suite.table.client, tableName: suite.table.tableName }),
    }),
    httpEvent({
      method: 'GET',
      route: '/Person/{id}/audit',
      path: `/Person/${id}/audit`,
      pathParameters: { id: String(id) },
      query,
    }),
  );

const followAudit = (id: number, link: string) => {
  const url = new URL(link);
  expect(`${url.origin}${url.pathname}`).toBe(`${BASE}/Person/${id}/audit`);
  return audit(id, Object.fromEntries(url.searchParams));
};

const createPerson = async (
  requester = 0,
  body: unknown = personBody('Audrey', uniqueTag('Trail'), uniqueEmail()),
) => {
  const response = await suite.api.post(body, { requester });
  expect(response.status).toBe(201);
  return response.body;
};

/** A person with `patches` stored changes after its creation: `patches + 1` entries in all. */
const personWithHistory = async (patches: number) => {
  const person = await createPerson();
  for (let n = 1; n <= patches; n++) {
    const { status } = await suite.api.patch(person.id, { local_reference_id: `change-${n}` });
    expect(status).toBe(200);
  }
  return person;
};

const isIsoTimestamp = (value: string) => new Date(value).toISOString() === value;

describe('GET /Person/{id}/audit (API.md 1 and 6)', () => {
  it('lists the AuditEntries newest first with action, requester, at, changed and person_id', async () => {
    const reviewer = await createPerson();
    const person = await createPerson(reviewer.id);
    const nameId = (person.Names['@set'][0] as { id: number }).id;

    await suite.api.patch(person.id, { Emails: { '@set': [{ email: uniqueEmail('second') }] } });
    await suite.api.patch(person.id, { local_reference_id: 'crm-1' }, { requester: reviewer.id });
    const last = await suite.api.patch(person.id, {
      Names: { '@set': [{ id: nameId, first_name: 'Audra' }] },
    });
    expect(last.status).toBe(200);

    const response = await audit(person.id);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const { body } = response;
    expect(body).toMatchObject({
      '@context': CONTEXT,
      '@type': 'PaginatedList',
      itemType: 'AuditEntry',
      page: 1,
      perPage: 10,
      total: 4,
      previousPage: null,
      nextPage: null,
    });
    expect(linkOf(body['@id'])).toEqual(pageLink(`/Person/${person.id}/audit`, 1, 10));
    expect(body.items).toMatchObject([
      {
        '@type': 'AuditEntry',
        person_id: person.id,
        action: 'update',
        requester: person.id,
        changed: ['/Names'],
      },
      {
        '@type': 'AuditEntry',
        person_id: person.id,
        action: 'update',
        requester: reviewer.id,
        changed: ['/local_reference_id'],
      },
      {
        '@type': 'AuditEntry',
        person_id: person.id,
        action: 'update',
        requester: person.id,
        changed: ['/Emails'],
      },
      { '@type': 'AuditEntry', person_id: person.id, action: 'create', requester: reviewer.id },
    ]);
    expect(body.items[3]?.changed).toContain('/Names');
    expect(body.items[3]?.changed).toContain('/Emails');
  });

  it('gives every entry its own positive integer id and an ISO 8601 time, newest first', async () => {
    const person = await personWithHistory(3);
    const { body } = await audit(person.id);
    const ids = body.items.map((entry) => entry.id);
    expect(ids.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain(person.id);
    const times = body.items.map((entry) => entry.at);
    expect(times.every(isIsoTimestamp)).toBe(true);
    expect([...times].sort().reverse()).toEqual(times);
    const current = await suite.api.get(person.id);
    expect(times[0]).toBe(current.body.CoreMetaData.date_modified);
    expect(times.at(-1)).toBe(current.body.CoreMetaData.date_created);
  });

  it('names the new person as the requester of a self-registration', async () => {
    const person = await createPerson(0);
    const { body } = await audit(person.id);
    expect(body.items).toMatchObject([{ action: 'create', requester: person.id, person_id: person.id }]);
  });

  it("total equals the number of stored changes, the person's version", async () => {
    const person = await personWithHistory(5);
    const { body } = await audit(person.id);
    const current = await suite.api.get(person.id);
    expect(body.total).toBe(6);
    expect(body.total).toBe(current.body.CoreMetaData.version);
    expect(body.items).toHaveLength(6);
  });

  it.each([
    ['an empty body', () => ({})],
    ['the current local_reference_id again', () => ({ local_reference_id: 'change-1' })],
    ['an example object', () => ({ Emails: { '@set': [{ '@type': 'Email', email: null, primary: null }] } })],
  ])('a PATCH that changes nothing (%s) adds no entry', async (_, body) => {
    const person = await personWithHistory(1);
    const before = await audit(person.id);
    const response = await suite.api.patch(person.id, body());
    expect(response.status).toBe(200);
    const after = await audit(person.id);
    expect(after.body.total).toBe(2);
    expect(after.body.items).toEqual(before.body.items);
  });

  it('pages across pages with perPage 2: newest first, links at the first, middle and last pages', async () => {
    const person = await personWithHistory(4);
    const path = `/Person/${person.id}/audit`;
    const seen: AuditEntry[] = [];
    let response = await audit(person.id, { perPage: '2' });
    for (let page = 1; ; page++) {
      const { body } = response;
      expect(body).toMatchObject({ page, perPage: 2, total: 5, itemType: 'AuditEntry' });
      expect(body.items).toHaveLength(page < 3 ? 2 : 1);
      expect(linkOf(body['@id'])).toEqual(pageLink(path, page, 2));
      expect(linkOf(body.previousPage)).toEqual(pageLink(path, page > 1 ? page - 1 : null, 2));
      expect(linkOf(body.nextPage)).toEqual(pageLink(path, page < 3 ? page + 1 : null, 2));
      seen.push(...body.items);
      if (body.nextPage === null) break;
      response = await followAudit(person.id, body.nextPage);
    }
    expect(seen.map((entry) => entry.action)).toEqual(['update', 'update', 'update', 'update', 'create']);
    expect(seen).toEqual((await audit(person.id)).body.items);
  });

  it('a page past the end has empty items, the full total and no nextPage', async () => {
    const person = await personWithHistory(2);
    const { status, body } = await audit(person.id, { page: '3', perPage: '2' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ page: 3, perPage: 2, total: 3, items: [], nextPage: null });
  });

  it.each(['999999999', '0', 'abc', '-1'])('is 404 not-found for the unknown person %s', async (id) => {
    expectProblem(await audit(id), 404, 'not-found');
  });

  it.each(BAD_PAGE_VALUES)('rejects %s=%s with 400 validation-error', async (param, value) => {
    const person = await createPerson();
    expectValidationError(await audit(person.id, { [param]: value }), param);
  });
});
