/**
 * GRC's `audit-endpoints.md` (ChangeHistory) replayed against the real local server, read back as
 * API.md 11.2 and 11.5 state it: one entry per stored change, the object before and after it, who asked
 * and from where, and never a cookie or a token.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueTag } from '../support/api';
import { serverSuite } from '../support/server-suite';
import { type Api, apiOf, expectProblem, expectSamePerson, fixture, ISO_INSTANT, type Json } from './support';

const server = serverSuite({ env: { ENRICHMENT: 'off' } }, 120_000);
let api: Api;

beforeAll(() => {
  api = apiOf(server.url);
});

const USER_AGENT = 'GRC-compat-suite/1.0 (FileMaker/19.2)';
const COOKIE_SECRET = 'Vp5V0pyofLbATnFZ-compat-cookie-secret';
const TOKEN_SECRET = 'compat-bearer-token-secret-7c1d';

/** A self-registration as GRC's Postman and FileMaker clients send it: with a cookie and a token. */
const register = async (tag = uniqueTag('hist')) => {
  const reply = await api.post('/Person', fixture('person-post-minimum', { tag }), {
    requester: 0,
    headers: {
      'user-agent': USER_AGENT,
      cookie: `grcapi=${COOKIE_SECRET}`,
      authorization: `Bearer ${TOKEN_SECRET}`,
    },
  });
  expect(reply.status).toBe(201);
  return { tag, person: reply.body };
};

const historyOf = (endpoint: string, id: number) =>
  api.get(`/ChangeHistory?endpoint=${endpoint}&object_id=${id}`);

const context = () => `${server.url}/context.jsonld`;

/** An entry as API.md 11.5 lists its members; the tests pin the values they know. */
const changeEntry = (values: Json) => ({
  '@context': context(),
  '@type': 'ChangeHistory',
  '@id': expect.any(String),
  id: expect.any(Number),
  organization_fk: null,
  team_fk: null,
  changed: expect.any(Array),
  provider_data: expect.any(Object),
  timestamp: expect.stringMatching(ISO_INSTANT),
  ...values,
});

describe('audit-endpoints.md: a Person POST', { timeout: 60_000 }, () => {
  it('is one POST entry by the new person, with no previous object and the created one as current', async () => {
    const { person } = await register();

    const reply = await historyOf('Person', person.id);

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      '@context': context(),
      Pagination: { '@context': context(), '@type': 'Pagination', count: 1, limit: 1, offset: 0 },
      '@set': [
        changeEntry({
          endpoint: 'Person',
          object_id: person.id,
          person_fk: person.id,
          type: 'POST',
          previous_object: null,
          current_object: person,
        }),
      ],
    });
    const entry: Json = reply.body['@set'][0];
    expect(entry['@id']).toBe(`${server.url}/ChangeHistory/${entry.id}`);
    expect((entry.changed as string[]).every((pointer) => pointer.startsWith('/'))).toBe(true);
  });

  it("records the request id, the caller's user agent and the caller in provider_data", async () => {
    const { person } = await register();

    const entry: Json = (await historyOf('Person', person.id)).body['@set'][0];

    expect(entry.provider_data).toEqual(
      expect.objectContaining({ request_id: expect.any(String), user_agent: USER_AGENT }),
    );
    expect(entry.provider_data.request_id).not.toBe('');
    expect(entry.provider_data).toHaveProperty('caller');
  });

  it('keeps cookies, tokens and the authorization header out of the entry', async () => {
    const { person } = await register();

    const entry: Json = (await historyOf('Person', person.id)).body['@set'][0];

    const text = JSON.stringify(entry);
    expect(text).not.toContain(COOKIE_SECRET);
    expect(text).not.toContain(TOKEN_SECRET);
    expect(
      Object.keys(entry.provider_data).filter((key) => /cookie|authori[sz]ation|token/i.test(key)),
    ).toEqual([]);
  });

  it("is named by the person's created_audit_id, and modified_audit_id is null before a change", async () => {
    const { person } = await register();

    const entry: Json = (await historyOf('Person', person.id)).body['@set'][0];

    expect(person.CoreMetaData.created_audit_id).toBe(entry.id);
    expect(person.CoreMetaData.modified_audit_id).toBeNull();
  });

  it('is answered alone at GET /ChangeHistory/{id}, the address its @id names', async () => {
    const { person } = await register();
    const listed: Json = (await historyOf('Person', person.id)).body['@set'][0];

    const reply = await api.get(`/ChangeHistory/${person.CoreMetaData.created_audit_id}`);

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(listed);
    expect((await api.get(new URL(listed['@id']).pathname)).body).toEqual(listed);
  });
});

