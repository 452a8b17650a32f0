/**
 * GRC's `nameprefix-endpoints.md` and `namesuffix-endpoints.md` replayed against the real local server,
 * read back as API.md 11.4 states it. The two documents are one contract with `prefix` or `suffix`, so
 * every test runs for both vocabularies.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueTag } from '../support/api';
import { serverSuite } from '../support/server-suite';
import { type Api, apiOf, countOf, expectProblem, fixture, ISO_INSTANT, type Json } from './support';

const server = serverSuite({ env: { ENRICHMENT: 'off' } }, 120_000);
let api: Api;
/** A person to write the vocabularies as: both endpoints need an existing requester. */
let editor: number;

beforeAll(async () => {
  api = apiOf(server.url);
  const reply = await api.post('/Person', fixture('person-post-minimum', { tag: uniqueTag('editor') }), {
    requester: 0,
  });
  expect(reply.status).toBe(201);
  editor = reply.body.id;
});

interface Seed {
  id: number;
  value: string;
  abbreviation: string;
}

interface Vocabulary {
  endpoint: 'NamePrefix' | 'NameSuffix';
  /** The API.md 6 view of the same entries. */
  view: 'Prefix' | 'Suffix';
  field: 'prefix' | 'suffix';
  fixtures: string;
  /** API.md 11.4: the ids GRC's documents show. */
  seeds: Seed[];
  /** A Doolitle name with this entry (and no other) as prefix or suffix, and the fullname it gives. */
  person: (id: number) => { name_prefix_fk: number | null; name_suffix_fk: number | null };
  fullname: (abbreviation: string) => string;
}

const VOCABULARIES: Vocabulary[] = [
  {
    endpoint: 'NamePrefix',
    view: 'Prefix',
    field: 'prefix',
    fixtures: 'nameprefix',
    seeds: [
      { id: 1, value: 'Abbot', abbreviation: 'Abbot' },
      { id: 2, value: 'Admiral', abbreviation: 'Adm.' },
      { id: 21, value: 'Doctor', abbreviation: 'Dr.' },
    ],
    person: (id) => ({ name_prefix_fk: id, name_suffix_fk: null }),
    fullname: (abbreviation) => `${abbreviation} James T Doolitle`,
  },
  {
    endpoint: 'NameSuffix',
    view: 'Suffix',
    field: 'suffix',
    fixtures: 'namesuffix',
    seeds: [
      { id: 1, value: 'Second', abbreviation: 'II' },
      { id: 2, value: 'Third', abbreviation: 'III' },
      { id: 19, value: 'Esquire', abbreviation: 'Esquire' },
    ],
    person: (id) => ({ name_prefix_fk: null, name_suffix_fk: id }),
    fullname: (abbreviation) => `James T Doolitle ${abbreviation}`,
  },
];

/** Case and accents folded away, as the filters and the abbreviation uniqueness compare. */
const folded = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

const ids = (list: Json) => (list['@set'] as Json[]).map((entry) => entry.id as number);

