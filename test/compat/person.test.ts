/**
 * GRC's Person documents replayed against the real local server: `person-endpoints.md` (POST, PATCH,
 * unordered sets, local_reference_id) and `managing-persons.md` (fullname, alias names), read back as
 * API.md 3, 5.2, 5.3 and 11 state it. Ids in GRC's examples are theirs; the fixtures are templates the
 * tests fill with the ids this server answered.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueTag } from '../support/api';
import { serverSuite } from '../support/server-suite';
import {
  type Api,
  apiOf,
  checksumDigits,
  coreMetaData,
  countOf,
  EXAMPLES,
  emailItem,
  expectProblem,
  expectSamePerson,
  expectSetOf,
  fixture,
  fullPerson,
  grcChecksum,
  item,
  type Json,
  MEMBERSHIP_SETS,
  ordered,
  tombstone,
  verhoeffValid,
} from './support';

const server = serverSuite({ env: { ENRICHMENT: 'off' } }, 120_000);
let api: Api;

beforeAll(() => {
  api = apiOf(server.url);
});

/** POSTs GRC's Minimum Required Object as a self-registration (`x-requester-person: 0`). */
const register = async (tag = uniqueTag('grc')) => {
  const reply = await api.post('/Person', fixture('person-post-minimum', { tag }), { requester: 0 });
  expect(reply.status).toBe(201);
  const person = reply.body;
  return {
    tag,
    person,
    email: `jsmith.${tag}@no-reply.org`,
    nameId: person.Names['@set'][0].id as number,
    emailId: person.Emails['@set'][0].id as number,
  };
};

/** A registered person after GRC's "Adding a Sub-Object" PATCH: the three emails the later examples name. */
const withThreeMoreEmails = async () => {
  const registered = await register();
  const { tag, person } = registered;
  const reply = await api.patch(`/Person/${person.id}`, fixture('person-patch-emails-add', { tag }), {
    requester: person.id,
  });
  expect(reply.status).toBe(200);
  const emails = {
    personal: `joe.${tag}@personal-noreply.com`,
    compliance: `jsmith.${tag}@compliance-noreply.com`,
    short: `js.${tag}@compliance-noreply.com`,
  };
  return {
    ...registered,
    person: reply.body,
    emails,
    values: {
      tag,
      person_id: person.id as number,
      email_1: emailItem(reply.body, emails.personal).id as number,
      email_2: emailItem(reply.body, emails.compliance).id as number,
      email_3: emailItem(reply.body, emails.short).id as number,
    },
  };
};

const emailsOf = (person: Json) => person.Emails['@set'] as Json[];

describe('person-endpoints.md: POST the Minimum Required Object', { timeout: 60_000 }, () => {
  it('answers 201 with the full Person, GRC parts included, a Location and ETag "1"', async () => {
    const tag = uniqueTag('min');

    const reply = await api.post('/Person', fixture('person-post-minimum', { tag }), { requester: 0 });

    expect(reply.status).toBe(201);
    const person = reply.body;
    expect(person.id).toEqual(expect.any(Number));
    expect(Number.isInteger(person.id) && person.id > 0).toBe(true);
    expect(new URL(reply.headers.get('location') as string, server.url).href).toBe(
      `${server.url}/Person/${person.id}`,
    );
    expect(reply.headers.get('etag')).toBe('"1"');
    const email = `jsmith.${tag}@no-reply.org`;
    expect(ordered(person)).toEqual(
      fullPerson(server.url, {
        id: person.id,
        fullname: 'John Smith',
        email,
        sets: {
          Names: [
            item('Names', person.id, {
              id: expect.any(Number),
              first_name: 'John',
              last_name: 'Smith',
              primary: true,
            }),
          ],
          Emails: [item('Emails', person.id, { id: expect.any(Number), email, primary: true })],
        },
        CoreMetaData: coreMetaData(person, { created_by: person.id, modified_by: null, version: 1 }),
      }),
    );
    expect(person.CoreMetaData.date_modified).toBe(person.CoreMetaData.date_created);
  });

  it('answers GET /Person/{id} with the same full Person and ETag', async () => {
    const { person } = await register();

    const reply = await api.get(`/Person/${person.id}`);

    expect(reply.status).toBe(200);
    expect(reply.headers.get('etag')).toBe('"1"');
    expectSamePerson(reply.body, person);
  });

  it('answers primary 1 as true, on Names and on Emails', async () => {
    const { person } = await register();

    expect(person.Names['@set'][0].primary).toBe(true);
    expect(person.Emails['@set'][0].primary).toBe(true);
  });

  it('answers every empty set, memberships included, with the example object that carries GRC keys', async () => {
    const { person } = await register();

    expect(person.PhoneNumbers['@set']).toEqual([EXAMPLES.PhoneNumbers]);
    expect(person.PostalAddresses['@set']).toEqual([EXAMPLES.PostalAddresses]);
    expect(person.PersonRoles['@set']).toEqual([EXAMPLES.PersonRoles]);
    for (const set of MEMBERSHIP_SETS) {
      expect(person.PersonMemberships[set]).toEqual({ '@type': set, '@set': [EXAMPLES[set]] });
    }
  });

  it('sets CoreMetaData.checksum to the Verhoeff check digit of date_modified, id and live_status', async () => {
    const { person } = await register();
    const { date_modified, live_status, checksum } = person.CoreMetaData;

    expect(live_status).toBe(1);
    expect(checksum).toBe(grcChecksum(date_modified, person.id, 1));
    expect(verhoeffValid(`${checksumDigits(date_modified, person.id, 1)}${checksum}`)).toBe(true);
  });
});

