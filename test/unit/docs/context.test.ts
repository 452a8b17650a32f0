import jsonld from 'jsonld';
import type { JsonLd } from 'jsonld/jsonld-spec';
import { describe, expect, it } from 'vitest';
import { jsonLdContext, SCHEMA_ORG, termBaseOf } from '../../../lib/docs/context';
import { ITEM_FIELDS, ITEM_TYPES, PersonOut, SET_NAMES, SOCIAL_FIELDS } from '../../../lib/domain/schemas';

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
  ])('maps %s to schema:%s', async (term, property) => {
    expect(await expandTerm(term)).toEqual([`${SCHEMA_ORG}${property}`]);
  });

  it.each([
    ['Person', 'Person'],
    ['PostalAddress', 'PostalAddress'],
    ['Email', 'ContactPoint'],
    ['PhoneNumber', 'ContactPoint'],
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

  it('has a term for every property and type of the Person', () => {
    const terms = [
      ...Object.keys(PersonOut.shape).filter((key) => !key.startsWith('@')),
      ...SET_NAMES,
      ...Object.values(ITEM_TYPES),
      ...SET_NAMES.flatMap((set) => Object.keys(ITEM_FIELDS[set])),
      'person_fk',
      ...Object.keys(SOCIAL_FIELDS),
      ...Object.keys(PersonOut.shape.CoreMetaData.shape).filter((key) => !key.startsWith('@')),
    ];

    expect(terms.filter((term) => !(term in context))).toEqual([]);
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
