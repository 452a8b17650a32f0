import { describe, expect, it } from 'vitest';
import { buildHandler } from '../../../functions/get-person-schema';
import { personSchemaAt, personSchemaBody } from '../../../lib/docs/person-schema';
import { emptyPerson, type NameItem, type Person } from '../../../lib/domain/person';
import { toPersonOut } from '../../../lib/domain/representation';
import { CreatePersonBody, MEMBERSHIP_SETS, PersonOut } from '../../../lib/domain/schemas';
import { httpEvent, invoke } from '../../support/events';
import { schemaValidator } from '../../support/json-schema';
import { storedName } from '../../support/persons';

/** The Person schema as served, compiled once for the checks below. */
const validate = schemaValidator().compile(personSchemaAt(personSchemaBody(), 'https://api.example.org'));

/** A primary Name with every part null but those given. */
const name = (parts: Partial<NameItem>): NameItem => storedName({ id: 4, ...parts });

/** Person 3 as GET answers it, with the parts given. */
const answeredPerson = (parts: Partial<Person>) =>
  toPersonOut(
    {
      ...emptyPerson(3),
      CoreMetaData: {
        date_created: '2026-01-02T03:04:05.000Z',
        date_modified: '2026-01-02T03:04:05.000Z',
        created_by: 3,
        modified_by: null,
        version: 1,
        created_audit_id: 6,
        modified_audit_id: null,
      },
      ...parts,
    },
    { baseUrl: 'https://api.example.org', contextUrl: 'https://api.example.org/context.jsonld' },
  );

describe('the JSON Schema of the Person', () => {
  it('is JSON Schema 2020-12 with its own URL as $id', () => {
    const schema = personSchemaAt(personSchemaBody(), 'https://api.example.org/prod');

    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe('https://api.example.org/prod/schema/Person');
    expect(schema.title).toBe('Person');
  });

  it('requires every property of the Person, as the zod schema does', () => {
    const { required, properties } = personSchemaBody() as { required: string[]; properties: object };

    expect(required.sort()).toEqual(Object.keys(PersonOut.shape).sort());
    expect(Object.keys(properties).sort()).toEqual(Object.keys(PersonOut.shape).sort());
  });

  it('describes GRC’s parts: PersonMemberships, organization_fk and GRC’s CoreMetaData', () => {
    type Node = { properties: Record<string, Node>; required: string[]; items: { anyOf: Node[] } };
    const { properties } = personSchemaBody() as unknown as Node;
    const email = properties.Emails?.properties['@set']?.items.anyOf[0];

    expect(Object.keys(properties.PersonMemberships?.properties ?? {})).toEqual([
      '@type',
      ...MEMBERSHIP_SETS,
    ]);
    expect(email?.properties.organization_fk).toEqual({ type: 'null' });
    expect(properties.CoreMetaData?.required).toEqual(
      expect.arrayContaining([
        'created_audit_id',
        'modified_audit_id',
        'live_status',
        'validated',
        'checksum',
      ]),
    );
  });

  it('is satisfied by the Person the service answers, and by nothing missing a part', () => {
    const person = answeredPerson({
      fullname: 'Ada',
      Names: [name({ freeform_name: 'Ada' })],
      PersonGroups: [{ id: 5, local_reference_id: 'g-1', name: 'Analysts', group_fk: 9 }],
    });
    const { PersonMemberships: _memberships, ...withoutMemberships } = person;

    expect(validate(person) ? [] : validate.errors).toEqual([]);
    expect(validate(withoutMemberships)).toBe(false);
  });

  describe('primary, as GET answers it and as a client sends it back (API.md 5.2, 11.1)', () => {
    const answered = answeredPerson({
      fullname: 'Ada Lovelace',
      Names: [name({ first_name: 'Ada', last_name: 'Lovelace' })],
      Emails: [{ id: 5, local_reference_id: null, email: 'ada@example.org', primary: true }],
    });
    type Item = Record<string, unknown>;
    const withPrimary = (set: 'Names' | 'Emails', primary: unknown) => ({
      ...answered,
      [set]: { ...answered[set], '@set': answered[set]['@set'].map((item: Item) => ({ ...item, primary })) },
    });
    const accepts = (person: unknown) => (validate(person) ? [] : validate.errors);

    it('accepts what GET answers', () => {
      expect(accepts(answered)).toEqual([]);
    });

    it.each([1, 0, true, false])('accepts primary %s on an Email and on a Name', (primary) => {
      expect(accepts(withPrimary('Emails', primary))).toEqual([]);
      expect(accepts(withPrimary('Names', primary))).toEqual([]);
    });

    it.each([2, 3])('accepts GRC’s alias type %s on a Name only', (primary) => {
      expect(accepts(withPrimary('Names', primary))).toEqual([]);
      expect(validate(withPrimary('Emails', primary))).toBe(false);
    });

    it.each([5, 'yes', -1, 1.5, '1'])('refuses primary %j on an Email and on a Name', (primary) => {
      expect(validate(withPrimary('Emails', primary))).toBe(false);
      expect(validate(withPrimary('Names', primary))).toBe(false);
    });

    it.each([true, false, 1, 0, 2, 3, 4, 5, -1, 1.5, 'yes', '1', null])(
      'says of primary %j what a request body says',
      (primary) => {
        const name = { first_name: 'Ada', last_name: 'Lovelace', primary };
        const email = { email: 'ada@example.org', primary };
        const request = (set: 'Names' | 'Emails') =>
          CreatePersonBody.safeParse({
            Names: { '@set': [set === 'Names' ? name : { first_name: 'Ada', last_name: 'Lovelace' }] },
            ...(set === 'Emails' ? { Emails: { '@set': [email] } } : {}),
          }).success;

        expect(validate(withPrimary('Names', primary)), 'Name').toBe(request('Names'));
        expect(validate(withPrimary('Emails', primary)), 'Email').toBe(request('Emails'));
      },
    );

    it('describes each primary: what is answered, and that 1 and 0 are accepted', () => {
      type Node = { properties: Record<string, Node>; items: { anyOf: Node[] }; description?: string };
      const { properties } = personSchemaBody() as unknown as Node;
      const primaryOf = (set: string) =>
        properties[set]?.properties['@set']?.items.anyOf[0]?.properties.primary;

      for (const set of ['Names', 'Emails', 'PhoneNumbers', 'PostalAddresses']) {
        expect(primaryOf(set)?.description, set).toMatch(/Answered: `true`.*`false`/);
        expect(primaryOf(set)?.description, set).toMatch(
          /Accepted also: GRC's `1` for `true` and `0` for `false`/,
        );
      }
      expect(primaryOf('Names')?.description).toMatch(/alias type `2` .* or `3` .*kept as sent/);
      expect(primaryOf('Emails')?.description).not.toMatch(/alias/);
    });
  });

  it('is served as application/schema+json, public and cacheable', async () => {
    const reply = await invoke(
      buildHandler({ schema: personSchemaBody() }),
      httpEvent({ method: 'GET', route: '/schema/Person' }),
    );

    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/schema+json; charset=utf-8');
    expect(reply.headers['access-control-allow-origin']).toBe('*');
    expect(reply.body.$id).toBe('https://api.example.test/schema/Person');
  });
});