describe('audit-endpoints.md: a Person PATCH', { timeout: 60_000 }, () => {
  it('is a PATCH entry by the requester, with the object before and after it, listed before the POST', async () => {
    const reviewer = (await register()).person;
    const { tag, person } = await register();
    const before = await api.get(`/Person/${person.id}`);

    const patched = await api.patch(`/Person/${person.id}`, fixture('person-patch-emails-add', { tag }), {
      requester: reviewer.id,
    });
    const after = await api.get(`/Person/${person.id}`);

    expect(patched.status).toBe(200);
    const reply = await historyOf('Person', person.id);
    expect(reply.body.Pagination).toMatchObject({ count: 2, limit: 2, offset: 0 });
    expect(reply.body['@set']).toEqual([
      changeEntry({
        endpoint: 'Person',
        object_id: person.id,
        person_fk: reviewer.id,
        type: 'PATCH',
        changed: ['/Emails'],
        previous_object: expect.any(Object),
        current_object: expect.any(Object),
      }),
      changeEntry({
        endpoint: 'Person',
        object_id: person.id,
        person_fk: person.id,
        type: 'POST',
        previous_object: null,
        current_object: expect.any(Object),
      }),
    ]);
    const entry: Json = reply.body['@set'][0];
    expectSamePerson(entry.previous_object, before.body);
    expectSamePerson(entry.current_object, after.body);
    expectSamePerson(after.body, patched.body);
  });

  it("moves the person's modified_audit_id to its latest PATCH entry and keeps created_audit_id", async () => {
    const { tag, person } = await register();
    await api.patch(`/Person/${person.id}`, fixture('person-patch-emails-add', { tag }), {
      requester: person.id,
    });
    await api.patch(
      `/Person/${person.id}`,
      { local_reference_id: 'second-change' },
      { requester: person.id },
    );

    const current = (await api.get(`/Person/${person.id}`)).body;

    const entries = (await historyOf('Person', person.id)).body['@set'] as Json[];
    const latest: Json = entries[0] ?? {};
    expect(entries.map((entry) => entry.type)).toEqual(['PATCH', 'PATCH', 'POST']);
    expect(latest.changed).toEqual(['/local_reference_id']);
    expect(current.CoreMetaData.modified_audit_id).toBe(latest.id);
    expect(current.CoreMetaData.created_audit_id).toBe(person.CoreMetaData.created_audit_id);
  });

  it('shows the same entries, newest first, in the AuditEntry view of GET /Person/{id}/audit', async () => {
    const { tag, person } = await register();
    await api.patch(`/Person/${person.id}`, fixture('person-patch-emails-add', { tag }), {
      requester: person.id,
    });

    const audit = await api.get(`/Person/${person.id}/audit`);

    const history = (await historyOf('Person', person.id)).body['@set'] as Json[];
    expect(audit.status).toBe(200);
    expect((audit.body.items as Json[]).map((entry) => entry.id)).toEqual(history.map((entry) => entry.id));
  });
});

