/**
 * The JSON-LD context every response names in `@context` (API.md 2): the API's keys mapped to
 * schema.org where schema.org has the notion, and to terms of the service's own (fragments of the
 * context's URL) where it has not, so a JSON-LD processor turns a response into meaningful triples.
 */
import { SET_NAMES, type SetName } from '../domain/schemas';

/** schema.org's own namespace IRI: what its published context and most processors expand to. */
export const SCHEMA_ORG = 'http://schema.org/';

type TermDefinition = string | null | { '@id': string; '@type'?: string; '@container'?: string };

/** The property that holds each set's items, and the class of the items. */
const SET_TERMS: Record<SetName, { property: string; item: string }> = {
  Names: { property: 'aps:Names', item: 'aps:Name' },
  Emails: { property: 'schema:contactPoint', item: 'schema:ContactPoint' },
  PhoneNumbers: { property: 'schema:contactPoint', item: 'schema:ContactPoint' },
  PersonRoles: { property: 'aps:PersonRoles', item: 'schema:Role' },
  PostalAddresses: { property: 'schema:address', item: 'schema:PostalAddress' },
};

const ITEM_CLASSES = {
  Name: SET_TERMS.Names.item,
  Email: SET_TERMS.Emails.item,
  PhoneNumber: SET_TERMS.PhoneNumbers.item,
  PersonRole: SET_TERMS.PersonRoles.item,
  PostalAddress: SET_TERMS.PostalAddresses.item,
};

const dateTime = (id: string): TermDefinition => ({ '@id': id, '@type': 'xsd:dateTime' });
const link = (id: string): TermDefinition => ({ '@id': id, '@type': '@id' });

/**
 * The context document. `termBase` names the service's own terms: the context's URL plus `#`.
 *
 * A set arrives as `{ "@type": "Names", "@set": [...] }`, which JSON-LD does not allow as it is (a set
 * object holds nothing but `@set` and `@index`; jsonld.js keeps it on expansion, then fails to make
 * triples of it). Declared as index maps, the sets read as intended: every item becomes a value of the
 * set's property, indexed "@set", and the container's `@type` one plain literal indexed "@type".
 * `Pagination` of the stub list is paging metadata, not data: null keeps the list a plain set.
 */
export const jsonLdContext = (termBase: string) => {
  const context: Record<string, TermDefinition> = {
    schema: SCHEMA_ORG,
    xsd: 'http://www.w3.org/2001/XMLSchema#',
    aps: termBase,

    Person: 'schema:Person',
    id: 'schema:identifier',
    fullname: 'schema:name',
    email: 'schema:email',
    local_reference_id: 'aps:local_reference_id',
    ...Object.fromEntries(
      SET_NAMES.map((set) => [set, { '@id': SET_TERMS[set].property, '@container': '@index' }]),
    ),
    ...ITEM_CLASSES,
    primary: 'aps:primary',
    person_fk: 'aps:person_fk',

    first_name: 'schema:givenName',
    last_name: 'schema:familyName',
    middle_initial: 'schema:additionalName',
    freeform_name: 'schema:name',
    name_prefix_fk: 'aps:name_prefix_fk',
    name_suffix_fk: 'aps:name_suffix_fk',
    phone_number: 'schema:telephone',
    name: 'schema:roleName',
    role_fk: 'aps:role_fk',
    address1: 'schema:streetAddress',
    address2: 'schema:extendedAddress',
    city: 'schema:addressLocality',
    state_territory_province: 'schema:addressRegion',
    postal_code: 'schema:postalCode',
    country: 'schema:addressCountry',
    country_code: 'schema:addressCountry',

    SocialAddresses: 'aps:SocialAddresses',
    twitter: 'aps:twitter',
    facebook: 'aps:facebook',
    linkedin: 'aps:linkedin',
    youtube: 'aps:youtube',

    CoreMetaData: 'aps:CoreMetaData',
    date_created: dateTime('schema:dateCreated'),
    date_modified: dateTime('schema:dateModified'),
    created_by: 'aps:created_by',
    modified_by: 'aps:modified_by',
    version: 'schema:version',

    Pagination: null,
    Stub: 'aps:Stub',
    property_name: 'aps:property_name',
    property_value: 'schema:value',
    thing_type: 'aps:thing_type',

    PaginatedList: 'schema:ItemList',
    itemType: 'aps:itemType',
    page: 'aps:page',
    perPage: 'aps:perPage',
    total: 'schema:numberOfItems',
    previousPage: link('aps:previousPage'),
    nextPage: link('aps:nextPage'),
    items: { '@id': 'schema:itemListElement', '@container': '@list' },

    AuditEntry: 'aps:AuditEntry',
    person_id: 'aps:person_id',
    action: 'aps:action',
    requester: 'aps:requester',
    at: dateTime('aps:at'),
    changed: { '@id': 'aps:changed', '@container': '@set' },

    Prefix: 'aps:Prefix',
    prefix: 'schema:honorificPrefix',
    Suffix: 'aps:Suffix',
    suffix: 'schema:honorificSuffix',
  };
  return { '@context': context };
};

/** The service's own terms are fragments of the context document that defines them. */
export const termBaseOf = (contextUrl: string) => `${contextUrl.replace(/#.*$/, '')}#`;
