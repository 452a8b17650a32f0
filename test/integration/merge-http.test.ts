/**
 * Merging duplicates (API.md section 13), black box over real HTTP against the real local server
 * (`npm start`'s entry): every expectation here is read from API.md's text (sections 13, 2.1, 5.1-5.5,
 * 7, 11.2, 11.5, 12), not from the code. What moves and what is dropped as equal, the answer, the
 * source afterwards (301 tombstone, gone from lists, search and matching, 409 on a PATCH, acting as its
 * survivor when named as requester), the refusals, the history, and the uniqueness claims after.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueTag } from '../support/api';
import { type RequestOptions, request } from '../support/http';
import { serverSuite } from '../support/server-suite';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions themselves
type Json = Record<string, any>;

const server = serverSuite({ env: { ENRICHMENT: 'off' } });
let base: string;

beforeAll(() => {
  base = server.url;
});

const send = (method: string, path: string, options: Omit<RequestOptions, 'redirect'> = {}) =>
  request(base, method, path, { ...options, redirect: 'manual' });

const getJson = async (path: string) => {
  const response = await send('GET', path);
  expect(response.status, path).toBe(200);
  return (await response.json()) as Json;
};

/** POST /Person (self-registration unless a requester is named); the created Person. */
const create = async (body: Json, requester: number | string = 0) => {
  const response = await send('POST', '/Person', { body: { '@type': 'Person', ...body }, requester });
  expect(response.status, JSON.stringify(await response.clone().json())).toBe(201);
  return (await response.json()) as Json;
};

const names = (...items: Json[]) => ({ Names: { '@type': 'Names', '@set': items } });
const emails = (...addresses: string[]) => ({
  Emails: { '@type': 'Emails', '@set': addresses.map((email) => ({ email })) },
});

/** GET /Person/{id} as a client sees it: status, ETag, Location and body. */
const read = async (id: number) => {
  const response = await send('GET', `/Person/${id}`);
  return {
    status: response.status,
    etag: response.headers.get('etag'),
    location: response.headers.get('location'),
    body: (await response.json()) as Json,
  };
};

const merge = (
  survivor: number | string,
  body: unknown,
  requester: number | string | undefined,
  headers = {},
) => send('POST', `/Person/${survivor}/merge`, { body, requester, headers });

/** An RFC 9457 problem (section 7) of this status (and type), as application/problem+json. */
const expectProblem = async (response: Response, status: number, type?: string) => {
  const problem = (await response.json()) as Json;
  expect(response.status, JSON.stringify(problem)).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(problem).toMatchObject({
    type: expect.stringMatching(/^\/problems\/[a-z-]+$/),
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: new URL(response.url).pathname,
  });
  expect(problem).not.toHaveProperty('stack');
  if (type !== undefined) expect(problem.type).toBe(`/problems/${type}`);
  return problem;
};

/** Every `existing` URL a problem names, at its root or in its `errors`. */
const existingOf = (problem: Json): string[] =>
  [problem.existing, ...((problem.errors ?? []) as Json[]).map(({ existing }) => existing)].filter(Boolean);

const personUrl = (id: number) => `${base}/Person/${id}`;

/** Everything a client can read about these persons and the store, to show that nothing was written. */
const snapshot = async (...ids: number[]) => ({
  persons: await Promise.all(ids.map(read)),
  audits: await Promise.all(ids.map((id) => getJson(`/Person/${id}/audit?page=1&perPage=100`))),
  histories: await Promise.all(
    ids.map((id) => getJson(`/ChangeHistory?endpoint=Person&object_id=${id}&limit=100`)),
  ),
  count: (await getJson('/Person?limit=0')).Pagination.count as number,
});

/** The persons of a list answer, by id. */
const listedIds = async (query: string) =>
  ((await getJson(`/Person?${query}`))['@set'] as Json[]).map(({ id }) => id as number);

/** The candidate ids the reconciliation service answers to one query (section 12). */
const candidates = async (query: string) => {
  const answer = await getJson(`/reconcile?queries=${encodeURIComponent(JSON.stringify({ q0: { query } }))}`);
  return (answer.q0.result as Json[]).map(({ id }) => Number(id));
};

const suggested = async (prefix: string) =>
  ((await getJson(`/reconcile/suggest/entity?prefix=${encodeURIComponent(prefix)}`)).result as Json[]).map(
    ({ id }) => Number(id),
  );

const historyOf = async (id: number) =>
  (await getJson(`/ChangeHistory?endpoint=Person&object_id=${id}&limit=100`))['@set'] as Json[];

/** The item at this index, which the test expects to be there. */
const nth = <T>(items: T[], index: number): T => {
  const item = items[index];
  if (item === undefined) throw new Error(`No item ${index} in ${JSON.stringify(items)}`);
  return item;
};

/** A set's live items (the example object of an empty set left out). */
const itemsOf = (container: Json | undefined): Json[] =>
  ((container?.['@set'] ?? []) as Json[]).filter(({ id }) => id !== null);

