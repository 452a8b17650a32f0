/**
 * ChangeHistory against DynamoDB Local (API.md 11.5): entries of every write, what a read of one
 * object or of the whole history answers, and the 400 KB item limit met by a person near the body limit.
 */
import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildHandler as buildGetChange } from '../../functions/get-change-history';
import { buildHandler as buildListChanges } from '../../functions/list-change-history';
import { changeHistory } from '../../lib/db/history/change-history';
import { personRepository } from '../../lib/db/person-repository';
import { vocabularyReader } from '../../lib/db/vocabulary/vocabulary-repository';
import { LIMITS } from '../../lib/domain/schemas';
import { type Json, personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { httpEvent, invoke } from '../support/events';
import { snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

interface Entry extends Json {
  id: number;
  endpoint: string;
  object_id: number;
  type: string;
  timestamp: string;
  previous_object: Json | null;
  current_object: Json | null;
}
interface List {
  Pagination: { count: number; limit: number; offset: number };
  '@set': Entry[];
}

const history = () => changeHistory(suite.table);
const list = (query: Record<string, string>) =>
  invoke<List>(
    buildListChanges({ history: history() }),
    httpEvent({ method: 'GET', route: '/ChangeHistory', query }),
  );
const entry = (id: number) =>
  invoke<Entry>(
    buildGetChange({ history: history() }),
    httpEvent({
      method: 'GET',
      route: '/ChangeHistory/{id}',
      path: `/ChangeHistory/${id}`,
      pathParameters: { id: String(id) },
    }),
  );

/** Random CJK: three bytes a character, little for gzip to find. The worst case for a stored object. */
const noise = (length: number) =>
  String.fromCodePoint(...Array.from({ length }, () => 0x4e00 + randomInt(0x5000)));

/** A person near the body limit: most sets full, every string at its limit of characters. */
const largestBody = () => {
  const text = () => noise(LIMITS.text);
  const many = (count: number, make: (n: number) => Json) => ({
    '@set': Array.from({ length: count }, (_, n) => make(n)),
  });
  return {
    Names: many(LIMITS.sets.Names, () => ({
      first_name: text(),
      last_name: text(),
      middle_initial: text(),
      freeform_name: text(),
    })),
    Emails: many(10, (n) => ({ email: `${uniqueTag('big')}.${n}@example.org` })),
    PhoneNumbers: many(LIMITS.sets.PhoneNumbers, () => ({ phone_number: text() })),
    PersonRoles: many(LIMITS.sets.PersonRoles, () => ({ name: text() })),
    PostalAddresses: many(LIMITS.sets.PostalAddresses, () => ({
      address1: text(),
      address2: text(),
      city: text(),
      state_territory_province: text(),
      postal_code: text(),
      country: text(),
      country_code: text(),
    })),
    PersonMemberships: { PersonTeams: many(LIMITS.sets.PersonTeams, () => ({ name: text() })) },
  };
};

describe('ChangeHistory entries of a person', () => {
  it('lists one object newest first, windowed by version, with the count of its versions', async () => {
    const { body: person } = await suite.api.post(personBody('Hist', uniqueTag('One')));
    for (const ref of ['a', 'b', 'c']) await suite.api.patch(person.id, { local_reference_id: ref });
    const { body } = await list({
      endpoint: 'Person',
      object_id: String(person.id),
      limit: '2',
      offset: '1',
    });
    expect(body.Pagination).toMatchObject({ count: 4, limit: 2, offset: 1 });
    expect(body['@set'].map((change) => change.current_object?.local_reference_id)).toEqual(['b', 'a']);
    expect(body['@set'][1]?.previous_object?.local_reference_id).toBeNull();
    const oldest = await list({ object_id: String(person.id), sort_dir: '1', limit: '1' });
    expect(oldest.body['@set'].map(({ type, previous_object }) => [type, previous_object])).toEqual([
      ['POST', null],
    ]);
  });
});

describe('the whole ChangeHistory', () => {
  it('pages newest first through every shard without gaps or repeats, and counts every entry', async () => {
    const created: number[] = [];
    for (let n = 0; n < 12; n++)
      created.push((await suite.api.post(personBody('Shard', uniqueTag('S')))).body.id);
    const all = await list({ endpoint: 'Person', limit: '100' });
    const seen: Entry[] = [];
    for (let offset = 0; offset < all.body.Pagination.count; offset += 7) {
      const { body } = await list({ endpoint: 'Person', limit: '7', offset: String(offset) });
      seen.push(...body['@set']);
    }
    expect(seen.map(({ id }) => id)).toEqual(all.body['@set'].map(({ id }) => id));
    expect(new Set(seen.map(({ id }) => id)).size).toBe(all.body.Pagination.count);
    const order = seen.map(({ timestamp, id }) => `${timestamp}#${String(id).padStart(16, '0')}`);
    expect(order).toEqual([...order].sort().reverse());
    const creates = seen.filter(({ type, object_id }) => type === 'POST' && created.includes(object_id));
    expect(creates.map(({ object_id }) => object_id)).toEqual([...created].reverse());
  });

  it('lists a vocabulary by endpoint, and finds an object by object_id alone', async () => {
    const { body } = await list({ endpoint: 'NameSuffix', limit: '100' });
    expect(body['@set'].length).toBe(body.Pagination.count);
    expect(new Set(body['@set'].map(({ endpoint }) => endpoint))).toEqual(new Set(['NameSuffix']));
    const byId = await list({ object_id: '21' });
    expect(byId.body['@set'].map(({ endpoint, object_id, type }) => [endpoint, object_id, type])).toEqual([
      ['NamePrefix', 21, 'POST'],
    ]);
  });

  it.each([
    [{ limit: '101' }, '/limit'],
    [{ endpoint: 'Organization' }, '/endpoint'],
    [{ object_id: '0' }, '/object_id'],
    [{ limit: '5', page: '1' }, '/page'],
    [{ person_id: '5' }, ''],
  ])('refuses the query %o with 400', async (query, path) => {
    const { status, body } = await list(query as Record<string, string>);
    expect(status).toBe(400);
    expect(JSON.stringify(body)).toContain(path ? `"path":"${path}"` : '"status":400');
  });

  it('answers 404 for an entry id that names none', async () => {
    expect((await entry(987_654_321)).status).toBe(404);
  });
});

describe('vocabulary foreign keys checked inside the write (API.md 11.4)', () => {
  it('refuses with 400 and stores nothing when the entry is gone by the time the transaction runs', async () => {
    // A reader that vouches for an entry the table does not hold: only the ConditionCheck can catch it.
    const reader = vocabularyReader(suite.table);
    const stale = personApi(
      personRepository({
        ...suite.table,
        vocabulary: {
          ...reader,
          abbreviations: async () => ({ NamePrefix: new Map([[777_777, 'Gone.']]), NameSuffix: new Map() }),
        },
      }),
    );
    const before = await snapshot(suite.table);
    const { status, body } = await stale.post({
      Names: { '@set': [{ first_name: 'Stale', last_name: uniqueTag('Ref'), name_prefix_fk: 777_777 }] },
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ errors: [{ path: '/Names/@set/0/name_prefix_fk' }] });
    expect(await snapshot(suite.table)).toEqual(before);
  });
});

// Last in the file: the person's search postings (some 15 000: every character of 60 random names of
// 200 characters) make the table slow to scan for the snapshots the tests above take.
describe('ChangeHistory of the largest person', () => {
  it('stores an entry for a person near the body limit, and answers it with the object before and after', async () => {
    const body = largestBody();
    expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(0.8 * LIMITS.bodyBytes);
    const created = await suite.api.post(body);
    expect(created.status).toBe(201);
    const [firstEmail] = created.body.Emails['@set'] as Json[];
    const patched = await suite.api.patch(created.body.id, {
      Emails: { '@set': [{ id: firstEmail?.id, email: uniqueEmail('changed') }] },
    });
    expect(patched.status).toBe(200);

    const change = await entry(patched.body.CoreMetaData.modified_audit_id as number);
    expect(change.status).toBe(200);
    expect(change.body).toMatchObject({ endpoint: 'Person', object_id: created.body.id, type: 'PATCH' });
    expect(change.body.previous_object).toEqual(created.body);
    expect(change.body.current_object).toEqual((await suite.api.get(created.body.id)).body);
  }, 120_000);
});