describe.each(VOCABULARIES)('$endpoint (API.md 11.4)', (vocabulary) => {
  const { endpoint, view, field, seeds } = vocabulary;
  const context = () => `${server.url}/context.jsonld`;

  /** An entry as GRC's documents show it, with API.md 11.4's `@id` and `local_reference_id`. */
  const entry = (
    id: number,
    value: string,
    abbreviation: string,
    local_reference_id: string | null = null,
  ) => ({
    '@context': context(),
    '@type': endpoint,
    '@id': `${server.url}/${endpoint}/${id}`,
    id,
    [field]: value,
    abbreviation,
    local_reference_id,
    CoreMetaData: expect.objectContaining({ '@type': 'CoreMetaData' }),
  });

  const post = (name: string, tag: string, requester: number | string | null = editor) =>
    api.post(`/${endpoint}`, fixture(`${vocabulary.fixtures}-${name}`, { tag }), { requester });

  /** POSTs GRC's local_reference_id example and answers the created entry. */
  const created = async () => {
    const tag = uniqueTag('voc');
    const reply = await post('post-local-reference-id', tag);
    expect(reply.status).toBe(201);
    return { tag, created: reply.body };
  };

  describe('GET', { timeout: 60_000 }, () => {
    it.each(seeds)(`answers /${endpoint}/$id with GRC's $value, "$abbreviation"`, async (seed) => {
      const reply = await api.get(`/${endpoint}/${seed.id}`);

      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(entry(seed.id, seed.value, seed.abbreviation));
    });

    it(`shows the same entries at /${view}/{id}`, async () => {
      const seed = seeds[2] as Seed;

      const reply = await api.get(`/${view}/${seed.id}`);

      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({
        '@type': view,
        '@id': `${server.url}/${view}/${seed.id}`,
        id: seed.id,
        [field]: seed.value,
        abbreviation: seed.abbreviation,
      });
    });

    it('answers an unknown id with 404 problem+json', async () => {
      expectProblem(await api.get(`/${endpoint}/999999`), 404, 'not-found');
    });

    it("lists in GRC's shape, ordered by id, 50 at most by default", async () => {
      const reply = await api.get(`/${endpoint}`);

      expect(reply.status).toBe(200);
      const { count } = reply.body.Pagination;
      expect(count).toBeGreaterThanOrEqual(seeds.length);
      const shown = Math.min(50, count);
      expect(reply.body).toEqual({
        '@context': context(),
        Pagination: { '@context': context(), '@type': 'Pagination', count, limit: shown, offset: 0 },
        '@set': expect.any(Array),
      });
      expect(reply.body['@set']).toHaveLength(shown);
      expect(ids(reply.body)).toEqual([...ids(reply.body)].sort((left, right) => left - right));
      expect(reply.body['@set'][0]).toEqual(
        entry(1, (seeds[0] as Seed).value, (seeds[0] as Seed).abbreviation),
      );
    });

    it('reverses the order with sort_dir=0', async () => {
      const ascending = await api.get(`/${endpoint}?limit=500`);

      const descending = await api.get(`/${endpoint}?limit=500&sort_dir=0`);

      expect(descending.status).toBe(200);
      expect(ids(descending.body)).toEqual([...ids(ascending.body)].reverse());
    });

    it('pages with limit and offset', async () => {
      const all = await api.get(`/${endpoint}?limit=500`);

      const reply = await api.get(`/${endpoint}?limit=2&offset=1`);

      expect(reply.body.Pagination).toEqual({
        '@context': context(),
        '@type': 'Pagination',
        count: all.body.Pagination.count,
        limit: 2,
        offset: 1,
      });
      expect(reply.body['@set']).toEqual((all.body['@set'] as Json[]).slice(1, 3));
    });

    it(`filters by ${field}, abbreviation and search as substrings, ignoring case and accents`, async () => {
      const tag = uniqueTag('accent');
      const posted = await api.post(
        `/${endpoint}`,
        { '@type': endpoint, [field]: `Ilustrísimo ${tag}`, abbreviation: `Ilmo${tag}` },
        { requester: editor },
      );
      expect(posted.status).toBe(201);
      const id = posted.body.id as number;

      const byField = await api.get(`/${endpoint}?${field}=${encodeURIComponent(`ILUSTRISIMO ${tag}`)}`);
      const byAbbreviation = await api.get(`/${endpoint}?abbreviation=${encodeURIComponent(`ílmo${tag}`)}`);
      const bySearch = await api.get(`/${endpoint}?search=${encodeURIComponent(tag.toUpperCase())}`);

      for (const reply of [byField, byAbbreviation, bySearch]) {
        expect(reply.status).toBe(200);
        expect(ids(reply.body)).toEqual([id]);
        expect(reply.body.Pagination.count).toBe(1);
      }
    });

    it('combines the filters with AND', async () => {
      const seed = seeds[2] as Seed;
      const matching = await api.get(
        `/${endpoint}?${field}=${encodeURIComponent(seed.value.slice(1, 5).toUpperCase())}&abbreviation=${encodeURIComponent(seed.abbreviation.toLowerCase())}`,
      );

      const contradicting = await api.get(
        `/${endpoint}?${field}=${encodeURIComponent(seed.value)}&abbreviation=${encodeURIComponent((seeds[0] as Seed).abbreviation)}`,
      );

      expect(ids(matching.body)).toContain(seed.id);
      for (const found of matching.body['@set'] as Json[]) {
        expect(folded(found[field])).toContain(folded(seed.value.slice(1, 5)));
        expect(folded(found.abbreviation)).toContain(folded(seed.abbreviation));
      }
      expect(contradicting.status).toBe(200);
      expect(contradicting.body.Pagination.count).toBe(0);
      expect(contradicting.body['@set']).toEqual([]);
    });

    it('gives the PaginatedList envelope with page and perPage', async () => {
      const reply = await api.get(`/${endpoint}?page=1&perPage=2`);

      expect(reply.status).toBe(200);
      const total = await countOf(api, `/${endpoint}`);
      expect(reply.body).toMatchObject({
        '@type': 'PaginatedList',
        page: 1,
        perPage: 2,
        total,
        previousPage: null,
      });
      expect((reply.body.items as Json[]).map((item) => item.id)).toEqual([1, 2]);
      expect(reply.body.items[0]).toMatchObject({
        id: 1,
        [field]: (seeds[0] as Seed).value,
        abbreviation: (seeds[0] as Seed).abbreviation,
      });
      const next = new URL(reply.body.nextPage as string);
      expect(`${next.origin}${next.pathname}`).toBe(`${server.url}/${endpoint}`);
      expect(Object.fromEntries(next.searchParams)).toEqual({ page: '2', perPage: '2' });
    });
  });

  describe('POST and PATCH', { timeout: 60_000 }, () => {
    it('creates the Minimum Required Object: 201, Location, the full entry, created_by the requester', async () => {
      const tag = uniqueTag('min');

      const reply = await post('post-minimum', tag);

      expect(reply.status).toBe(201);
      const { id } = reply.body;
      expect(Number.isInteger(id) && id > 0).toBe(true);
      expect(new URL(reply.headers.get('location') as string, server.url).href).toBe(
        `${server.url}/${endpoint}/${id}`,
      );
      expect(reply.body).toEqual(entry(id, `Title ${tag}`, `Abbr${tag}`));
      expect(reply.body.CoreMetaData).toMatchObject({ created_by: editor });
      expect((await api.get(`/${endpoint}/${id}`)).body).toEqual(reply.body);
    });

    it(`answers a POSTed entry at /${view}/{id} too`, async () => {
      const tag = uniqueTag('view');
      const reply = await post('post-minimum', tag);

      const shown = await api.get(`/${view}/${reply.body.id}`);

      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({
        '@type': view,
        id: reply.body.id,
        [field]: `Title ${tag}`,
        abbreviation: `Abbr${tag}`,
      });
    });

    it('echoes and stores the local_reference_id of a POST', async () => {
      const tag = uniqueTag('lrid');

      const reply = await post('post-local-reference-id', tag);

      expect(reply.status).toBe(201);
      const expected = entry(
        reply.body.id,
        `Admiral ${tag}`,
        `Adm${tag}`,
        '98d5d6ed-ef14-4a0c-b223-9257a3213b82',
      );
      expect(reply.body).toEqual(expected);
      expect((await api.get(`/${endpoint}/${reply.body.id}`)).body).toEqual(expected);
    });

    it("changes the abbreviation with GRC's PATCH, ignoring its placeholder CoreMetaData, and echoes local_reference_id", async () => {
      const { tag, created: before } = await created();
      const body = fixture(`${vocabulary.fixtures}-patch-local-reference-id`, { tag, id: before.id });

      const reply = await api.patch(`/${endpoint}/${before.id}`, body, { requester: editor });

      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(
        entry(before.id, `Admiral ${tag}`, `Adm.${tag}`, '2da44297-7525-46ee-b2af-b66ee91b422f'),
      );
      const meta = reply.body.CoreMetaData;
      expect(meta.date_created).toMatch(ISO_INSTANT);
      expect(meta.date_modified).toMatch(ISO_INSTANT);
      expect(meta).toMatchObject({ created_by: editor, modified_by: editor });
      expect((await api.get(`/${endpoint}/${before.id}`)).body).toEqual(reply.body);
      expect((await api.get(`/${view}/${before.id}`)).body).toMatchObject({ abbreviation: `Adm.${tag}` });
    });

    it(`changes the ${field} with a PATCH`, async () => {
      const { tag, created: before } = await created();

      const reply = await api.patch(
        `/${endpoint}/${before.id}`,
        { [field]: `Fleet Admiral ${tag}` },
        { requester: editor },
      );

      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({
        id: before.id,
        [field]: `Fleet Admiral ${tag}`,
        abbreviation: `Adm${tag}`,
      });
    });

    it('answers a PATCH of an unknown id with 404', async () => {
      expectProblem(
        await api.patch(`/${endpoint}/999999`, { abbreviation: 'Nobody' }, { requester: editor }),
        404,
        'not-found',
      );
    });

    it(`lets a Person name a POSTed entry, whose abbreviation goes into the fullname`, async () => {
      const { tag, created: vocabularyEntry } = await created();
      const body = fixture('person-post-prefix-and-suffix', {
        tag,
        ...vocabulary.person(vocabularyEntry.id),
      });

      const reply = await api.post('/Person', body, { requester: 0 });

      expect(reply.status).toBe(201);
      expect(reply.body.fullname).toBe(vocabulary.fullname(`Adm${tag}`));
    });
  });

  describe('refused writes change nothing', { timeout: 60_000 }, () => {
    const REQUESTERS = [
      { rule: 'a requester of 0', requester: 0, status: 400, type: 'invalid-requester' },
      { rule: 'an unknown requester', requester: 999999, status: 403, type: 'unknown-requester' },
      { rule: 'no requester', requester: null, status: 400, type: 'missing-requester' },
    ];

    it.each(REQUESTERS)('POST with $rule is $status', async ({ requester, status, type }) => {
      const count = await countOf(api, `/${endpoint}`);
      const entries = await countOf(api, '/ChangeHistory');

      const reply = await post('post-minimum', uniqueTag('who'), requester);

      expectProblem(reply, status, type);
      expect(await countOf(api, `/${endpoint}`)).toBe(count);
      expect(await countOf(api, '/ChangeHistory')).toBe(entries);
    });

    it.each(REQUESTERS)('PATCH with $rule is $status', async ({ requester, status, type }) => {
      const { tag, created: before } = await created();
      const body = fixture(`${vocabulary.fixtures}-patch-local-reference-id`, { tag, id: before.id });
      const entries = await countOf(api, '/ChangeHistory');

      const reply = await api.patch(`/${endpoint}/${before.id}`, body, { requester });

      expectProblem(reply, status, type);
      expect((await api.get(`/${endpoint}/${before.id}`)).body).toEqual(before);
      expect(await countOf(api, '/ChangeHistory')).toBe(entries);
    });

    const INVALID: { rule: string; body: (tag: string) => Json }[] = [
      { rule: 'a blank abbreviation', body: (tag) => ({ [field]: `Blank ${tag}`, abbreviation: '   ' }) },
      { rule: 'no abbreviation', body: (tag) => ({ [field]: `Missing ${tag}` }) },
      { rule: `a blank ${field}`, body: (tag) => ({ [field]: '', abbreviation: `Blank${tag}` }) },
    ];

    it.each(INVALID)('POST with $rule is 400', async ({ body }) => {
      const tag = uniqueTag('invalid');
      const count = await countOf(api, `/${endpoint}`);
      const entries = await countOf(api, '/ChangeHistory');

      const reply = await api.post(
        `/${endpoint}`,
        { '@type': endpoint, ...body(tag) },
        { requester: editor },
      );

      expectProblem(reply, 400, 'validation-error');
      expect(await countOf(api, `/${endpoint}`)).toBe(count);
      expect(await countOf(api, `/${endpoint}`, { search: tag })).toBe(0);
      expect(await countOf(api, '/ChangeHistory')).toBe(entries);
    });

    it('PATCH to a blank abbreviation is 400', async () => {
      const { created: before } = await created();
      const entries = await countOf(api, '/ChangeHistory');

      const reply = await api.patch(
        `/${endpoint}/${before.id}`,
        { abbreviation: ' ' },
        { requester: editor },
      );

      expectProblem(reply, 400, 'validation-error');
      expect((await api.get(`/${endpoint}/${before.id}`)).body).toEqual(before);
      expect(await countOf(api, '/ChangeHistory')).toBe(entries);
    });

    it('POST of a seeded abbreviation in another case is 409 duplicate-abbreviation', async () => {
      const seed = seeds[2] as Seed;
      const count = await countOf(api, `/${endpoint}`);
      const entries = await countOf(api, '/ChangeHistory');

      const reply = await api.post(
        `/${endpoint}`,
        {
          '@type': endpoint,
          [field]: `Another ${uniqueTag('dup')}`,
          abbreviation: seed.abbreviation.toUpperCase(),
        },
        { requester: editor },
      );

      expectProblem(reply, 409, 'duplicate-abbreviation');
      expect(await countOf(api, `/${endpoint}`)).toBe(count);
      expect(await countOf(api, '/ChangeHistory')).toBe(entries);
    });

    it('POST of an abbreviation that differs only in accents and case is 409 duplicate-abbreviation', async () => {
      const tag = uniqueTag('dup');
      const first = await api.post(
        `/${endpoint}`,
        { '@type': endpoint, [field]: `Éminence ${tag}`, abbreviation: `Ém${tag}` },
        { requester: editor },
      );
      expect(first.status).toBe(201);
      const count = await countOf(api, `/${endpoint}`);

      const reply = await api.post(
        `/${endpoint}`,
        { '@type': endpoint, [field]: `Eminence ${tag}`, abbreviation: `EM${tag.toUpperCase()}` },
        { requester: editor },
      );

      expectProblem(reply, 409, 'duplicate-abbreviation');
      expect(await countOf(api, `/${endpoint}`)).toBe(count);
    });

    it("PATCH to another entry's abbreviation is 409 duplicate-abbreviation", async () => {
      const { created: before } = await created();
      const entries = await countOf(api, '/ChangeHistory');

      const reply = await api.patch(
        `/${endpoint}/${before.id}`,
        { abbreviation: (seeds[1] as Seed).abbreviation.toLowerCase() },
        { requester: editor },
      );

      expectProblem(reply, 409, 'duplicate-abbreviation');
      expect((await api.get(`/${endpoint}/${before.id}`)).body).toEqual(before);
      expect(await countOf(api, '/ChangeHistory')).toBe(entries);
    });
  });

  describe('trailing slashes (API.md 1)', { timeout: 60_000 }, () => {
    it(`POST /${endpoint}/ creates the entry at /${endpoint}/{id}`, async () => {
      const tag = uniqueTag('slash');

      const reply = await api.post(`/${endpoint}/`, fixture(`${vocabulary.fixtures}-post-minimum`, { tag }), {
        requester: editor,
      });

      expect(reply.status).toBe(201);
      expect(new URL(reply.headers.get('location') as string, server.url).href).toBe(
        `${server.url}/${endpoint}/${reply.body.id}`,
      );
      expect(reply.body['@id']).toBe(`${server.url}/${endpoint}/${reply.body.id}`);
    });

    it(`PATCH /${endpoint}/{id}/ changes the entry`, async () => {
      const { tag, created: before } = await created();

      const reply = await api.patch(
        `/${endpoint}/${before.id}/`,
        { abbreviation: `Slash${tag}` },
        { requester: editor },
      );

      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ id: before.id, abbreviation: `Slash${tag}` });
    });
  });
});
