import jsonld from 'jsonld';
import type { JsonLd } from 'jsonld/jsonld-spec';
import { describe, expect, it } from 'vitest';
import { jsonLdContext, SCHEMA_ORG, termBaseOf } from '../../../lib/docs/context';
import type { JsonSchema } from '../../../lib/docs/json-schema';
import { openApiDocument } from '../../../lib/docs/openapi';
import { RESPONSE_SCHEMAS } from '../../../lib/docs/response-schemas';
import { type ChangeEntry, NO_ORIGIN } from '../../../lib/domain/change-history';
import { cloudEventOf, encodeFeedCursor, eventPage, FEED_START, feedEventOf } from '../../../lib/domain/feed';
import { emptyPerson, type Person } from '../../../lib/domain/person';
import { changeHistoryOut, type Links, toPersonOut } from '../../../lib/domain/representation';
import {
  CORE_METADATA_INPUT_KEYS,
  ITEM_FIELDS,
  ITEM_OWNER_KEYS,
  ITEM_TYPES,
  MEMBERSHIP_SETS,
  PersonOut,
  SET_NAMES,
  SOCIAL_FIELDS,
} from '../../../lib/domain/schemas';

const CONTEXT_URL = 'https://api.example.test/context.jsonld';
const { '@context': context } = jsonLdContext(termBaseOf(CONTEXT_URL));

/** What a term expands to, by expanding a one-property document against the context. */
const expandTerm = async (term: string) => {
  const [node] = (await jsonld.expand({ '@context': context, [term]: 'value' } as JsonLd)) as Record<
    string,
    unknown
  >[];
  return Object.keys(node ?? {});
};
const expandType = async (type: string) => {
  const [node] = (await jsonld.expand({ '@context': context, '@id': 'urn:x', '@type': type } as JsonLd)) as {
    '@type': string[];
  }[];
  return node?.['@type'];
};