describe('a merge of a duplicate that holds some equal and some new items', () => {
  const tag = uniqueTag('mrg');
  const TAG = tag.toUpperCase();
  const email = (label: string) => `${label}-${tag}@example.org`;
  let requester: Json;
  let survivor: Json;
  let source: Json;
  let before: Awaited<ReturnType<typeof snapshot>>;
  let answer: Response;
  let merged: Json;
  let after: Awaited<ReturnType<typeof read>>;

  beforeAll(async () => {
    requester = await create({ ...names({ first_name: 'Rita', last_name: `Requester${tag}` }) });
    survivor = await create({
      local_reference_id: `root-s-${tag}`,
      ...names(
        { first_name: 'Ann', last_name: `Surv${tag}`, local_reference_id: 'n-s1' },
        { freeform_name: `Ann the Surveyor ${tag}` },
      ),
      ...emails(email('s1'), email('s2')),
      PhoneNumbers: { '@set': [{ phone_number: '+1 (555) 123-4567', primary: true }] },
      PostalAddresses: {
        '@set': [
          {
            address1: '1 Main St',
            city: 'Springfield',
            postal_code: '12345',
            country_code: 'US',
            primary: true,
          },
        ],
      },
      PersonRoles: { '@set': [{ name: 'Editor', role_fk: 7 }] },
      PersonMemberships: {
        PersonOrganizations: { '@set': [{ name: 'Org A', organization_fk: 3 }] },
        PersonGroups: { '@set': [{ name: 'Group G', group_fk: 11 }] },
        PersonTeams: { '@set': [{ name: 'Team T', team_fk: 4 }] },
      },
      SocialAddresses: { twitter: 'https://x.com/survivor' },
    });
    source = await create({
      local_reference_id: `root-d-${tag}`,
      ...names(
        // moves (the source's primary, non-primary at the survivor)
        { first_name: 'Anna', last_name: `Dupe${tag}`, local_reference_id: 'n-d1' },
        // dropped: the same folded parts as the survivor's primary Name (case and accents)
        { first_name: 'ANN', last_name: `SÜRV${TAG}` },
        // dropped: the same folded freeform name
        { freeform_name: `ANN THE SURVEYOR ${TAG}` },
        // moves: one part differs (the middle initial)
        { first_name: 'Ann', middle_initial: 'Q', last_name: `Surv${tag}`, local_reference_id: 'n-d4' },
      ),
      Emails: {
        '@set': [{ email: email('d1'), local_reference_id: 'e-d1' }, { email: email('d2') }],
      },
      PhoneNumbers: {
        '@set': [
          // dropped: the survivor's number but for spaces and punctuation
          { phone_number: '+1.555.123.4567' },
          { phone_number: '+1 555 987 6543', primary: true, local_reference_id: 'p-d2' },
        ],
      },
      PostalAddresses: {
        '@set': [
          { address1: '1 Main St', city: 'Springfield', postal_code: '12345', country_code: 'US' },
          {
            address1: '2 Side St',
            city: 'Springfield',
            postal_code: '12345',
            country_code: 'US',
            primary: true,
            local_reference_id: 'a-d2',
          },
        ],
      },
      PersonRoles: {
        '@set': [
          { name: 'Editor', role_fk: 7 },
          { name: 'Reviewer', role_fk: 8, local_reference_id: 'r-d2' },
        ],
      },
      PersonMemberships: {
        PersonOrganizations: {
          '@set': [
            { name: 'Org A', organization_fk: 3 },
            { name: 'Org B', organization_fk: 5, local_reference_id: 'o-d2' },
          ],
        },
        PersonGroups: { '@set': [{ name: 'Group G', group_fk: 11 }] },
        PersonInitiatives: { '@set': [{ name: 'Initiative I', initiative: 21, local_reference_id: 'i-d1' }] },
        PersonTeams: { '@set': [{ name: 'Team U', team_fk: 6 }] },
      },
      SocialAddresses: { twitter: 'https://x.com/duplicate', facebook: 'https://www.facebook.com/duplicate' },
    });
    // The duplicate is there to be found before the merge (so "gone" below means something).
    expect(await listedIds(`search=${tag}&limit=100`)).toEqual(
      expect.arrayContaining([survivor.id, source.id]),
    );
    expect(await candidates(`Anna Dupe${tag}`)).toContain(source.id);
    expect(await suggested(`Anna Dupe${tag}`)).toContain(source.id);
    before = await snapshot(survivor.id, source.id);
    answer = await merge(survivor.id, { source: source.id }, requester.id);
    merged = (await answer.clone().json()) as Json;
    after = await read(survivor.id);
  });

  it('answers 200 with the survivor as GET now shows it, its version one higher, with its ETag', () => {
    expect(answer.status, JSON.stringify(merged)).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(merged).toEqual(after.body);
    expect(after.status).toBe(200);
    expect(merged.id).toBe(survivor.id);
    expect(merged.CoreMetaData.version).toBe(survivor.CoreMetaData.version + 1);
    expect(answer.headers.get('etag')).toBe(`"${survivor.CoreMetaData.version + 1}"`);
    expect(after.etag).toBe(answer.headers.get('etag'));
  });

  /** The survivor's items of one set, before and after, and the source's, by id. */
  const setsOf = (pick: (person: Json) => Json | undefined) => ({
    own: itemsOf(pick(nth(before.persons, 0).body)),
    theirs: itemsOf(pick(nth(before.persons, 1).body)),
    now: itemsOf(pick(merged)),
  });

  /** Asserts the survivor's set is its own items unchanged plus exactly the moved ones. */
  const expectMoved = (
    pick: (person: Json) => Json | undefined,
    movedIndexes: number[],
    hasPrimary: boolean,
  ) => {
    const { own, theirs, now } = setsOf(pick);
    const moved = movedIndexes.map((index) => theirs[index] as Json);
    const dropped = theirs.filter((item) => !moved.includes(item));
    expect(now).toHaveLength(own.length + moved.length);
    for (const item of own) expect(now).toContainEqual(item);
    for (const item of moved) {
      expect(now).toContainEqual({
        ...item,
        person_fk: survivor.id,
        ...(hasPrimary ? { primary: false } : {}),
      });
    }
    const ids = now.map(({ id }) => id);
    for (const item of dropped) expect(ids).not.toContain(item.id);
  };

  it('moves the source’s Names as non-primary unless the survivor has one with the same folded parts', () => {
    expectMoved((person) => person.Names, [0, 3], true);
    const primaries = itemsOf(merged.Names).filter(({ primary }) => primary === true);
    expect(primaries.map(({ id }) => id)).toEqual([nth(itemsOf(survivor.Names), 0).id]);
  });

  it('moves every Email of the source as a non-primary item keeping its id and local_reference_id', () => {
    expectMoved((person) => person.Emails, [0, 1], true);
    expect(
      itemsOf(merged.Emails).find(({ local_reference_id }) => local_reference_id === 'e-d1'),
    ).toMatchObject({
      id: nth(itemsOf(source.Emails), 0).id,
      email: email('d1'),
      person_fk: survivor.id,
      primary: false,
    });
  });

  it('drops a phone number equal but for spaces and punctuation, moves the other as non-primary', () => {
    expectMoved((person) => person.PhoneNumbers, [1], true);
  });

  it('drops an address with the same fields, moves the other as non-primary', () => {
    expectMoved((person) => person.PostalAddresses, [1], true);
  });

  it('drops a role with the same key, moves the other', () => {
    expectMoved((person) => person.PersonRoles, [1], false);
  });

  it('drops memberships with the same key, moves the others, in every PersonMemberships set', () => {
    expectMoved((person) => person.PersonMemberships?.PersonOrganizations, [1], false);
    expectMoved((person) => person.PersonMemberships?.PersonGroups, [], false);
    expectMoved((person) => person.PersonMemberships?.PersonInitiatives, [0], false);
    expectMoved((person) => person.PersonMemberships?.PersonTeams, [0], false);
  });

  it('fills only the survivor’s null SocialAddresses fields from the source', () => {
    expect(merged.SocialAddresses).toEqual({
      '@type': 'SocialAddresses',
      twitter: 'https://x.com/survivor',
      facebook: 'https://www.facebook.com/duplicate',
      linkedin: null,
      youtube: null,
    });
  });

  it('keeps the survivor’s own values, primaries, root local_reference_id and created_by', () => {
    const own = nth(before.persons, 0).body;
    expect(merged).toMatchObject({
      '@id': personUrl(survivor.id),
      id: survivor.id,
      fullname: own.fullname,
      email: own.email,
      local_reference_id: `root-s-${tag}`,
    });
    expect(merged.CoreMetaData).toMatchObject({
      created_by: own.CoreMetaData.created_by,
      date_created: own.CoreMetaData.date_created,
      // section 3: modified_by is the person id of the latest change's requester
      modified_by: requester.id,
      live_status: 1,
    });
    for (const set of ['Names', 'Emails', 'PhoneNumbers', 'PostalAddresses'] as const) {
      const primaries = (person: Json) => itemsOf(person[set]).filter(({ primary }) => primary === true);
      expect(primaries(merged), set).toEqual(primaries(own));
    }
  });

  it('answers GET of the source with 301 to the survivor and a tombstone holding no personal data', async () => {
    const response = await send('GET', `/Person/${source.id}`);
    const tombstone = (await response.json()) as Json;

    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe(personUrl(survivor.id));
    expect(tombstone).toMatchObject({
      '@type': 'Person',
      '@id': personUrl(source.id),
      id: source.id,
      superceded_by: survivor.id,
      CoreMetaData: { live_status: 0, superceded_by: survivor.id },
    });
    expect(
      Object.keys(tombstone).filter(
        (key) => !['@context', '@type', '@id', 'id', 'superceded_by', 'CoreMetaData'].includes(key),
      ),
    ).toEqual([]);
    // Without its links: the server's port may hold any digits.
    const text = JSON.stringify(tombstone).replace(/https?:\/\/[^"/]+/g, '');
    for (const personal of [tag, 'Anna', 'Springfield', '555', 'duplicate'])
      expect(text).not.toContain(personal);
  });

  it('answers HEAD of the source as its GET: 301, the same Location, no body', async () => {
    const response = await send('HEAD', `/Person/${source.id}`);

    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe(personUrl(survivor.id));
    expect(await response.text()).toBe('');
  });

  it('drops the source from every list filter and from the unfiltered count', async () => {
    const found = await listedIds(`search=${tag}&limit=100`);
    expect(found).not.toContain(source.id);
    expect(found).toContain(survivor.id);
    // The source's Names and Emails now belong to the survivor: the filters find it, not the source.
    expect(await listedIds(`last_name=Dupe${tag}`)).toEqual([survivor.id]);
    expect(await listedIds(`first_name=Anna&last_name=Dupe${tag}`)).toEqual([survivor.id]);
    expect(await listedIds(`email=${encodeURIComponent(email('d1'))}`)).toEqual([survivor.id]);
    expect(await listedIds(`search=Dupe${tag}`)).toEqual([survivor.id]);
    // The source's own key finds the survivor (API.md 13.1).
    expect(await listedIds(`local_reference_id=root-d-${tag}`)).toEqual([survivor.id]);
    expect((await getJson('/Person?limit=0')).Pagination.count).toBe(before.count - 1);
    const paged = await getJson(`/Person?search=${tag}&page=1&perPage=100`);
    expect((paged.items as Json[]).map(({ id }) => id)).not.toContain(source.id);
    expect(paged.total).toBe(paged.items.length);
  });

  it('never offers the source as a reconciliation candidate or suggestion', async () => {
    expect(await candidates(`Anna Dupe${tag}`)).not.toContain(source.id);
    expect(await candidates(email('d1'))).not.toContain(source.id);
    expect(await candidates(email('d1'))).toContain(survivor.id);
    expect(await suggested(`Anna Dupe${tag}`)).not.toContain(source.id);
  });

  it('keeps the source’s /audit and ChangeHistory readable', async () => {
    const audit = await getJson(`/Person/${source.id}/audit`);
    expect(audit['@type']).toBe('PaginatedList');
    expect(audit.total).toBe(2);
    expect((audit.items as Json[]).map(({ requester: by }) => by)).toEqual([requester.id, source.id]);
    const history = await historyOf(source.id);
    expect(history.map(({ type }) => type)).toEqual(['MERGE', 'POST']);
    for (const entry of history) expect(await getJson(`/ChangeHistory/${entry.id}`)).toEqual(entry);
  });

  it('writes one MERGE ChangeHistory entry on each person, with previous and current object, naming the requester', async () => {
    const tombstone = (await read(source.id)).body;
    const [survivorEntries, sourceEntries] = [await historyOf(survivor.id), await historyOf(source.id)];
    const survivorMerges = survivorEntries.filter(({ type }) => type === 'MERGE');
    const sourceMerges = sourceEntries.filter(({ type }) => type === 'MERGE');

    expect(survivorMerges).toHaveLength(1);
    expect(sourceMerges).toHaveLength(1);
    expect(nth(survivorMerges, 0)).toMatchObject({
      '@type': 'ChangeHistory',
      endpoint: 'Person',
      object_id: survivor.id,
      person_fk: requester.id,
      previous_object: nth(before.persons, 0).body,
      current_object: after.body,
    });
    expect(nth(sourceMerges, 0)).toMatchObject({
      '@type': 'ChangeHistory',
      endpoint: 'Person',
      object_id: source.id,
      person_fk: requester.id,
      previous_object: nth(before.persons, 1).body,
      current_object: tombstone,
    });
    // section 11.2: modified_audit_id names the latest change's entry
    expect(after.body.CoreMetaData.modified_audit_id).toBe(nth(survivorMerges, 0).id);
    expect(nth(survivorEntries, 0).id).toBe(nth(survivorMerges, 0).id);
    const audit = await getJson(`/Person/${survivor.id}/audit`);
    expect(audit.items[0]).toMatchObject({ id: nth(survivorMerges, 0).id, requester: requester.id });
  });

  it('passes the source’s email claims to the survivor: a create with one is 409 naming the survivor', async () => {
    for (const taken of [email('d1'), `  ${email('d2').toUpperCase()} `]) {
      const response = await send('POST', '/Person', {
        body: { ...names({ first_name: 'New', last_name: `Claimant${tag}` }), ...emails(taken) },
        requester: 0,
      });
      const problem = await expectProblem(response, 409, 'duplicate-email');
      expect(existingOf(problem)).toEqual([personUrl(survivor.id)]);
    }
    const patch = await send('PATCH', `/Person/${requester.id}`, {
      body: emails(email('d2')),
      requester: requester.id,
    });
    expect(existingOf(await expectProblem(patch, 409, 'duplicate-email'))).toEqual([personUrl(survivor.id)]);
  });

  it('refuses a PATCH of the source with 409 merged naming the survivor, and changes nothing', async () => {
    const unchanged = await snapshot(survivor.id, source.id);
    const response = await send('PATCH', `/Person/${source.id}`, {
      body: { local_reference_id: 'late' },
      requester: requester.id,
    });

    expect(existingOf(await expectProblem(response, 409, 'merged'))).toEqual([personUrl(survivor.id)]);
    expect(await snapshot(survivor.id, source.id)).toEqual(unchanged);
  });

  it('shows nothing of the source through the reconciliation preview and data extension', async () => {
    const preview = await send('GET', `/reconcile/preview?id=${source.id}`);
    expect([200, 404]).toContain(preview.status);
    expect(await preview.text()).not.toContain(tag);
    const extended = await getJson(
      `/reconcile?extend=${encodeURIComponent(JSON.stringify({ ids: [String(source.id)], properties: [{ id: 'fullname' }] }))}`,
    );
    expect(JSON.stringify(extended.rows ?? {})).not.toContain(tag);
  });

  it('resolves the merged problem type to its page (section 2.1)', async () => {
    const response = await send('GET', '/problems/merged', { headers: { accept: 'application/json' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ type: '/problems/merged', status: 409 });
  });

  it('acts as the survivor when a write names the source as x-requester-person', async () => {
    const created = await create(
      { ...names({ first_name: 'Made', last_name: `BySource${tag}` }), ...emails(email('made')) },
      source.id,
    );
    expect(created.CoreMetaData.created_by).toBe(survivor.id);
    expect(nth(await historyOf(created.id), 0).person_fk).toBe(survivor.id);

    const patched = await send('PATCH', `/Person/${created.id}`, {
      body: { local_reference_id: `by-source-${tag}` },
      requester: source.id,
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as Json).CoreMetaData.modified_by).toBe(survivor.id);
    expect(nth(await historyOf(created.id), 0)).toMatchObject({ type: 'PATCH', person_fk: survivor.id });
    expect((await getJson(`/Person/${created.id}/audit`)).items[0].requester).toBe(survivor.id);

    const prefix = await send('POST', '/NamePrefix', {
      body: { prefix: `Prefix ${tag}`, abbreviation: `P${tag}.` },
      requester: source.id,
    });
    expect(prefix.status).toBe(201);
    expect(((await prefix.json()) as Json).CoreMetaData.created_by).toBe(survivor.id);
  });

  it('answers the same merge again with 200 and the survivor, and changes nothing', async () => {
    const unchanged = await snapshot(survivor.id, source.id);
    const again = await merge(survivor.id, { source: source.id }, requester.id);

    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe(nth(unchanged.persons, 0).etag);
    expect(await again.json()).toEqual(nth(unchanged.persons, 0).body);
    expect(await snapshot(survivor.id, source.id)).toEqual(unchanged);
  });

  it('refuses to merge the source into another survivor: 409 merged naming its survivor', async () => {
    const unchanged = await snapshot(requester.id, source.id);
    const response = await merge(requester.id, { source: source.id }, requester.id);

    expect(existingOf(await expectProblem(response, 409, 'merged'))).toEqual([personUrl(survivor.id)]);
    expect(await snapshot(requester.id, source.id)).toEqual(unchanged);
  });

  it('refuses to merge into the source (the survivor already merged): 409 merged naming its survivor', async () => {
    const unchanged = await snapshot(requester.id, source.id);
    const response = await merge(source.id, { source: requester.id }, requester.id);

    expect(existingOf(await expectProblem(response, 409, 'merged'))).toEqual([personUrl(survivor.id)]);
    expect(await snapshot(requester.id, source.id)).toEqual(unchanged);
  });
});

describe('preview and If-Match', () => {
  const pair = async (label: string) => {
    const tag = uniqueTag(label);
    const survivor = await create({
      ...names({ first_name: 'Pat', last_name: `Keep${tag}` }),
      ...emails(`keep-${tag}@example.org`),
    });
    const source = await create({
      ...names({ first_name: 'Pat', last_name: `Drop${tag}` }),
      ...emails(`drop-${tag}@example.org`),
      PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0000' }] },
      SocialAddresses: { linkedin: 'https://www.linkedin.com/in/drop' },
    });
    return { tag, survivor, source };
  };

  /** The parts of an answer that depend on when it was written. */
  const timeless = (person: Json) => {
    const { date_modified, modified_audit_id, checksum, ...meta } = person.CoreMetaData;
    return { ...person, CoreMetaData: meta };
  };

  it('"preview": true answers the same 200 and writes nothing', async () => {
    const { tag, survivor, source } = await pair('preview');
    const unchanged = await snapshot(survivor.id, source.id);
    const listed = await listedIds(`search=${tag}`);

    const preview = await merge(survivor.id, { source: source.id, preview: true }, survivor.id);
    const previewed = (await preview.json()) as Json;

    expect(preview.status).toBe(200);
    expect(preview.headers.get('etag')).toBe('"2"');
    expect(previewed.CoreMetaData.version).toBe(2);
    expect(await snapshot(survivor.id, source.id)).toEqual(unchanged);
    expect(await listedIds(`search=${tag}`)).toEqual(listed);
    expect(await candidates(`Pat Drop${tag}`)).toContain(source.id);
    // The source's email is still its own.
    const claim = await send('POST', '/Person', {
      body: { ...names({ first_name: 'Other', last_name: tag }), ...emails(`drop-${tag}@example.org`) },
      requester: 0,
    });
    expect(existingOf(await expectProblem(claim, 409, 'duplicate-email'))).toEqual([personUrl(source.id)]);

    const real = await merge(survivor.id, { source: source.id }, survivor.id);
    expect(real.status).toBe(200);
    expect(real.headers.get('etag')).toBe(preview.headers.get('etag'));
    expect(timeless((await real.json()) as Json)).toEqual(timeless(previewed));
  });

  it('a preview answers the refusal the merge would', async () => {
    const { survivor, source } = await pair('pvno');
    const unchanged = await snapshot(survivor.id, source.id);

    await expectProblem(await merge(survivor.id, { source: survivor.id, preview: true }, survivor.id), 400);
    await expectProblem(
      await merge(survivor.id, { source: source.id, preview: true }, survivor.id, { 'if-match': '"9"' }),
      412,
      'precondition-failed',
    );
    expect(await snapshot(survivor.id, source.id)).toEqual(unchanged);
  });

  it('honours If-Match on the survivor’s ETag: 412 on another, a weak or a malformed tag; 200 on the current one', async () => {
    const { survivor, source } = await pair('ifmatch');
    const unchanged = await snapshot(survivor.id, source.id);

    for (const tag of ['"7"', 'W/"1"', 'not-a-tag']) {
      const response = await merge(survivor.id, { source: source.id }, survivor.id, { 'if-match': tag });
      await expectProblem(response, 412, 'precondition-failed');
    }
    // The source's ETag is not the survivor's.
    await send('PATCH', `/Person/${source.id}`, { body: { local_reference_id: 'v2' }, requester: source.id });
    const stale = await merge(survivor.id, { source: source.id }, survivor.id, { 'if-match': '"2"' });
    await expectProblem(stale, 412, 'precondition-failed');
    expect((await read(survivor.id)).etag).toBe(nth(unchanged.persons, 0).etag);
    expect((await read(source.id)).status).toBe(200);

    const current = await merge(survivor.id, { source: source.id }, survivor.id, { 'if-match': '"1"' });
    expect(current.status).toBe(200);
    expect(current.headers.get('etag')).toBe('"2"');
  });
});

describe('refusals', () => {
  let requester: Json;
  beforeAll(async () => {
    requester = await create(names({ first_name: 'Ray', last_name: `Refuser${uniqueTag('ref')}` }));
  });

  const pair = async (label: string) => {
    const tag = uniqueTag(label);
    const survivor = await create(names({ first_name: 'Sam', last_name: `Stay${tag}` }));
    const source = await create(names({ first_name: 'Sam', last_name: `Go${tag}` }));
    return { survivor, source };
  };

  it('refuses a source equal to {id} with 400 and writes nothing', async () => {
    const { survivor } = await pair('self');
    const unchanged = await snapshot(survivor.id);

    await expectProblem(await merge(survivor.id, { source: survivor.id }, requester.id), 400);
    expect(await snapshot(survivor.id)).toEqual(unchanged);
  });

  it('answers 404 not-found when either person is unknown, and writes nothing', async () => {
    const { survivor, source } = await pair('unknown');
    const unchanged = await snapshot(survivor.id, source.id);

    await expectProblem(await merge(999_999_999, { source: source.id }, requester.id), 404, 'not-found');
    await expectProblem(await merge(survivor.id, { source: 999_999_999 }, requester.id), 404, 'not-found');
    expect(await snapshot(survivor.id, source.id)).toEqual(unchanged);
  });

  it('refuses a missing or invalid requester per 5.1, and writes nothing', async () => {
    const { survivor, source } = await pair('requester');
    const unchanged = await snapshot(survivor.id, source.id);

    await expectProblem(await merge(survivor.id, { source: source.id }, undefined), 400, 'missing-requester');
    for (const invalid of ['abc', '-1', '1.5', ' ']) {
      const response = await merge(survivor.id, { source: source.id }, invalid);
      await expectProblem(response, 400, invalid === ' ' ? undefined : 'invalid-requester');
    }
    await expectProblem(
      await merge(survivor.id, { source: source.id }, 999_999_999),
      403,
      'unknown-requester',
    );
    // 0 is self-registration on a create (5.1): a merge attributed to nobody is refused.
    const zero = await merge(survivor.id, { source: source.id }, 0);
    expect([400, 403]).toContain(zero.status);
    await expectProblem(zero, zero.status);
    expect(await snapshot(survivor.id, source.id)).toEqual(unchanged);
  });

  it('refuses a body that is not a merge request with 400 (or 415 for another media type)', async () => {
    const { survivor, source } = await pair('body');
    const unchanged = await snapshot(survivor.id, source.id);

    for (const body of [
      {},
      { source: 'abc' },
      { source: 1.5 },
      { source: source.id, preview: 'yes' },
      '{"source":',
    ]) {
      await expectProblem(await merge(survivor.id, body, requester.id), 400, 'validation-error');
    }
    const text = await send('POST', `/Person/${survivor.id}/merge`, {
      requester: requester.id,
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ source: source.id }),
    });
    await expectProblem(text, 415, 'unsupported-media-type');
    expect(await snapshot(survivor.id, source.id)).toEqual(unchanged);
  });

  it('refuses a result over a set’s limit of 5.2 with 400 and writes nothing; exactly at the limit is 200', async () => {
    const tag = uniqueTag('limit');
    const freeform = (label: string, count: number) =>
      Array.from({ length: count }, (_, index) => ({ freeform_name: `${label} ${index} ${tag}` }));
    const survivor = await create({ Names: { '@set': freeform('Own', 15) } });
    const over = await create({ Names: { '@set': freeform('Extra', 6) } });
    const unchanged = await snapshot(survivor.id, over.id);

    await expectProblem(await merge(survivor.id, { source: over.id }, requester.id), 400);
    expect(await snapshot(survivor.id, over.id)).toEqual(unchanged);

    // Six Names again, but one has the folded parts of one of the survivor's: dropped, 20 in all.
    const at = await create({
      Names: { '@set': [...freeform('More', 5), { freeform_name: `OWN 3 ${tag.toUpperCase()}` }] },
    });
    const fits = await merge(survivor.id, { source: at.id }, requester.id);
    expect(fits.status).toBe(200);
    expect(itemsOf(((await fits.json()) as Json).Names)).toHaveLength(20);
  });

  it('follows a chain A→B→C: GET A is 301 to the live end, a PATCH of A or a merge into B names a survivor', async () => {
    const tag = uniqueTag('chain');
    const [a, b, c, x] = (await Promise.all(
      ['Alpha', 'Bravo', 'Charlie', 'Xray'].map((first) =>
        create(names({ first_name: first, last_name: tag })),
      ),
    )) as [Json, Json, Json, Json];
    expect((await merge(b.id, { source: a.id }, requester.id)).status).toBe(200);
    expect((await merge(c.id, { source: b.id }, requester.id)).status).toBe(200);

    const gotA = await read(a.id);
    expect(gotA.status).toBe(301);
    expect(gotA.location).toBe(personUrl(c.id));
    // "superceded_by": <survivor>: the survivor of A's own merge, or the live end
    expect([b.id, c.id]).toContain(gotA.body.superceded_by);
    expect(gotA.body.CoreMetaData).toMatchObject({ live_status: 0, superceded_by: gotA.body.superceded_by });
    const gotB = await read(b.id);
    expect(gotB.status).toBe(301);
    expect(gotB.location).toBe(personUrl(c.id));

    const patchA = await send('PATCH', `/Person/${a.id}`, {
      body: { local_reference_id: 'x' },
      requester: x.id,
    });
    expect([personUrl(b.id), personUrl(c.id)]).toEqual(
      expect.arrayContaining(existingOf(await expectProblem(patchA, 409, 'merged'))),
    );

    // B, the survivor of A, is itself merged: a merge into it is 409 naming its survivor.
    const intoB = await merge(b.id, { source: x.id }, requester.id);
    expect(existingOf(await expectProblem(intoB, 409, 'merged'))).toEqual([personUrl(c.id)]);

    // A, merged into B which is merged into C, "again" into C: either the retry of a merge that ended in
    // C (200, the survivor) or a merge into another survivor than A's own (409 merged); nothing written.
    const unchanged = await snapshot(a.id, b.id, c.id);
    const retry = await merge(c.id, { source: a.id }, requester.id);
    if (retry.status === 200) expect(await retry.json()).toEqual(nth(unchanged.persons, 2).body);
    else await expectProblem(retry, 409, 'merged');
    expect(await snapshot(a.id, b.id, c.id)).toEqual(unchanged);

    // A write naming A as requester acts as a live person: the end of the chain.
    const byA = await create(names({ first_name: 'Delta', last_name: tag }), a.id);
    expect(byA.CoreMetaData.created_by).toBe(c.id);
    expect((await listedIds(`last_name=${tag}`)).sort((p, q) => p - q)).toEqual(
      [c.id, x.id, byA.id].sort((p, q) => p - q),
    );
  });
});

describe('name claims', () => {
  it('releases an email-less source’s name claim: the name is free again', async () => {
    const tag = uniqueTag('solo');
    const survivor = await create({
      ...names({ first_name: 'Has', last_name: `Mail${tag}` }),
      ...emails(`has-${tag}@example.org`),
    });
    const source = await create(names({ first_name: 'Solo', last_name: `Name${tag}` }));
    const clash = await send('POST', '/Person', {
      body: names({ first_name: 'SOLO', last_name: `name${tag}` }),
      requester: 0,
    });
    expect(existingOf(await expectProblem(clash, 409, 'duplicate-name'))).toEqual([personUrl(source.id)]);

    expect((await merge(survivor.id, { source: source.id }, survivor.id)).status).toBe(200);

    const again = await create(names({ first_name: 'Solo', last_name: `Name${tag}` }));
    expect(again.id).not.toBe(source.id);
    expect(again.fullname).toBe(`Solo Name${tag}`);
  });

  it('keeps an email-less survivor’s own name claim when an email-less source merges into it', async () => {
    const tag = uniqueTag('both');
    const survivor = await create(names({ first_name: 'Kept', last_name: `Claim${tag}` }));
    const source = await create(names({ first_name: 'Freed', last_name: `Claim${tag}` }));

    expect((await merge(survivor.id, { source: source.id }, survivor.id)).status).toBe(200);

    expect((await create(names({ first_name: 'Freed', last_name: `Claim${tag}` }))).id).not.toBe(source.id);
    const kept = await send('POST', '/Person', {
      body: names({ first_name: 'Kept', last_name: `Claim${tag}` }),
      requester: 0,
    });
    expect(existingOf(await expectProblem(kept, 409, 'duplicate-name'))).toEqual([personUrl(survivor.id)]);
  });
});

describe('an email-less survivor', () => {
  it('takes the source’s emails as non-primary items and its name is then free to share (5.5)', async () => {
    const tag = uniqueTag('nomail');
    const survivor = await create(names({ first_name: 'No', last_name: `Mail${tag}` }));
    const source = await create({
      ...names({ first_name: 'With', last_name: `Mail${tag}` }),
      ...emails(`with-${tag}@example.org`),
    });

    const answer = await merge(survivor.id, { source: source.id }, survivor.id);
    const merged = (await answer.json()) as Json;

    expect(answer.status).toBe(200);
    const moved = itemsOf(merged.Emails);
    expect(moved).toEqual([
      expect.objectContaining({ email: `with-${tag}@example.org`, person_fk: survivor.id, primary: false }),
    ]);
    // section 3: `email` is the primary email, or null
    expect(merged.email).toBe(moved.find(({ primary }) => primary === true)?.email ?? null);
    const claim = await send('POST', '/Person', {
      body: { ...names({ first_name: 'x', last_name: tag }), ...emails(`with-${tag}@example.org`) },
      requester: 0,
    });
    expect(existingOf(await expectProblem(claim, 409, 'duplicate-email'))).toEqual([personUrl(survivor.id)]);
    // It now has an email no one else has: another email-less person may take its name.
    expect((await create(names({ first_name: 'No', last_name: `Mail${tag}` }))).id).not.toBe(survivor.id);
  });
});

describe('Idempotency-Key (5.6) on a merge', () => {
  it('answers a retry with the first answer and a reused key with another body 422', async () => {
    const tag = uniqueTag('idem');
    const survivor = await create(names({ first_name: 'Idem', last_name: `Keep${tag}` }));
    const source = await create(names({ first_name: 'Idem', last_name: `Drop${tag}` }));
    const key = { 'idempotency-key': `merge-${tag}` };

    const first = await merge(survivor.id, { source: source.id }, survivor.id, key);
    const firstBody = (await first.json()) as Json;
    const unchanged = await snapshot(survivor.id, source.id);
    const retry = await merge(survivor.id, { source: source.id }, survivor.id, key);

    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await retry.json()).toEqual(firstBody);
    await expectProblem(
      await merge(survivor.id, { source: source.id, preview: true }, survivor.id, key),
      422,
      'idempotency-key-reused',
    );
    expect(await snapshot(survivor.id, source.id)).toEqual(unchanged);
  });
});