describe('person-endpoints.md: GET Person (filtered & pagination)', { timeout: 60_000 }, () => {
  it('lists GRC stubs in the Pagination envelope at /Person/ with url parameters', async () => {
    const { person, email } = await register();

    const reply = await api.get(
      `/Person/?email=${encodeURIComponent(email)}&first_name=john&last_name=SMITH`,
    );

    expect(reply.status).toBe(200);
    const context = `${server.url}/context.jsonld`;
    expect(reply.body).toEqual({
      '@context': context,
      Pagination: { '@context': context, '@type': 'Pagination', count: 1, limit: 1, offset: 0 },
      '@set': [
        {
          '@context': context,
          '@type': 'Stub',
          '@id': `${server.url}/Person/${person.id}`,
          id: person.id,
          property_name: 'fullname',
          property_value: 'John Smith',
          thing_type: 'Person',
        },
      ],
    });
  });
});

describe('person-endpoints.md: PATCH the full object from GET', { timeout: 60_000 }, () => {
  it('adds the telephone, role and address and ignores GRC CoreMetaData, example objects and read-only values', async () => {
    const { tag, person, nameId, emailId, email } = await register();
    const body = fixture('person-patch-full-object', {
      tag,
      person_id: person.id,
      name_id: nameId,
      email_id: emailId,
    });

    const reply = await api.patch(`/Person/${person.id}`, body, { requester: person.id });

    expect(reply.status).toBe(200);
    expect(reply.headers.get('etag')).toBe('"2"');
    const patched = reply.body;
    expect(ordered(patched)).toEqual(
      fullPerson(server.url, {
        id: person.id,
        fullname: 'John Smith',
        email,
        sets: {
          Names: person.Names['@set'],
          Emails: person.Emails['@set'],
          PhoneNumbers: [
            item('PhoneNumbers', person.id, {
              id: expect.any(Number),
              phone_number: '623-555-1212',
              primary: true,
              local_reference_id: 'telephone1',
            }),
          ],
          // role_fk 245 names no role this service knows, so the name sent (none) is kept.
          PersonRoles: [
            item('PersonRoles', person.id, {
              id: expect.any(Number),
              role_fk: 245,
              local_reference_id: 'role1',
            }),
          ],
          PostalAddresses: [
            item('PostalAddresses', person.id, {
              id: expect.any(Number),
              address1: '123 West East Street',
              address2: 'Suite 100',
              city: 'Phoenix',
              state_territory_province: 'Arizona',
              postal_code: '85028',
              country: 'United States of America',
              country_code: 'USA',
              primary: true,
              local_reference_id: 'postal1',
            }),
          ],
        },
        CoreMetaData: coreMetaData(patched, {
          created_by: person.id,
          modified_by: person.id,
          version: 2,
          created_audit_id: person.CoreMetaData.created_audit_id,
        }),
      }),
    );
    expect(patched.CoreMetaData.date_created).toBe(person.CoreMetaData.date_created);
    expect(patched.CoreMetaData.date_modified >= person.CoreMetaData.date_modified).toBe(true);
  });

  it('stores the PATCH: GET answers what the PATCH answered', async () => {
    const { tag, person, nameId, emailId } = await register();
    const body = fixture('person-patch-full-object', {
      tag,
      person_id: person.id,
      name_id: nameId,
      email_id: emailId,
    });
    const patched = await api.patch(`/Person/${person.id}`, body, { requester: person.id });

    const reply = await api.get(`/Person/${person.id}`);

    expect(reply.headers.get('etag')).toBe('"2"');
    expectSamePerson(reply.body, patched.body);
  });
});