describe('the JSON-LD context', () => {
  it.each([
    ['first_name', 'givenName'],
    ['last_name', 'familyName'],
    ['middle_initial', 'additionalName'],
    ['fullname', 'name'],
    ['email', 'email'],
    ['phone_number', 'telephone'],
    ['address1', 'streetAddress'],
    ['city', 'addressLocality'],
    ['state_territory_province', 'addressRegion'],
    ['postal_code', 'postalCode'],
    ['country_code', 'addressCountry'],
    ['date_created', 'dateCreated'],
    ['prefix', 'honorificPrefix'],
    ['suffix', 'honorificSuffix'],
  ])('maps %s to schema:%s', async (term, property) => {
    expect(await expandTerm(term)).toEqual([`${SCHEMA_ORG}${property}`]);
  });

  it.each([
    ['Person', 'Person'],
    ['PostalAddress', 'PostalAddress'],
    ['Email', 'ContactPoint'],
    ['PhoneNumber', 'ContactPoint'],
    ['PersonOrganization', 'OrganizationRole'],
    ['PersonGroup', 'OrganizationRole'],
    ['PersonInitiative', 'OrganizationRole'],
    ['PersonTeam', 'OrganizationRole'],
  ])('maps the type %s to schema:%s', async (type, schemaType) => {
    expect(await expandType(type)).toEqual([`${SCHEMA_ORG}${schemaType}`]);
  });

  it('uses http://schema.org/, the IRI schema.org terms expand to', () => {
    expect(context.schema).toBe('http://schema.org/');
  });

  it('names the service’s own terms as fragments of the context URL', async () => {
    expect(termBaseOf(CONTEXT_URL)).toBe(`${CONTEXT_URL}#`);
    expect(termBaseOf(`${CONTEXT_URL}#old`)).toBe(`${CONTEXT_URL}#`);
    expect(await expandTerm('primary')).toEqual([`${CONTEXT_URL}#primary`]);
  });

  it.each([
    'PersonMemberships',
    'PersonOrganizations',
    'PersonGroups',
    'PersonInitiatives',
    'PersonTeams',
    'organization_fk',
    'group_fk',
    'team_fk',
    'initiative',
    'abbreviation',
    'endpoint',
    'object_id',
    'created_audit_id',
    'modified_audit_id',
    'live_status',
    'erased',
    'validated',
    'checksum',
  ])('maps %s to a term of its own', async (term) => {
    expect(await expandTerm(term)).toEqual([`${CONTEXT_URL}#${term}`]);
  });

  it.each(['PersonMemberships', 'NamePrefix', 'NameSuffix', 'ChangeHistory'])(
    'maps the type %s to a class of its own',
    async (type) => {
      expect(await expandType(type)).toEqual([`${CONTEXT_URL}#${type}`]);
    },
  );

  it('has a term for every property and type of the Person, and for what GRC clients send', () => {
    const terms = [
      ...Object.keys(PersonOut.shape).filter((key) => !key.startsWith('@')),
      ...SET_NAMES,
      ...Object.values(ITEM_TYPES),
      ...SET_NAMES.flatMap((set) => Object.keys(ITEM_FIELDS[set])),
      ...SET_NAMES.flatMap((set) => ITEM_OWNER_KEYS[set]),
      'person_fk',
      'PersonMemberships',
      ...MEMBERSHIP_SETS,
      ...Object.keys(SOCIAL_FIELDS),
      ...Object.keys(PersonOut.shape.CoreMetaData.shape).filter((key) => !key.startsWith('@')),
      ...CORE_METADATA_INPUT_KEYS,
    ];

    expect(terms.filter((term) => !(term in context))).toEqual([]);
  });

  it('has a term for every key and @type of every response the OpenAPI document describes', () => {
    const { schemas } = openApiDocument().components as { schemas: Record<string, JsonSchema> };
    const keys = new Set<string>();
    const types = new Set<string>();
    const seen = new Set<JsonSchema>();
    /** A term mapped to null, or read as a JSON literal, holds no terms of its own. */
    const opaque = (key: string) => {
      const definition = context[key];
      return definition === null || (typeof definition === 'object' && definition['@type'] === '@json');
    };
    const walk = (value: JsonSchema | undefined): void => {
      if (!value || seen.has(value)) return;
      seen.add(value);
      if (typeof value.$ref === 'string') walk(schemas[value.$ref.split('/').pop() as string]);
      for (const nested of [value.items, ...(value.anyOf ?? []), ...(value.oneOf ?? [])])
        walk(nested as JsonSchema | undefined);
      for (const [key, property] of Object.entries(value.properties ?? {})) {
        const constant = (property as JsonSchema).const;
        if (key === '@type' && typeof constant === 'string') types.add(constant);
        if (!key.startsWith('@')) keys.add(key);
        if (!opaque(key)) walk(property as JsonSchema);
      }
    };
    for (const name of Object.keys(RESPONSE_SCHEMAS).filter((name) => name !== 'Problem'))
      walk(schemas[name]);

    expect(keys).toContain('PersonTeams');
    expect(keys).toContain('team_fk');
    expect(keys).toContain('previous_object');
    expect(keys).not.toContain('request_id');
    expect(types).toContain('PersonInitiative');
    expect([...keys, ...types].filter((term) => !(term in context))).toEqual([]);
  });

  it('reads a set as values of its property, with its items’ own properties', async () => {
    const person = {
      '@context': context,
      '@id': 'https://api.example.test/Person/1',
      '@type': 'Person',
      Emails: {
        '@type': 'Emails',
        '@set': [
          { '@type': 'Email', id: 2, email: 'a@example.org', primary: true },
          { '@type': 'Email', id: 3, email: 'b@example.org', primary: false },
        ],
      },
    };

    const quads = (await jsonld.toRDF(person as JsonLd, { format: 'application/n-quads' })) as string;

    const contacts = [
      ...quads.matchAll(
        /^<https:\/\/api\.example\.test\/Person\/1> <http:\/\/schema\.org\/contactPoint> (_:\S+) \.$/gm,
      ),
    ];
    expect(contacts).toHaveLength(2);
    expect(quads).toMatch(/^_:\S+ <http:\/\/schema\.org\/email> "a@example\.org" \.$/m);
    expect(quads).toMatch(/^_:\S+ <http:\/\/schema\.org\/email> "b@example\.org" \.$/m);
  });

  it('leaves the Pagination of a stub list out, so the list reads as a plain set of stubs', async () => {
    const list = {
      '@context': context,
      Pagination: { '@type': 'Pagination', count: 1, limit: 1, offset: 0 },
      '@set': [{ '@type': 'Stub', '@id': 'https://api.example.test/Person/1', id: 1, property_value: 'Ada' }],
    };

    const expanded = await jsonld.expand(list as JsonLd);

    expect(expanded).toEqual([
      {
        '@id': 'https://api.example.test/Person/1',
        '@type': [`${CONTEXT_URL}#Stub`],
        [`${SCHEMA_ORG}identifier`]: [{ '@value': 1 }],
        [`${SCHEMA_ORG}value`]: [{ '@value': 'Ada' }],
      },
    ]);
  });
});