describe('concurrency', () => {
  it('serializes two merges of the same persons: opposite directions, or one source into two survivors', async () => {
    for (let round = 0; round < 3; round++) {
      const tag = uniqueTag('duel');
      const [a, b, c] = (await Promise.all(
        ['Ada', 'Bea', 'Cid'].map((first) =>
          create({
            ...names({ first_name: first, last_name: tag }),
            ...emails(`${first}-${tag}@example.org`),
          }),
        ),
      )) as [Json, Json, Json];
      const opposite = await Promise.all([
        merge(a.id, { source: b.id }, c.id),
        merge(b.id, { source: a.id }, c.id),
      ]);
      expect(opposite.map(({ status }) => status).sort()).toEqual([200, 409]);
      const [won, lost] = opposite[0].status === 200 ? [a, b] : [b, a];
      expect((await read(won.id)).status).toBe(200);
      expect((await read(lost.id)).location).toBe(personUrl(won.id));
      await expectProblem(opposite.find(({ status }) => status === 409) as Response, 409, 'merged');

      const d = await create({
        ...names({ first_name: 'Dee', last_name: tag }),
        ...emails(`dee-${tag}@example.org`),
      });
      const twoWays = await Promise.all([
        merge(won.id, { source: d.id }, c.id),
        merge(c.id, { source: d.id }, c.id),
      ]);
      expect(twoWays.map(({ status }) => status).sort()).toEqual([200, 409]);
      const into = twoWays[0].status === 200 ? won : c;
      expect((await read(d.id)).location).toBe(personUrl(into.id));
      const claim = await send('POST', '/Person', {
        body: { ...names({ first_name: 'Claim', last_name: tag }), ...emails(`dee-${tag}@example.org`) },
        requester: 0,
      });
      expect(existingOf(await expectProblem(claim, 409, 'duplicate-email'))).toEqual([personUrl(into.id)]);
    }
  });

  it('serializes a merge with PATCHes of either person: every PATCH that answered 200 is in the survivor', async () => {
    for (let round = 0; round < 3; round++) {
      const tag = uniqueTag('race');
      const survivor = await create({
        ...names({ first_name: 'Race', last_name: `Keep${tag}` }),
        ...emails(`keep-${tag}@example.org`),
      });
      const source = await create({
        ...names({ first_name: 'Race', last_name: `Gone${tag}` }),
        ...emails(`gone-${tag}@example.org`),
      });
      const onSource = `late-source-${tag}@example.org`;
      const onSurvivor = `late-survivor-${tag}@example.org`;
      const [merging, patchSource, patchSurvivor] = await Promise.all([
        merge(survivor.id, { source: source.id }, survivor.id),
        send('PATCH', `/Person/${source.id}`, {
          body: { Emails: { '@set': [{ email: onSource }] } },
          requester: source.id,
        }),
        send('PATCH', `/Person/${survivor.id}`, {
          body: { Emails: { '@set': [{ email: onSurvivor }] } },
          requester: survivor.id,
        }),
      ]);
      expect(merging.status).toBe(200);
      expect([200, 409]).toContain(patchSource.status);
      expect(patchSurvivor.status).toBe(200);

      const now = (await read(survivor.id)).body;
      const addresses = itemsOf(now.Emails).map(({ email }) => email);
      expect(addresses).toContain(onSurvivor);
      expect(addresses).toContain(`gone-${tag}@example.org`);
      if (patchSource.status === 200) expect(addresses).toContain(onSource);
      else await expectProblem(patchSource, 409, 'merged');
      // No claim is left pointing at the merged person.
      for (const address of [`gone-${tag}@example.org`, ...(patchSource.status === 200 ? [onSource] : [])]) {
        const claim = await send('POST', '/Person', {
          body: { ...names({ first_name: 'Claim', last_name: tag }), ...emails(address) },
          requester: 0,
        });
        expect(existingOf(await expectProblem(claim, 409, 'duplicate-email'))).toEqual([
          personUrl(survivor.id),
        ]);
      }
    }
  });
});