describe('person-endpoints.md: Updating Unordered Sets', { timeout: 60_000 }, () => {
  it('adds three Emails whose id and person_fk are null and fills in their id and person_fk', async () => {
    const { tag, person, email, emailId } = await register();

    const reply = await api.patch(`/Person/${person.id}`, fixture('person-patch-emails-add', { tag }), {
      requester: person.id,
    });

    expect(reply.status).toBe(200);
    const added = (address: string) =>
      item('Emails', person.id, { id: expect.any(Number), email: address, primary: false });
    expectSetOf(emailsOf(reply.body), [
      item('Emails', person.id, { id: emailId, email, primary: true }),
      added(`joe.${tag}@personal-noreply.com`),
      added(`jsmith.${tag}@compliance-noreply.com`),
      added(`js.${tag}@compliance-noreply.com`),
    ]);
    const ids = emailsOf(reply.body).map((element) => element.id);
    expect(new Set(ids).size).toBe(4);
    expect(reply.body.email).toBe(email);
  });

  it('changes the one Email whose address differs and leaves the others as they were', async () => {
    const { person, values, emails, emailId, email } = await withThreeMoreEmails();

    const reply = await api.patch(`/Person/${person.id}`, fixture('person-patch-emails-change', values), {
      requester: person.id,
    });

    expect(reply.status).toBe(200);
    expectSetOf(emailsOf(reply.body), [
      item('Emails', person.id, { id: emailId, email, primary: true }),
      item('Emails', person.id, { id: values.email_1, email: emails.personal, primary: false }),
      item('Emails', person.id, {
        id: values.email_2,
        email: `jsmithCHANGED.${values.tag}@compliance-noreply.com`,
        primary: false,
      }),
      item('Emails', person.id, { id: values.email_3, email: emails.short, primary: false }),
    ]);
    expect(reply.body.Names).toEqual(person.Names);
  });

  it('removes the Email sent with only @type and id, and returns nothing for it', async () => {
    const { person, values, emails, emailId, email } = await withThreeMoreEmails();

    const reply = await api.patch(`/Person/${person.id}`, fixture('person-patch-emails-remove', values), {
      requester: person.id,
    });

    expect(reply.status).toBe(200);
    expectSetOf(emailsOf(reply.body), [
      item('Emails', person.id, { id: emailId, email, primary: true }),
      item('Emails', person.id, { id: values.email_1, email: emails.personal, primary: false }),
      item('Emails', person.id, { id: values.email_2, email: emails.compliance, primary: false }),
    ]);
    expectSamePerson((await api.get(`/Person/${person.id}`)).body, reply.body);
  });

  it('changes, deletes and adds in one @set', async () => {
    const { person, values, emails, emailId, email } = await withThreeMoreEmails();

    const reply = await api.patch(
      `/Person/${person.id}`,
      fixture('person-patch-emails-simultaneous', values),
      { requester: person.id },
    );

    expect(reply.status).toBe(200);
    expectSetOf(emailsOf(reply.body), [
      item('Emails', person.id, { id: emailId, email, primary: true }),
      item('Emails', person.id, {
        id: values.email_1,
        email: `joeCHANGE2.${values.tag}@personal-noreply.com`,
        primary: false,
      }),
      item('Emails', person.id, { id: values.email_3, email: emails.short, primary: false }),
      item('Emails', person.id, {
        id: expect.any(Number),
        email: `jsmith-NEW.${values.tag}@compliance-noreply.com`,
        primary: false,
      }),
    ]);
    expect(reply.body.CoreMetaData.version).toBe(3);
  });
});