describe('the JSON-LD context reads the new resources', () => {
  const links: Links = { baseUrl: 'https://api.example.test', contextUrl: CONTEXT_URL };
  const inline = <T extends object>(body: T) => ({ ...body, '@context': context }) as unknown as JsonLd;
  const toQuads = async (body: object) =>
    (await jsonld.toRDF(inline(body), { format: 'application/n-quads' })) as string;
  const person: Person = {
    ...emptyPerson(1),
    fullname: 'Ada Lovelace',
    Names: [
      {
        id: 2,
        local_reference_id: null,
        first_name: 'Ada',
        last_name: 'Lovelace',
        middle_initial: null,
        freeform_name: null,
        name_prefix_fk: null,
        name_suffix_fk: null,
        primary: true,
      },
    ],
    PersonTeams: [{ id: 3, local_reference_id: null, name: 'Engine', team_fk: 44 }],
    CoreMetaData: {
      date_created: '2026-01-02T03:04:05.000Z',
      date_modified: '2026-01-02T03:04:05.000Z',
      created_by: 1,
      modified_by: null,
      version: 1,
      created_audit_id: 9,
      modified_audit_id: null,
    },
  };
  const subject = '<https://api.example.test/Person/1>';

  it('links a person to its memberships, each an OrganizationRole with what it is in', async () => {
    const quads = await toQuads(toPersonOut(person, links));

    const memberships = new RegExp(`^${subject} <${CONTEXT_URL}#PersonMemberships> (_:\\S+) \\.$`, 'm').exec(
      quads,
    )?.[1];
    const team = new RegExp(
      `^(_:\\S+) <${CONTEXT_URL}#team_fk> "44"\\^\\^<http://www.w3.org/2001/XMLSchema#integer> \\.$`,
      'm',
    ).exec(quads)?.[1];
    expect(memberships).toBeDefined();
    expect(team).toBeDefined();
    expect(quads).toContain(`${memberships} <${CONTEXT_URL}#PersonTeams> ${team} .`);
    expect(quads).toContain(
      `${team} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${SCHEMA_ORG}OrganizationRole> .`,
    );
    expect(quads).toContain(`${team} <${SCHEMA_ORG}roleName> "Engine" .`);
    expect(quads).toContain(
      `<${CONTEXT_URL}#created_audit_id> "9"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
    );
  });

  it('reads a page of the change feed: its events one JSON literal in their order, its `next` a cursor and no link', async () => {
    const event = cloudEventOf(
      feedEventOf({
        id: 10,
        endpoint: 'Person',
        object_id: 1,
        version: 2,
        action: 'update',
        requester: 1,
        at: '2026-01-03T03:04:05.000Z',
        changed: ['/Names'],
        provider_data: NO_ORIGIN,
      }),
      links.baseUrl,
    );
    const cursor = encodeFeedCursor(FEED_START, 'a key');

    const quads = await toQuads(eventPage(CONTEXT_URL, [event, event], cursor));

    const page = new RegExp(
      `^(_:\\S+) <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${CONTEXT_URL}#EventPage> \\.$`,
      'm',
    ).exec(quads)?.[1];
    expect(page).toBeDefined();
    expect(quads).toContain(`${page} <${CONTEXT_URL}#nextCursor> "${cursor}" .`);
    expect(quads).not.toContain(`${CONTEXT_URL}#next>`);
    expect(quads).toMatch(
      new RegExp(
        `^${page} <${SCHEMA_ORG}dataFeedElement> "\\[\\{.*person\\.updated.*\\},\\{.*\\}\\]"\\^\\^<http://www\\.w3\\.org/1999/02/22-rdf-syntax-ns#JSON> \\.$`,
        'm',
      ),
    );
    // The events' own keys (`type`, `id`, `data`) say nothing about the page or the person.
    expect(quads).not.toContain(`${CONTEXT_URL}#changeType`);
    expect(quads).not.toContain('<https://api.example.test/Person/1>');
  });

  it('reads a change’s `type` as a term of its own, never as the keyword @type', async () => {
    const [node] = (await jsonld.expand(
      inline({ '@id': 'urn:change', '@type': 'ChangeHistory', type: 'PATCH' }),
    )) as Record<string, unknown>[];

    expect(node).toEqual({
      '@id': 'urn:change',
      '@type': [`${CONTEXT_URL}#ChangeHistory`],
      [`${CONTEXT_URL}#changeType`]: [{ '@value': 'PATCH' }],
    });
  });

  it('keeps the objects of a ChangeHistory entry as JSON literals, so old values say nothing of the live object', async () => {
    const entry: ChangeEntry = {
      id: 10,
      endpoint: 'Person',
      object_id: 1,
      version: 2,
      action: 'update',
      requester: 1,
      at: '2026-01-03T03:04:05.000Z',
      changed: ['/Names'],
      provider_data: { ...NO_ORIGIN, user_agent: 'curl/8' },
    };
    const renamed = {
      ...person,
      fullname: 'Ada King',
      Names: [{ ...(person.Names[0] as Person['Names'][number]), last_name: 'King' }],
    };

    const quads = await toQuads(changeHistoryOut(entry, person, renamed, links));

    const change = '<https://api.example.test/ChangeHistory/10>';
    expect(quads).toContain(
      `${change} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${CONTEXT_URL}#ChangeHistory> .`,
    );
    expect(quads).toContain(`${change} <${CONTEXT_URL}#changeType> "PATCH" .`);
    expect(quads).toContain(`${change} <${CONTEXT_URL}#endpoint> "Person" .`);
    expect(quads).toMatch(
      new RegExp(
        `^${change} <${CONTEXT_URL}#previous_object> ".*Lovelace.*"\\^\\^<http://www\\.w3\\.org/1999/02/22-rdf-syntax-ns#JSON> \\.$`,
        'm',
      ),
    );
    expect(quads).toMatch(new RegExp(`^${change} <${CONTEXT_URL}#provider_data> ".*curl/8.*"\\^\\^`, 'm'));
    expect(quads).toContain(
      `${change} <${CONTEXT_URL}#timestamp> "2026-01-03T03:04:05.000Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .`,
    );
    expect(quads).not.toContain(`${subject} `);
  });
});
