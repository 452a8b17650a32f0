import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { PersonOut } from '../../lib/domain/schemas';
import { type CallOptions, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { EXAMPLE_OBJECTS } from '../support/fixtures';
import { snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

type Element = Record<string, unknown> & { id?: number | null };

const createPerson = async (
  body: Record<string, unknown> = personBody('Pat', uniqueTag('Ch'), uniqueEmail()),
) => {
  const response = await suite.api.post(body);
  expect(response.status).toBe(201);
  return response.body;
};

const items = (person: { [set: string]: unknown }, set: string) =>
  (person[set] as { '@set': Element[] })['@set'];

const idsOf = (person: { [set: string]: unknown }, set: string) => items(person, set).map((item) => item.id);

const refusedPatch = async (id: number | string, body: unknown, options: CallOptions = {}) => {
  const before = await snapshot(suite.table);
  const response = await suite.api.patch(id, body, options);
  expect(await snapshot(suite.table)).toEqual(before);
  return response;
};

const auditEntries = async (personId: number) =>
  (
    await suite.table.client.send(
      new QueryCommand({
        TableName: suite.table.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
        ExpressionAttributeValues: { ':pk': `PERSON#${personId}`, ':audit': 'AUDIT#' },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

describe('PATCH /Person/{id}: sub-objects', () => {
  it('adds an element with no id and returns the full Person with a new ETag', async () => {
    const person = await createPerson();
    const email = uniqueEmail('added');
    const { status, headers, body } = await suite.api.patch(person.id, {
      Emails: { '@set': [{ email, local_reference_id: 'mine' }] },
    });
    expect(status).toBe(200);
    expect(headers.etag).toBe('"2"');
    PersonOut.parse(body);
    expect(items(body, 'Emails')).toEqual([
      items(person, 'Emails')[0],
      {
        '@type': 'Email',
        id: expect.any(Number),
        email,
        primary: false,
        person_fk: person.id,
        organization_fk: null,
        local_reference_id: 'mine',
      },
    ]);
  });

  it('changes only the properties sent; a property sent as null is cleared, absent ones are kept', async () => {
    const person = await createPerson({
      ...personBody('Addr', uniqueTag('Ess')),
      PostalAddresses: { '@set': [{ address1: '1 Main St', city: 'Springfield', country: 'US' }] },
    });
    const [address] = items(person, 'PostalAddresses');
    const { body } = await suite.api.patch(person.id, {
      PostalAddresses: { '@set': [{ id: address?.id, city: 'Shelbyville', country: null }] },
    });
    expect(items(body, 'PostalAddresses')).toEqual([{ ...address, city: 'Shelbyville', country: null }]);
  });

  it('deletes an element sent with only its id, and echoes a tombstone when it carries local_reference_id', async () => {
    const person = await createPerson(
      personBody('Del', uniqueTag('Ete'), uniqueEmail(), uniqueEmail(), uniqueEmail()),
    );
    const [, second, third] = items(person, 'Emails');
    const { status, body } = await suite.api.patch(person.id, {
      Emails: {
        '@set': [{ '@type': 'Email', id: second?.id, local_reference_id: 'gone-1' }, { id: third?.id }],
      },
    });
    expect(status).toBe(200);
    expect(items(body, 'Emails')).toEqual([
      items(person, 'Emails')[0],
      { '@type': 'Email', id: second?.id, local_reference_id: 'gone-1' },
    ]);
    const got = await suite.api.get(person.id);
    expect(items(got.body, 'Emails')).toEqual([items(person, 'Emails')[0]]);
  });

  it('shows the example object, then the tombstone, when the last element of a set is deleted', async () => {
    const person = await createPerson({
      ...personBody('Ph', uniqueTag('One')),
      PhoneNumbers: { '@set': [{ phone_number: '+1 555 0101' }] },
    });
    const { body } = await suite.api.patch(person.id, {
      PhoneNumbers: { '@set': [{ id: idsOf(person, 'PhoneNumbers')[0], local_reference_id: 'phone-x' }] },
    });
    expect(items(body, 'PhoneNumbers')).toEqual([
      EXAMPLE_OBJECTS.PhoneNumbers,
      { '@type': 'PhoneNumber', id: idsOf(person, 'PhoneNumbers')[0], local_reference_id: 'phone-x' },
    ]);
  });

  it('treats a delete of an id the person does not have as a no-op', async () => {
    const person = await createPerson();
    const { status, body } = await suite.api.patch(person.id, { Emails: { '@set': [{ id: 987_654_321 }] } });
    expect(status).toBe(200);
    expect(body.CoreMetaData.version).toBe(1);
    expect(items(body, 'Emails')).toEqual(items(person, 'Emails'));
  });

  it('refuses a change of an id the person does not have with 400 naming the element', async () => {
    const person = await createPerson();
    const { status, body } = await refusedPatch(person.id, {
      Emails: { '@set': [{ id: 987_654_321, email: uniqueEmail() }] },
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({
      type: '/problems/validation-error',
      errors: [{ path: '/Emails/@set/0/id' }],
    });
  });

  it('refuses a change of another person’s element', async () => {
    const other = await createPerson();
    const person = await createPerson();
    const { status } = await refusedPatch(person.id, {
      Emails: { '@set': [{ id: idsOf(other, 'Emails')[0], email: uniqueEmail() }] },
    });
    expect(status).toBe(400);
  });

  it('combines adds, changes and deletes in one request, in any order', async () => {
    const person = await createPerson({
      ...personBody('Com', uniqueTag('Bo')),
      PhoneNumbers: { '@set': [{ phone_number: '1' }, { phone_number: '2' }] },
    });
    const [one, two] = idsOf(person, 'PhoneNumbers');
    const { body } = await suite.api.patch(person.id, {
      PhoneNumbers: {
        '@set': [
          { phone_number: '3', local_reference_id: 'new' },
          { id: one, local_reference_id: 'old' },
          { id: two, phone_number: '2b' },
        ],
      },
    });
    expect(items(body, 'PhoneNumbers')).toEqual([
      expect.objectContaining({ id: two, phone_number: '2b' }),
      expect.objectContaining({ phone_number: '3', local_reference_id: 'new' }),
      { '@type': 'PhoneNumber', id: one, local_reference_id: 'old' },
    ]);
  });

  it('ignores example objects', async () => {
    const person = await createPerson();
    const { status, body } = await suite.api.patch(person.id, {
      PhoneNumbers: {
        '@set': [
          {
            '@type': 'PhoneNumber',
            id: null,
            phone_number: null,
            primary: null,
            person_fk: null,
            local_reference_id: null,
          },
        ],
      },
    });
    expect(status).toBe(200);
    expect(body.CoreMetaData.version).toBe(1);
  });

  it('takes *_fk fields when an element is added and ignores them when it is changed', async () => {
    const person = await createPerson();
    const { body } = await suite.api.patch(person.id, {
      Names: { '@set': [{ first_name: 'Alt', last_name: 'Name', name_prefix_fk: 1 }] },
      PersonRoles: { '@set': [{ name: 'Editor', role_fk: 42 }] },
    });
    const added = items(body, 'Names')[1];
    const role = items(body, 'PersonRoles')[0];
    expect(added).toMatchObject({ name_prefix_fk: 1 });
    expect(role).toMatchObject({ name: 'Editor', role_fk: 42 });
    const changed = await suite.api.patch(person.id, {
      Names: { '@set': [{ id: added?.id, name_prefix_fk: 2, first_name: 'Alter' }] },
      PersonRoles: { '@set': [{ id: role?.id, role_fk: 43 }] },
    });
    expect(items(changed.body, 'Names')[1]).toMatchObject({ first_name: 'Alter', name_prefix_fk: 1 });
    expect(items(changed.body, 'PersonRoles')[0]).toMatchObject({ role_fk: 42 });
  });

  it('ignores person_fk on elements', async () => {
    const person = await createPerson();
    const { body } = await suite.api.patch(person.id, {
      PhoneNumbers: { '@set': [{ phone_number: '5', person_fk: 1 }] },
    });
    expect(items(body, 'PhoneNumbers')[0]).toMatchObject({ person_fk: person.id });
  });
});

describe('PATCH /Person/{id}: primary items', () => {
  it('demotes the previous primary when another element is marked primary', async () => {
    const person = await createPerson(personBody('Pri', uniqueTag('Mary'), uniqueEmail(), uniqueEmail()));
    const [first, second] = items(person, 'Emails');
    const { body } = await suite.api.patch(person.id, {
      Emails: { '@set': [{ id: second?.id, primary: true }] },
    });
    expect(items(body, 'Emails').map((email) => [email.id, email.primary])).toEqual([
      [first?.id, false],
      [second?.id, true],
    ]);
    expect(body.email).toBe(second?.email);
  });

  it('promotes the remaining element with the lowest id when the primary is deleted', async () => {
    const person = await createPerson(
      personBody('Pro', uniqueTag('Mote'), uniqueEmail(), uniqueEmail(), uniqueEmail()),
    );
    const [first, second, third] = items(person, 'Emails');
    const { body } = await suite.api.patch(person.id, {
      Emails: { '@set': [{ id: third?.id, primary: true }] },
    });
    expect(body.email).toBe(third?.email);
    const after = await suite.api.patch(person.id, { Emails: { '@set': [{ id: third?.id }] } });
    expect(after.body.email).toBe(first?.email);
    expect(items(after.body, 'Emails').map((email) => [email.id, email.primary])).toEqual([
      [first?.id, true],
      [second?.id, false],
    ]);
  });

  it('promotes the lowest remaining PhoneNumber when the primary one is deleted', async () => {
    const person = await createPerson({
      ...personBody('Tel', uniqueTag('Ephone')),
      PhoneNumbers: {
        '@set': [{ phone_number: '1' }, { phone_number: '2', primary: true }, { phone_number: '3' }],
      },
    });
    const [one, two, three] = idsOf(person, 'PhoneNumbers');
    const { body } = await suite.api.patch(person.id, { PhoneNumbers: { '@set': [{ id: two }] } });
    expect(items(body, 'PhoneNumbers').map((phone) => [phone.id, phone.primary])).toEqual([
      [one, true],
      [three, null],
    ]);
  });

  it('changes fullname when another Name becomes primary', async () => {
    const person = await createPerson();
    const { body } = await suite.api.patch(person.id, {
      Names: { '@set': [{ first_name: 'New', last_name: 'Primary', primary: true }] },
    });
    expect(body.fullname).toBe('New Primary');
  });

  it('refuses two primary elements in one request', async () => {
    const person = await createPerson(personBody('Two', uniqueTag('Pri'), uniqueEmail(), uniqueEmail()));
    const [first, second] = idsOf(person, 'Emails');
    const { status, body } = await refusedPatch(person.id, {
      Emails: {
        '@set': [
          { id: first, primary: true },
          { id: second, primary: true },
        ],
      },
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ errors: [{ path: '/Emails/@set/1/primary' }] });
  });

  it('refuses to delete the last Name', async () => {
    const person = await createPerson();
    const { status, body } = await refusedPatch(person.id, {
      Names: { '@set': [{ id: idsOf(person, 'Names')[0] }] },
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ errors: [{ path: '/Names' }] });
  });

  it('refuses a change that leaves a Name with only a first name', async () => {
    const person = await createPerson();
    const { status, body } = await refusedPatch(person.id, {
      Names: { '@set': [{ id: idsOf(person, 'Names')[0], last_name: null }] },
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ errors: [{ path: '/Names/@set/0' }] });
  });
});

describe('PATCH /Person/{id}: root properties and audit', () => {
  it('changes root properties sent and keeps absent ones; read-only ones are ignored', async () => {
    const person = await createPerson({
      ...personBody('Ro', uniqueTag('Ot'), uniqueEmail()),
      local_reference_id: 'before',
    });
    const { body } = await suite.api.patch(person.id, {
      id: 1,
      fullname: 'Ignored Name',
      email: 'ignored@example.org',
      CoreMetaData: { version: 99, created_by: 1 },
      SocialAddresses: { twitter: 'https://x.com/someone' },
    });
    expect(body).toMatchObject({
      id: person.id,
      fullname: person.fullname,
      email: person.email,
      local_reference_id: 'before',
      SocialAddresses: { twitter: 'https://x.com/someone', facebook: null },
    });
    expect(body.CoreMetaData.version).toBe(2);
    const cleared = await suite.api.patch(person.id, { local_reference_id: null });
    expect(cleared.body.local_reference_id).toBeNull();
  });

  it('records modified_by, date_modified and a version one higher; created_* stay', async () => {
    const editor = await createPerson();
    const person = await createPerson();
    const { body } = await suite.api.patch(person.id, { local_reference_id: 'x' }, { requester: editor.id });
    expect(body.CoreMetaData).toMatchObject({
      created_by: person.CoreMetaData.created_by,
      date_created: person.CoreMetaData.date_created,
      modified_by: editor.id,
      version: 2,
    });
    expect(body.CoreMetaData.date_modified >= person.CoreMetaData.date_modified).toBe(true);
  });

  it('writes one audit entry per stored change, with the requester and the changed parts', async () => {
    const person = await createPerson();
    await suite.api.patch(person.id, {
      Emails: { '@set': [{ email: uniqueEmail() }] },
      local_reference_id: 'r',
    });
    const entries = await auditEntries(person.id);
    expect(
      entries.map(({ action, requester, changed, object_id }) => ({ action, requester, changed, object_id })),
    ).toEqual([
      { action: 'create', requester: person.id, changed: ['/Names', '/Emails'], object_id: person.id },
      {
        action: 'update',
        requester: person.id,
        changed: ['/local_reference_id', '/Emails'],
        object_id: person.id,
      },
    ]);
  });

  it('stores nothing for a PATCH that changes nothing', async () => {
    const person = await createPerson();
    const before = await snapshot(suite.table);
    const { status, headers, body } = await suite.api.patch(person.id, {
      Names: person.Names,
    });
    expect(status).toBe(200);
    expect(headers.etag).toBe('"1"');
    expect(body).toEqual(person);
    expect(await snapshot(suite.table)).toEqual(before);
  });

  it('accepts the whole object from GET sent back unchanged', async () => {
    const person = await createPerson();
    const { status, body } = await suite.api.patch(person.id, (await suite.api.get(person.id)).body);
    expect(status).toBe(200);
    expect(body).toEqual(person);
  });
});

describe('PATCH /Person/{id}: preconditions, requester and 404', () => {
  it('applies the change when If-Match is the current ETag (or *)', async () => {
    const person = await createPerson();
    const first = await suite.api.patch(
      person.id,
      { local_reference_id: 'a' },
      { headers: { 'if-match': '"1"' } },
    );
    expect(first.status).toBe(200);
    const second = await suite.api.patch(
      person.id,
      { local_reference_id: 'b' },
      { headers: { 'if-match': '*' } },
    );
    expect(second.status).toBe(200);
  });

  it('412 precondition-failed when If-Match is not the current ETag, and nothing changes', async () => {
    const person = await createPerson();
    await suite.api.patch(person.id, { local_reference_id: 'moved on' });
    const { status, headers, body } = await refusedPatch(
      person.id,
      { local_reference_id: 'stale' },
      { headers: { 'if-match': '"1"' } },
    );
    expect(status).toBe(412);
    expect(headers.etag).toBe('"2"');
    expect(body).toMatchObject({ type: '/problems/precondition-failed', status: 412 });
  });

  it('404 not-found for an unknown person', async () => {
    const { status, body } = await refusedPatch(
      987_654_321,
      { local_reference_id: 'x' },
      { requester: (await createPerson()).id },
    );
    expect(status).toBe(404);
    expect(body).toMatchObject({ type: '/problems/not-found', instance: '/Person/987654321' });
  });

  it('403 unknown-requester when the requester is not a person', async () => {
    const person = await createPerson();
    const { status, body } = await refusedPatch(
      person.id,
      { local_reference_id: 'x' },
      { requester: 987_654_321 },
    );
    expect(status).toBe(403);
    expect(body).toMatchObject({ type: '/problems/unknown-requester' });
  });

  it.each([
    ['missing', null, 'missing-requester'],
    ['0 (self-registration is for POST only)', 0, 'invalid-requester'],
    ['not a number', 'me', 'invalid-requester'],
  ])('400 when x-requester-person is %s', async (_, requester, type) => {
    const person = await createPerson();
    const { status, body } = await refusedPatch(person.id, { local_reference_id: 'x' }, { requester });
    expect(status).toBe(400);
    expect(body).toMatchObject({ type: `/problems/${type}` });
  });

  it('refuses unknown properties with their path', async () => {
    const person = await createPerson();
    const { status, body } = await refusedPatch(person.id, {
      Emails: { '@set': [{ email: uniqueEmail(), label: 'work' }] },
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ errors: [{ path: '/Emails/@set/0/label' }] });
  });
});

describe('PATCH /Person/{id}: uniqueness', () => {
  it('409 duplicate-email when adding an address another person holds, with `existing`', async () => {
    const holder = await createPerson();
    const person = await createPerson();
    const { status, body } = await refusedPatch(person.id, {
      Emails: { '@set': [{ email: ` ${String(holder.email).toUpperCase()}` }] },
    });
    expect(status).toBe(409);
    expect(body).toMatchObject({
      type: '/problems/duplicate-email',
      errors: [{ path: '/Emails/@set/0/email', existing: `https://api.example.test/Person/${holder.id}` }],
    });
  });

  it('releases an address when it is changed, so another person can take it', async () => {
    const person = await createPerson();
    const old = String(person.email);
    const changed = await suite.api.patch(person.id, {
      Emails: { '@set': [{ id: idsOf(person, 'Emails')[0], email: uniqueEmail('renamed') }] },
    });
    expect(changed.status).toBe(200);
    expect((await suite.api.post(personBody('New', 'Owner', old))).status).toBe(201);
  });

  it('releases an address when it is deleted', async () => {
    const person = await createPerson(personBody('Rel', uniqueTag('Ease'), uniqueEmail(), uniqueEmail()));
    const [, second] = items(person, 'Emails');
    await suite.api.patch(person.id, { Emails: { '@set': [{ id: second?.id }] } });
    expect((await suite.api.post(personBody('New', 'Owner', String(second?.email)))).status).toBe(201);
  });

  it('lets a person swap addresses between its own emails in one request', async () => {
    const person = await createPerson(personBody('Sw', uniqueTag('Ap'), uniqueEmail(), uniqueEmail()));
    const [first, second] = items(person, 'Emails');
    const { status, body } = await suite.api.patch(person.id, {
      Emails: {
        '@set': [
          { id: first?.id, email: second?.email },
          { id: second?.id, email: first?.email },
        ],
      },
    });
    expect(status).toBe(200);
    expect(items(body, 'Emails').map((email) => email.email)).toEqual([second?.email, first?.email]);
  });

  it('409 duplicate-name when removing the last email leaves a name an email-less person holds', async () => {
    const last = uniqueTag('Name');
    const holder = await createPerson(personBody('Same', last));
    const person = await createPerson(personBody('Same', last, uniqueEmail()));
    const { status, body } = await refusedPatch(person.id, {
      Emails: { '@set': [{ id: idsOf(person, 'Emails')[0] }] },
    });
    expect(status).toBe(409);
    expect(body).toMatchObject({
      type: '/problems/duplicate-name',
      errors: [{ existing: `https://api.example.test/Person/${holder.id}` }],
    });
  });

  it('409 duplicate-name when renaming an email-less person to a name another email-less person holds', async () => {
    const last = uniqueTag('Taken');
    await createPerson(personBody('Held', last));
    const person = await createPerson(personBody('Free', uniqueTag('Name')));
    const { status, body } = await refusedPatch(person.id, {
      Names: {
        '@set': [{ id: idsOf(person, 'Names')[0], first_name: 'held', last_name: last.toUpperCase() }],
      },
    });
    expect(status).toBe(409);
    expect(body).toMatchObject({ type: '/problems/duplicate-name', errors: [{ path: '/Names/@set/0' }] });
  });

  it('releases the name claim when an email-less person gains an email', async () => {
    const last = uniqueTag('Gain');
    const person = await createPerson(personBody('Once', last));
    expect((await suite.api.post(personBody('Once', last))).status).toBe(409);
    await suite.api.patch(person.id, { Emails: { '@set': [{ email: uniqueEmail() }] } });
    expect((await suite.api.post(personBody('Once', last))).status).toBe(201);
  });

  it('releases the old name claim when an email-less person is renamed', async () => {
    const last = uniqueTag('Old');
    const person = await createPerson(personBody('Re', last));
    await suite.api.patch(person.id, {
      Names: { '@set': [{ id: idsOf(person, 'Names')[0], last_name: uniqueTag('New') }] },
    });
    expect((await suite.api.post(personBody('Re', last))).status).toBe(201);
  });
});