describe('person-endpoints.md: How to Use local_reference_id', { timeout: 60_000 }, () => {
  it('POST echoes the root and sub-object local_reference_id and ignores the ids and root email sent', async () => {
    const tag = uniqueTag('lrid');

    const reply = await api.post('/Person', fixture('person-post-local-reference-id', { tag }), {
      requester: 0,
    });

    expect(reply.status).toBe(201);
    const person = reply.body;
    const email = `jsmith-changed.${tag}@gmail.com`;
    expect(ordered(person)).toEqual(
      fullPerson(server.url, {
        id: person.id,
        fullname: 'John Smith',
        email,
        local_reference_id: '255c41c8-e978-4642-ac0e-aae5174480b9',
        sets: {
          Names: [
            item('Names', person.id, {
              id: expect.any(Number),
              first_name: 'John',
              last_name: 'Smith',
              primary: true,
            }),
          ],
          Emails: [
            item('Emails', person.id, {
              id: expect.any(Number),
              email,
              primary: true,
              local_reference_id: '22a34491-deca-4e9e-a22a-7bd6dae04a4d',
            }),
          ],
        },
        CoreMetaData: coreMetaData(person, { created_by: person.id, modified_by: null, version: 1 }),
      }),
    );
    expect(person.id).not.toBe(30825);
    expectSamePerson((await api.get(`/Person/${person.id}`)).body, person);
  });

  it('PATCH echoes each local_reference_id and answers the deleted Email as a tombstone after the live items', async () => {
    const { person, values, emails, emailId, email } = await withThreeMoreEmails();

    const reply = await api.patch(
      `/Person/${person.id}`,
      fixture('person-patch-local-reference-id', values),
      {
        requester: person.id,
      },
    );

    expect(reply.status).toBe(200);
    const patched = reply.body;
    expect(patched.local_reference_id).toBe('3b49bf14-97fe-42a5-977f-37f02db665f9');
    expect(patched.fullname).toBe('John Smith');
    expect(patched.email).toBe(email);
    expect(patched.id).toBe(person.id);
    const set = patched.Emails['@set'] as Json[];
    expect(set.at(-1)).toEqual(tombstone('Email', values.email_2, 'e525d19c-8e2e-4392-bc4d-d0b0e189df9e'));
    expect(set.slice(0, -1).every((element) => typeof element.email === 'string')).toBe(true);
    expectSetOf(emailsOf(patched).slice(0, -1), [
      item('Emails', person.id, { id: emailId, email, primary: true }),
      item('Emails', person.id, {
        id: values.email_1,
        email: `joeCHANGE4.${values.tag}@personal-noreply.com`,
        primary: false,
        local_reference_id: '16dff066-e347-40ca-9fe2-2953cc802884',
      }),
      item('Emails', person.id, { id: values.email_3, email: emails.short, primary: false }),
      item('Emails', person.id, {
        id: expect.any(Number),
        email: `joe-NEW-EMAIL.${values.tag}@personal-noreply.com`,
        primary: false,
        local_reference_id: '4613418b-d0d4-420e-9cb0-de8d402cc836',
      }),
    ]);
  });

  it('stores no tombstone: a later GET shows the live items only', async () => {
    const { person, values } = await withThreeMoreEmails();
    const patched = await api.patch(
      `/Person/${person.id}`,
      fixture('person-patch-local-reference-id', values),
      {
        requester: person.id,
      },
    );

    const reply = await api.get(`/Person/${person.id}`);

    const withoutTombstone = { ...patched.body, Emails: { ...patched.body.Emails } };
    withoutTombstone.Emails['@set'] = (patched.body.Emails['@set'] as Json[]).slice(0, -1);
    expectSamePerson(reply.body, withoutTombstone);
    expect((reply.body.Emails['@set'] as Json[]).map((element) => element.id)).not.toContain(values.email_2);
  });
});