describe('audit-endpoints.md: NamePrefix and NameSuffix writes', { timeout: 60_000 }, () => {
  const VOCABULARIES = [
    { endpoint: 'NamePrefix', fixtures: 'nameprefix' },
    { endpoint: 'NameSuffix', fixtures: 'namesuffix' },
  ];

  it.each(VOCABULARIES)(
    'records a $endpoint POST and PATCH as entries of that endpoint',
    async (vocabulary) => {
      const editor = (await register()).person;
      const tag = uniqueTag('vocab');
      const posted = await api.post(
        `/${vocabulary.endpoint}`,
        fixture(`${vocabulary.fixtures}-post-local-reference-id`, { tag }),
        { requester: editor.id },
      );
      expect(posted.status).toBe(201);
      const { id } = posted.body;
      const created = await api.get(`/${vocabulary.endpoint}/${id}`);
      await api.patch(
        `/${vocabulary.endpoint}/${id}`,
        fixture(`${vocabulary.fixtures}-patch-local-reference-id`, { tag, id }),
        { requester: editor.id },
      );
      const changed = await api.get(`/${vocabulary.endpoint}/${id}`);

      const reply = await historyOf(vocabulary.endpoint, id);

      expect(reply.status).toBe(200);
      expect(reply.body['@set']).toEqual([
        changeEntry({
          endpoint: vocabulary.endpoint,
          object_id: id,
          person_fk: editor.id,
          type: 'PATCH',
          previous_object: created.body,
          current_object: changed.body,
        }),
        changeEntry({
          endpoint: vocabulary.endpoint,
          object_id: id,
          person_fk: editor.id,
          type: 'POST',
          previous_object: null,
          current_object: created.body,
        }),
      ]);
    },
  );
});

describe('audit-endpoints.md: GET /ChangeHistory', { timeout: 60_000 }, () => {
  it('lists every entry newest first', async () => {
    const first = (await register()).person;
    const second = (await register()).person;

    const reply = await api.get('/ChangeHistory');

    expect(reply.status).toBe(200);
    const entries = reply.body['@set'] as Json[];
    expect(entries.slice(0, 2).map((entry) => [entry.object_id, entry.type])).toEqual([
      [second.id, 'POST'],
      [first.id, 'POST'],
    ]);
    const timestamps = entries.map((entry) => entry.timestamp as string);
    expect(timestamps).toEqual([...timestamps].sort().reverse());
    expect(reply.body.Pagination).toMatchObject({ '@type': 'Pagination', limit: entries.length, offset: 0 });
  });

  it('pages with limit and offset', async () => {
    await register();
    await register();
    await register();
    const all = await api.get('/ChangeHistory?limit=10');

    const reply = await api.get('/ChangeHistory?limit=2&offset=1');

    expect(reply.status).toBe(200);
    expect(reply.body.Pagination).toEqual({
      '@context': context(),
      '@type': 'Pagination',
      count: all.body.Pagination.count,
      limit: 2,
      offset: 1,
    });
    expect(reply.body['@set']).toEqual((all.body['@set'] as Json[]).slice(1, 3));
  });

  it('gives the PaginatedList envelope with page and perPage', async () => {
    await register();
    await register();
    await register();
    const all = await api.get('/ChangeHistory?limit=10');

    const reply = await api.get('/ChangeHistory?page=2&perPage=2');

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      '@type': 'PaginatedList',
      itemType: 'ChangeHistory',
      page: 2,
      perPage: 2,
      total: all.body.Pagination.count,
    });
    expect(reply.body.items).toEqual((all.body['@set'] as Json[]).slice(2, 4));
    const previous = new URL(reply.body.previousPage as string);
    expect(`${previous.origin}${previous.pathname}`).toBe(`${server.url}/ChangeHistory`);
    expect(Object.fromEntries(previous.searchParams)).toEqual({ page: '1', perPage: '2' });
  });

  it('answers an unknown entry id with 404 problem+json', async () => {
    expectProblem(await api.get('/ChangeHistory/999999999'), 404, 'not-found');
  });
});
