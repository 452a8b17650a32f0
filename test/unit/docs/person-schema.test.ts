import { describe, expect, it } from 'vitest';
import { buildHandler } from '../../../functions/get-person-schema';
import { personSchemaAt, personSchemaBody } from '../../../lib/docs/person-schema';
import { emptyPerson } from '../../../lib/domain/person';
import { toPersonOut } from '../../../lib/domain/representation';
import { MEMBERSHIP_SETS, PersonOut } from '../../../lib/domain/schemas';
import { httpEvent, invoke } from '../../support/events';
import { schemaValidator } from '../../support/json-schema';

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
    const ajv = schemaValidator();
    const validate = ajv.compile(personSchemaAt(personSchemaBody(), 'https://api.example.org'));
    const person = toPersonOut(
      {
        ...emptyPerson(3),
        fullname: 'Ada',
        Names: [
          {
            id: 4,
            local_reference_id: null,
            first_name: null,
            last_name: null,
            middle_initial: null,
            freeform_name: 'Ada',
            name_prefix_fk: null,
            name_suffix_fk: null,
            primary: true,
          },
        ],
        PersonGroups: [{ id: 5, local_reference_id: 'g-1', name: 'Analysts', group_fk: 9 }],
        CoreMetaData: {
          date_created: '2026-01-02T03:04:05.000Z',
          date_modified: '2026-01-02T03:04:05.000Z',
          created_by: 3,
          modified_by: null,
          version: 1,
          created_audit_id: 6,
          modified_audit_id: null,
        },
      },
      { baseUrl: 'https://api.example.org', contextUrl: 'https://api.example.org/context.jsonld' },
    );
    const { PersonMemberships: _memberships, ...withoutMemberships } = person;

    expect(validate(person) ? [] : validate.errors).toEqual([]);
    expect(validate(withoutMemberships)).toBe(false);
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