describe('managing-persons.md: the full name and alias names', { timeout: 60_000 }, () => {
  it('calculates fullname from the prefix abbreviation, first name, middle initial, last name and suffix abbreviation', async () => {
    const tag = uniqueTag('doolitle');
    const body = fixture('person-post-prefix-and-suffix', { tag, name_prefix_fk: 21, name_suffix_fk: 19 });

    const reply = await api.post('/Person', body, { requester: 0 });

    expect(reply.status).toBe(201);
    expect(reply.body.fullname).toBe('Dr. James T Doolitle Esquire');
    expect(reply.body.Names['@set']).toEqual([
      item('Names', reply.body.id, {
        id: expect.any(Number),
        first_name: 'James',
        last_name: 'Doolitle',
        middle_initial: 'T',
        name_prefix_fk: 21,
        name_suffix_fk: 19,
        primary: true,
      }),
    ]);
  });

  it('keeps the alias types 2 and 3 on Names, answers primary 0 as false, and names the person by primary 1', async () => {
    const tag = uniqueTag('alias');

    const reply = await api.post('/Person', fixture('person-post-aliases', { tag }), { requester: 0 });

    expect(reply.status).toBe(201);
    const person = reply.body;
    expect(person.fullname).toBe('Johanna Smythe');
    expect(person.email).toBe(`jsmythe.${tag}@no-reply.org`);
    expectSetOf(person.Names['@set'], [
      item('Names', person.id, {
        id: expect.any(Number),
        first_name: 'Johanna',
        last_name: 'Smythe',
        primary: true,
        local_reference_id: 'name-primary',
      }),
      item('Names', person.id, {
        id: expect.any(Number),
        freeform_name: `jsmythe-${tag}`,
        primary: 2,
        local_reference_id: 'name-disambiguated',
      }),
      item('Names', person.id, {
        id: expect.any(Number),
        freeform_name: 'Johanna Smith',
        primary: 3,
        local_reference_id: 'name-previous',
      }),
    ]);
    expectSetOf(person.Emails['@set'], [
      item('Emails', person.id, {
        id: expect.any(Number),
        email: `jsmythe.${tag}@no-reply.org`,
        primary: true,
      }),
      item('Emails', person.id, {
        id: expect.any(Number),
        email: `johanna.${tag}@no-reply.org`,
        primary: false,
      }),
    ]);
    expectSamePerson((await api.get(`/Person/${person.id}`)).body, person);
  });
});

describe('API.md 11.1: PersonMemberships are sub-objects like any other', { timeout: 60_000 }, () => {
  const LOCAL_REFERENCES = {
    PersonOrganizations: '5269b845-bb26-4656-bb09-58d3a2ca5414',
    PersonGroups: '94f7b6d0-de78-4155-8240-1953bb52839c',
    PersonInitiatives: 'd6d3ac71-a388-4750-a7f9-fb600c1c9122',
    PersonTeams: '7e4f3ac1-0ca2-4736-833a-be0d4e62335d',
  } as const;

  it('adds one item to each of the four sets, echoes its local_reference_id and stores it', async () => {
    const { person } = await register();

    const reply = await api.patch(`/Person/${person.id}`, fixture('person-patch-memberships'), {
      requester: person.id,
    });

    expect(reply.status).toBe(200);
    const memberships = reply.body.PersonMemberships;
    const added = (set: keyof typeof LOCAL_REFERENCES, values: Json) => ({
      '@type': set,
      '@set': [
        item(set, person.id, {
          id: expect.any(Number),
          local_reference_id: LOCAL_REFERENCES[set],
          ...values,
        }),
      ],
    });
    expect(memberships).toEqual({
      '@type': 'PersonMemberships',
      PersonOrganizations: added('PersonOrganizations', { name: 'Unified Compliance', organization_fk: 12 }),
      PersonGroups: added('PersonGroups', { name: 'Mapping editors', group_fk: 34 }),
      PersonInitiatives: added('PersonInitiatives', { name: 'SOC 2 readiness' }),
      PersonTeams: added('PersonTeams', { name: 'Lexicographers', team_fk: 56 }),
    });
    expect((await api.get(`/Person/${person.id}`)).body.PersonMemberships).toEqual(memberships);
  });

  it('deletes a membership sent with @type, id and local_reference_id, and answers its tombstone', async () => {
    const { person } = await register();
    const added = await api.patch(`/Person/${person.id}`, fixture('person-patch-memberships'), {
      requester: person.id,
    });
    const teamId = added.body.PersonMemberships.PersonTeams['@set'][0].id as number;

    const reply = await api.patch(
      `/Person/${person.id}`,
      {
        PersonMemberships: {
          '@type': 'PersonMemberships',
          PersonTeams: {
            '@type': 'PersonTeams',
            '@set': [{ '@type': 'PersonTeam', id: teamId, local_reference_id: 'team-gone' }],
          },
        },
      },
      { requester: person.id },
    );

    expect(reply.status).toBe(200);
    const teams = reply.body.PersonMemberships.PersonTeams['@set'] as Json[];
    expect(teams.at(-1)).toEqual(tombstone('PersonTeam', teamId, 'team-gone'));
    // No live team is left; whether the emptied set also shows its example object is not settled.
    expect(teams.slice(0, -1).every((element) => element.id === null)).toBe(true);
    expect(reply.body.PersonMemberships.PersonGroups).toEqual(added.body.PersonMemberships.PersonGroups);
    const stored = await api.get(`/Person/${person.id}`);
    expect(stored.body.PersonMemberships.PersonTeams).toEqual({
      '@type': 'PersonTeams',
      '@set': [EXAMPLES.PersonTeams],
    });
  });
});

