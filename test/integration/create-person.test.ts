import { describe, expect, it } from 'vitest';
import { PersonOut } from '../../lib/domain/schemas';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { EXAMPLE_OBJECTS } from '../support/fixtures';
import { snapshot } from '../support/invariants';
import {
  answeredEmail,
  answeredName,
  JOHN_SMITH,
  JOHN_SMITH_NAME,
  NO_SOCIAL_ADDRESSES,
} from '../support/persons';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

const withName = (name: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  Names: { '@set': [name] },
  ...extra,
});

/** Sends a body that must be refused and checks that the table is unchanged afterwards. */
const refusedPost = async (body: unknown, options: Parameters<typeof suite.api.post>[1] = {}) => {
  const before = await snapshot(suite.table);
  const response = await suite.api.post(body, options);
  expect(await snapshot(suite.table)).toEqual(before);
  return response;
};

describe('POST /Person', () => {
  it('returns 201 with the full Person, Location and a strong ETag', async () => {
    const email = uniqueEmail('jsmith');
    const response = await suite.api.post({
      ...personBody(JOHN_SMITH.first_name, JOHN_SMITH.last_name, email),
      local_reference_id: JOHN_SMITH.local_reference_id,
    });

    expect(response.status).toBe(201);
    const person = PersonOut.parse(response.body);
    expect(response.headers.location).toBe(`https://api.example.test/Person/${person.id}`);
    expect(response.headers.etag).toBe('"1"');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(person).toMatchObject({
      '@context': 'https://api.example.test/context.jsonld',
      '@type': 'Person',
      '@id': `https://api.example.test/Person/${person.id}`,
      fullname: JOHN_SMITH.fullname,
      email,
      local_reference_id: JOHN_SMITH.local_reference_id,
      SocialAddresses: NO_SOCIAL_ADDRESSES,
    });
    expect(person.Names['@set']).toEqual([
      answeredName(person.id, { ...JOHN_SMITH_NAME, id: expect.any(Number) }),
    ]);
    expect(person.Emails['@set']).toEqual([answeredEmail(person.id, { id: expect.any(Number), email })]);
  });

  it('fills every empty set with exactly one example object', async () => {
    const { body } = await suite.api.post(personBody('Empty', uniqueTag('Sets')));
    expect(body.Emails['@set']).toEqual([EXAMPLE_OBJECTS.Emails]);
    expect(body.PhoneNumbers['@set']).toEqual([EXAMPLE_OBJECTS.PhoneNumbers]);
    expect(body.PersonRoles['@set']).toHaveLength(1);
    expect(body.PostalAddresses['@set']).toHaveLength(1);
    expect(body.email).toBeNull();
  });

  it('gives the person and every sub-object its own positive integer id', async () => {
    const { body } = await suite.api.post({
      ...personBody('Ida', uniqueTag('Ids'), uniqueEmail(), uniqueEmail()),
      PhoneNumbers: { '@set': [{ phone_number: '+1 555 0100' }] },
    });
    const ids = [body.id, ...body.Names['@set'], ...body.Emails['@set'], ...body.PhoneNumbers['@set']].map(
      (item) => (typeof item === 'number' ? item : (item as { id: number }).id),
    );
    expect(ids.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('records the audit: created_by is the requester, modified_by null, version 1', async () => {
    const requester = await suite.api.post(personBody('Req', uniqueTag('Uester'), uniqueEmail()));
    const before = Date.now();
    const { body } = await suite.api.post(personBody('Aud', uniqueTag('It'), uniqueEmail()), {
      requester: requester.body.id,
    });
    expect(body.CoreMetaData).toMatchObject({
      '@type': 'CoreMetaData',
      created_by: requester.body.id,
      modified_by: null,
      version: 1,
    });
    expect(body.CoreMetaData.date_created).toBe(body.CoreMetaData.date_modified);
    expect(Date.parse(body.CoreMetaData.date_created)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('lets a person register itself with requester 0: created_by is its own id', async () => {
    const { status, body } = await suite.api.post(personBody('Self', uniqueTag('Reg'), uniqueEmail()), {
      requester: 0,
    });
    expect(status).toBe(201);
    expect(body.CoreMetaData.created_by).toBe(body.id);
  });

  it('stores local_reference_id on the root and every sub-object, so GET returns them', async () => {
    const { body } = await suite.api.post({
      local_reference_id: 'root-ref',
      Names: { '@set': [{ first_name: 'Lou', last_name: uniqueTag('Ref'), local_reference_id: 'name-1' }] },
      Emails: { '@set': [{ email: uniqueEmail(), local_reference_id: 'email-1' }] },
    });
    const got = await suite.api.get(body.id);
    expect(got.body).toEqual(body);
    expect(got.body.local_reference_id).toBe('root-ref');
    expect(got.body.Names['@set'][0]).toMatchObject({ local_reference_id: 'name-1' });
    expect(got.body.Emails['@set'][0]).toMatchObject({ local_reference_id: 'email-1' });
  });

  it('derives fullname from first, middle initial and last name', async () => {
    const last = uniqueTag('Doe');
    const { body } = await suite.api.post(
      withName({ first_name: 'Jane', middle_initial: 'Q', last_name: last }),
    );
    expect(body.fullname).toBe(`Jane Q ${last}`);
  });

  it('derives fullname from freeform_name when the Name has no structured parts', async () => {
    const name = `The ${uniqueTag('Artist')}`;
    const { status, body } = await suite.api.post(withName({ freeform_name: name }));
    expect(status).toBe(201);
    expect(body.fullname).toBe(name);
  });

  it('makes the first Name and the first Email primary when none is marked', async () => {
    const [first, second] = [uniqueEmail(), uniqueEmail()];
    const { body } = await suite.api.post({
      Names: {
        '@set': [
          { first_name: 'First', last_name: 'Name' },
          { first_name: 'Second', last_name: 'Name' },
        ],
      },
      Emails: { '@set': [{ email: first }, { email: second }] },
    });
    expect(body.Names['@set'].map((name) => 'primary' in name && name.primary)).toEqual([true, false]);
    expect(body.fullname).toBe('First Name');
    expect(body.email).toBe(first);
  });

  it('takes fullname and email from the items marked primary', async () => {
    const second = uniqueEmail();
    const { body } = await suite.api.post({
      Names: {
        '@set': [
          { first_name: 'First', last_name: 'Name' },
          { first_name: 'Chosen', last_name: 'Name', primary: true },
        ],
      },
      Emails: { '@set': [{ email: uniqueEmail() }, { email: second, primary: true }] },
    });
    expect(body.fullname).toBe('Chosen Name');
    expect(body.email).toBe(second);
  });

  it('ignores id and person_fk sent on POST', async () => {
    const { status, body } = await suite.api.post({
      id: 999_999,
      Names: { '@set': [{ id: 999_998, person_fk: 5, first_name: 'Ig', last_name: uniqueTag('Nored') }] },
    });
    expect(status).toBe(201);
    expect(body.id).not.toBe(999_999);
    expect(body.Names['@set'][0]).toMatchObject({ person_fk: body.id });
    expect((body.Names['@set'][0] as { id: number }).id).not.toBe(999_998);
  });

  it('ignores example objects (every property null)', async () => {
    const { status, body } = await suite.api.post({
      ...personBody('Ex', uniqueTag('Ample')),
      Emails: {
        '@set': [
          {
            '@type': 'Email',
            id: null,
            email: null,
            primary: null,
            person_fk: null,
            local_reference_id: null,
          },
        ],
      },
    });
    expect(status).toBe(201);
    expect(body.email).toBeNull();
    expect(body.Emails['@set'][0]).toMatchObject({ id: null, email: null });
  });

  it('accepts @context and @id and ignores them', async () => {
    const { status } = await suite.api.post({
      '@context': 'https://example.org/other.jsonld',
      '@id': 'https://example.org/Person/1',
      ...personBody('Json', uniqueTag('Ld')),
    });
    expect(status).toBe(201);
  });

  it('keeps name_prefix_fk and name_suffix_fk that name seeded Prefix and Suffix ids', async () => {
    const { status, body } = await suite.api.post(
      withName({ first_name: 'Pre', last_name: uniqueTag('Fix'), name_prefix_fk: 21, name_suffix_fk: 19 }),
    );
    expect(status).toBe(201);
    expect(body.Names['@set'][0]).toMatchObject({ name_prefix_fk: 21, name_suffix_fk: 19 });
    expect(body.fullname).toMatch(/^Dr\. Pre .* Esquire$/);
  });

  it('answers in application/ld+json when Accept prefers it, and accepts an ld+json body', async () => {
    const response = await suite.api.post(personBody('Ld', uniqueTag('Json')), {
      headers: { accept: 'application/ld+json', 'content-type': 'application/ld+json' },
    });
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe('application/ld+json; charset=utf-8');
  });
});

describe('POST /Person refusals change nothing', () => {
  it.each([
    ['no Names at all', { Emails: { '@set': [{ email: 'nobody@example.org' }] } }, '/Names'],
    ['only an example Name', { Names: { '@set': [{ first_name: null, last_name: null }] } }, '/Names'],
    ['a Name with only first_name', withName({ first_name: 'Only' }), '/Names/@set/0'],
    ['a Name with only last_name', withName({ last_name: 'Only' }), '/Names/@set/0'],
    ['a Name with blank parts', withName({ first_name: ' ', last_name: 'Blank' }), '/Names/@set/0'],
    ['an unknown root property', { ...personBody('A', 'B'), nickname: 'x' }, '/nickname'],
    [
      'an unknown item property',
      withName({ first_name: 'A', last_name: 'B', nickname: 'x' }),
      '/Names/@set/0/nickname',
    ],
    [
      'local_reference_id on a container',
      { ...personBody('A', 'B'), Emails: { local_reference_id: 'x', '@set': [] } },
      '/Emails/local_reference_id',
    ],
    [
      'local_reference_id on SocialAddresses',
      { ...personBody('A', 'B'), SocialAddresses: { local_reference_id: 'x' } },
      '/SocialAddresses/local_reference_id',
    ],
    [
      'local_reference_id on CoreMetaData',
      { ...personBody('A', 'B'), CoreMetaData: { local_reference_id: 'x' } },
      '/CoreMetaData/local_reference_id',
    ],
    ['a wrong @type', { ...personBody('A', 'B'), '@type': 'Organization' }, '/@type'],
    ['a wrong type of value', withName({ first_name: 7, last_name: 'B' }), '/Names/@set/0/first_name'],
    [
      'two primary Names',
      {
        Names: {
          '@set': [
            { first_name: 'A', last_name: 'B', primary: true },
            { first_name: 'C', last_name: 'D', primary: true },
          ],
        },
      },
      '/Names/@set/1/primary',
    ],
    [
      'an unknown Prefix',
      withName({ first_name: 'A', last_name: 'B', name_prefix_fk: 999 }),
      '/Names/@set/0/name_prefix_fk',
    ],
    [
      'an unknown Suffix',
      withName({ first_name: 'A', last_name: 'B', name_suffix_fk: 999 }),
      '/Names/@set/0/name_suffix_fk',
    ],
    [
      'an invalid email',
      { ...personBody('A', 'B'), Emails: { '@set': [{ email: 'not an email' }] } },
      '/Emails/@set/0/email',
    ],
    [
      'an Email without an address',
      { ...personBody('A', 'B'), Emails: { '@set': [{ primary: true }] } },
      '/Emails/@set/0',
    ],
    [
      'a string over 200 characters',
      withName({ first_name: 'x'.repeat(201), last_name: 'B' }),
      '/Names/@set/0/first_name',
    ],
    [
      'an email over 254 characters',
      {
        ...personBody('A', 'B'),
        Emails: { '@set': [{ email: `${'x'.repeat(64)}@${'d'.repeat(190)}.org` }] },
      },
      '/Emails/@set/0/email',
    ],
    [
      'a local_reference_id over 128 characters',
      { ...personBody('A', 'B'), local_reference_id: 'r'.repeat(129) },
      '/local_reference_id',
    ],
    [
      '21 Names',
      { Names: { '@set': Array.from({ length: 21 }, (_, i) => ({ first_name: `F${i}`, last_name: 'L' })) } },
      '/Names/@set',
    ],
    [
      '51 Emails',
      {
        ...personBody('A', 'B'),
        Emails: { '@set': Array.from({ length: 51 }, (_, i) => ({ email: `e${i}@example.org` })) },
      },
      '/Emails/@set',
    ],
    [
      'an id beyond 2^53',
      withName({ first_name: 'A', last_name: 'B', name_prefix_fk: 2 ** 53 }),
      '/Names/@set/0/name_prefix_fk',
    ],
    [
      'a __proto__ key',
      JSON.parse('{"Names":{"@set":[{"first_name":"A","last_name":"B"}]},"__proto__":{"polluted":true}}'),
      '/__proto__',
    ],
  ])('400 validation-error for %s', async (_, body, path) => {
    const { status, headers, body: problem } = await refusedPost(body);
    expect(status).toBe(400);
    expect(headers['content-type']).toBe('application/problem+json');
    expect(problem).toMatchObject({ type: '/problems/validation-error', status: 400, instance: '/Person' });
    expect((problem.errors as { path: string }[]).map((error) => error.path)).toContain(path);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('400 validation-error for a body that is not JSON', async () => {
    const { status, body } = await refusedPost('{"Names": ', {
      headers: { 'content-type': 'application/json' },
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ type: '/problems/validation-error' });
  });

  it('400 validation-error for JSON that is not an object', async () => {
    const { status } = await refusedPost('[1,2,3]', { headers: { 'content-type': 'application/json' } });
    expect(status).toBe(400);
  });

  it('415 for a body that is not JSON by its content type', async () => {
    const { status, body } = await refusedPost(JSON.stringify(personBody('A', 'B')), {
      headers: { 'content-type': 'text/plain' },
    });
    expect(status).toBe(415);
    expect(body).toMatchObject({ type: '/problems/unsupported-media-type', status: 415 });
  });

  it('413 for a body over 256 KiB', async () => {
    const { status, body } = await refusedPost({ ...personBody('A', 'B'), padding: 'x'.repeat(256 * 1024) });
    expect(status).toBe(413);
    expect(body).toMatchObject({ type: '/problems/payload-too-large' });
  });

  it.each([
    ['missing', null, 'missing-requester'],
    ['not a number', 'abc', 'invalid-requester'],
    ['negative', '-1', 'invalid-requester'],
    ['fractional', '1.5', 'invalid-requester'],
  ])('400 when x-requester-person is %s', async (_, requester, type) => {
    const response = await refusedPost(personBody('Req', uniqueTag('Bad')), {
      requester: requester as string,
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ type: `/problems/${type}` });
  });

  it('403 unknown-requester when the requester is not a person', async () => {
    const { status, body } = await refusedPost(personBody('Who', uniqueTag('Asks'), uniqueEmail()), {
      requester: 987_654,
    });
    expect(status).toBe(403);
    expect(body).toMatchObject({ type: '/problems/unknown-requester', status: 403 });
  });
});

describe('POST /Person uniqueness', () => {
  it('409 duplicate-email for an address another person holds, compared trimmed and case-insensitively', async () => {
    const email = uniqueEmail('taken');
    const holder = await suite.api.post(personBody('First', 'Holder', email));
    const { status, body } = await refusedPost(
      personBody('Second', 'Comer', uniqueEmail(), `  ${email.toUpperCase()} `),
    );
    expect(status).toBe(409);
    expect(body).toMatchObject({
      type: '/problems/duplicate-email',
      status: 409,
      errors: [
        { path: '/Emails/@set/1/email', existing: `https://api.example.test/Person/${holder.body.id}` },
      ],
    });
  });

  it('409 duplicate-email for the same address twice in one body, without `existing`', async () => {
    const email = uniqueEmail('twice');
    const { status, body } = await refusedPost(personBody('Two', 'Times', email, email.toUpperCase()));
    expect(status).toBe(409);
    expect(body.errors).toEqual([{ path: '/Emails/@set/1/email', message: expect.any(String) }]);
  });

  it('409 duplicate-name for a second email-less person with the same folded name', async () => {
    const last = uniqueTag('Smíth');
    const holder = await suite.api.post(personBody('José', last));
    const { status, body } = await refusedPost(personBody('  JOSE ', last.toUpperCase().replace('Í', 'I')));
    expect(status).toBe(409);
    expect(body).toMatchObject({
      type: '/problems/duplicate-name',
      errors: [{ path: '/Names/@set/0', existing: `https://api.example.test/Person/${holder.body.id}` }],
    });
  });

  it('lets a person with an email no one else has share a name', async () => {
    const last = uniqueTag('Shared');
    expect((await suite.api.post(personBody('Same', last))).status).toBe(201);
    expect((await suite.api.post(personBody('Same', last, uniqueEmail()))).status).toBe(201);
    expect((await suite.api.post(personBody('Same', last, uniqueEmail()))).status).toBe(201);
  });

  it('lets an email-less person share the name of a person who has an email', async () => {
    const last = uniqueTag('Mixed');
    expect((await suite.api.post(personBody('Same', last, uniqueEmail()))).status).toBe(201);
    expect((await suite.api.post(personBody('Same', last))).status).toBe(201);
  });
});