describe('GRC-shaped input this service refuses changes nothing', { timeout: 60_000 }, () => {
  const minimumWith = (tag: string, change: (body: Json) => void) => {
    const body = fixture('person-post-minimum', { tag });
    change(body);
    return body;
  };

  const REFUSED_POSTS: { rule: string; body: (tag: string) => Json; path?: string }[] = [
    {
      rule: 'a Name with primary 4',
      body: (tag) =>
        minimumWith(tag, (body) => {
          body.Names['@set'][0].primary = 4;
        }),
    },
    {
      rule: 'an Email with primary 2 (alias types are for Names only)',
      body: (tag) =>
        minimumWith(tag, (body) => {
          body.Emails['@set'][0].primary = 2;
        }),
    },
    {
      rule: 'a PersonMemberships item with an unknown key',
      path: '/PersonMemberships/PersonOrganizations/@set/0/nickname',
      body: (tag) =>
        minimumWith(tag, (body) => {
          body.PersonMemberships = {
            '@type': 'PersonMemberships',
            PersonOrganizations: {
              '@type': 'PersonOrganizations',
              '@set': [{ '@type': 'PersonOrganization', name: 'Acme', organization_fk: 7, nickname: 'x' }],
            },
          };
        }),
    },
    {
      rule: 'a Name whose name_prefix_fk names no NamePrefix',
      body: (tag) =>
        fixture('person-post-prefix-and-suffix', { tag, name_prefix_fk: 999999, name_suffix_fk: null }),
    },
    {
      rule: 'a Name whose name_suffix_fk names no NameSuffix',
      body: (tag) =>
        fixture('person-post-prefix-and-suffix', { tag, name_prefix_fk: null, name_suffix_fk: 999999 }),
    },
    {
      rule: 'an unknown root key',
      path: '/nickname',
      body: (tag) =>
        minimumWith(tag, (body) => {
          body.nickname = 'Johnny';
        }),
    },
  ];

  it.each(REFUSED_POSTS)('POST /Person with $rule is 400 and stores nothing', async ({ body, path }) => {
    const tag = uniqueTag('refused');
    const persons = await countOf(api, '/Person');
    const entries = await countOf(api, '/ChangeHistory');

    const reply = await api.post('/Person', body(tag), { requester: 0 });

    expectProblem(reply, 400, 'validation-error');
    if (path) expect(reply.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await countOf(api, '/Person')).toBe(persons);
    expect(await countOf(api, '/Person', { search: tag })).toBe(0);
    expect(await countOf(api, '/ChangeHistory')).toBe(entries);
  });

  const REFUSED_PATCHES: { rule: string; body: Json; path?: string }[] = [
    {
      rule: 'an added PhoneNumber with primary 4',
      body: {
        PhoneNumbers: { '@set': [{ '@type': 'PhoneNumber', phone_number: '623-555-0000', primary: 4 }] },
      },
    },
    {
      rule: 'an added Name with primary 4',
      body: { Names: { '@set': [{ '@type': 'Name', freeform_name: 'J. Smith', primary: 4 }] } },
    },
    {
      rule: 'a PersonMemberships item with an unknown key',
      path: '/PersonMemberships/PersonTeams/@set/0/nickname',
      body: {
        PersonMemberships: {
          '@type': 'PersonMemberships',
          PersonTeams: { '@set': [{ '@type': 'PersonTeam', name: 'Mappers', team_fk: 3, nickname: 'x' }] },
        },
      },
    },
    {
      rule: 'an added Name whose name_prefix_fk names no NamePrefix',
      body: {
        Names: {
          '@set': [
            { '@type': 'Name', first_name: 'Jon', last_name: 'Smith', name_prefix_fk: 999999, primary: 0 },
          ],
        },
      },
    },
    { rule: 'an unknown root key', path: '/nickname', body: { nickname: 'Johnny' } },
  ];

  it.each(REFUSED_PATCHES)(
    'PATCH /Person/{id} with $rule is 400 and changes nothing',
    async ({ body, path }) => {
      const { person } = await register();
      const history = { endpoint: 'Person', object_id: person.id };
      const entries = await countOf(api, '/ChangeHistory', history);

      const reply = await api.patch(`/Person/${person.id}`, body, { requester: person.id });

      expectProblem(reply, 400, 'validation-error');
      if (path)
        expect(reply.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
      const stored = await api.get(`/Person/${person.id}`);
      expectSamePerson(stored.body, person);
      expect(stored.headers.get('etag')).toBe('"1"');
      expect(await countOf(api, '/ChangeHistory', history)).toBe(entries);
    },
  );
});

describe('API.md 1: every path also answers with one trailing slash', { timeout: 60_000 }, () => {
  interface Ids {
    person: number;
    entry: number;
  }
  let ids: Ids;

  beforeAll(async () => {
    const { person } = await register();
    ids = { person: person.id, entry: person.CoreMetaData.created_audit_id };
  });

  const GETS: { name: string; path: (ids: Ids) => string }[] = [
    { name: '/Person', path: () => '/Person' },
    { name: '/Person/{id}', path: ({ person }) => `/Person/${person}` },
    { name: '/Person/{id}/audit', path: ({ person }) => `/Person/${person}/audit` },
    { name: '/NamePrefix', path: () => '/NamePrefix' },
    { name: '/NamePrefix/{id}', path: () => '/NamePrefix/21' },
    { name: '/NameSuffix', path: () => '/NameSuffix' },
    { name: '/NameSuffix/{id}', path: () => '/NameSuffix/19' },
    { name: '/Prefix', path: () => '/Prefix' },
    { name: '/Prefix/{id}', path: () => '/Prefix/21' },
    { name: '/Suffix', path: () => '/Suffix' },
    { name: '/Suffix/{id}', path: () => '/Suffix/19' },
    { name: '/ChangeHistory', path: () => '/ChangeHistory' },
    { name: '/ChangeHistory/{id}', path: ({ entry }) => `/ChangeHistory/${entry}` },
    { name: '/openapi.json', path: () => '/openapi.json' },
    { name: '/schema/Person', path: () => '/schema/Person' },
    { name: '/context.jsonld', path: () => '/context.jsonld' },
  ];

  it.each(GETS)('GET $name/ answers as GET $name', async ({ path }) => {
    const plain = await api.get(path(ids));

    const slashed = await api.get(`${path(ids)}/`);

    expect(plain.status).toBe(200);
    expect(slashed.status).toBe(200);
    expect(slashed.body).toEqual(plain.body);
  });

  it('POST /Person/ creates the person at /Person/{id}', async () => {
    const tag = uniqueTag('slash');

    const reply = await api.post('/Person/', fixture('person-post-minimum', { tag }), { requester: 0 });

    expect(reply.status).toBe(201);
    expect(new URL(reply.headers.get('location') as string, server.url).href).toBe(
      `${server.url}/Person/${reply.body.id}`,
    );
    expect(reply.body['@id']).toBe(`${server.url}/Person/${reply.body.id}`);
  });

  it('PATCH /Person/{id}/ changes the person', async () => {
    const { person } = await register();

    const reply = await api.patch(
      `/Person/${person.id}/`,
      { local_reference_id: 'slashed' },
      { requester: person.id },
    );

    expect(reply.status).toBe(200);
    expect(reply.body.local_reference_id).toBe('slashed');
    expect(reply.body['@id']).toBe(`${server.url}/Person/${person.id}`);
  });
});
