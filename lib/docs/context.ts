/**
 * The JSON-LD context every response names in `@context` (API.md 2): the API's keys mapped to
 * schema.org where schema.org has the notion, and to terms of the service's own (fragments of the
 * context's URL) where it has not, so a JSON-LD processor turns a response into meaningful triples.
 */
import { ITEM_TYPES, SET_NAMES, type SetName } from '../domain/schemas';

/** schema.org's own namespace IRI: what its published context and most processors expand to. */
export const SCHEMA_ORG = 'http://schema.org/';

type TermDefinition =
  | string
  | null
  | {
      '@id': string;
      '@type'?: string;
      '@container'?: string;
      /** A type-scoped context (JSON-LD 1.1): what terms mean in a node of this type. */
      '@context'?: Record<string, TermDefinition>;
    };

/**
 * The property that holds each set's items, and the class of the items. A membership (in an
 * organization, group, initiative or team: all organizations in schema.org's sense) is an
 * OrganizationRole whose `*_fk` names what it is in. The four sets keep properties of their own: they
 * hang off the `PersonMemberships` container, not the person, so schema.org's `memberOf` would say
 * the container is the member.
 */
const SET_TERMS: Record<SetName, { property: string; item: string }> = {
  Names: { property: 'aps:Names', item: 'aps:Name' },
  Emails: { property: 'schema:contactPoint', item: 'schema:ContactPoint' },
  PhoneNumbers: { property: 'schema:contactPoint', item: 'schema:ContactPoint' },
  PersonRoles: { property: 'aps:PersonRoles', item: 'schema:Role' },
  PostalAddresses: { property: 'schema:address', item: 'schema:PostalAddress' },
  PersonOrganizations: { property: 'aps:PersonOrganizations', item: 'schema:OrganizationRole' },
  PersonGroups: { property: 'aps:PersonGroups', item: 'schema:OrganizationRole' },
  PersonInitiatives: { property: 'aps:PersonInitiatives', item: 'schema:OrganizationRole' },
  PersonTeams: { property: 'aps:PersonTeams', item: 'schema:OrganizationRole' },
};

/** Each item `@type` (`Name`, `PersonTeam`, ...) to its class. */
const ITEM_CLASSES = Object.fromEntries(SET_NAMES.map((set) => [ITEM_TYPES[set], SET_TERMS[set].item]));

const dateTime = (id: string): TermDefinition => ({ '@id': id, '@type': 'xsd:dateTime' });
const link = (id: string): TermDefinition => ({ '@id': id, '@type': '@id' });
/**
 * A JSON literal (JSON-LD 1.1's `@json`): kept as the JSON it is, not read as statements. The objects
 * a ChangeHistory entry holds carry the `@id` of the live object; read as data they would merge the
 * old and the new values into the object's own description.
 */
const jsonLiteral = (id: string): TermDefinition => ({ '@id': id, '@type': '@json' });

/**
 * The context document. `termBase` names the service's own terms: the context's URL plus `#`.
 *
 * A set arrives as `{ "@type": "Names", "@set": [...] }`, which JSON-LD does not allow as it is (a set
 * object holds nothing but `@set` and `@index`; jsonld.js keeps it on expansion, then fails to make
 * triples of it). Declared as index maps, the sets read as intended: every item becomes a value of the
 * set's property, indexed "@set", and the container's `@type` one plain literal indexed "@type".
 * `PersonMemberships` is a container of four such sets. `Pagination` of GRC's lists is paging
 * metadata, not data: null keeps a list a plain set. ChangeHistory's `type` (POST, PATCH, ENRICH) is
 * a term of its own, `aps:changeType`; it is no alias of `@type`, which stays the keyword.
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
    organization_fk: 'aps:organization_fk',

    first_name: 'schema:givenName',
    last_name: 'schema:familyName',
    middle_initial: 'schema:additionalName',
    freeform_name: 'schema:name',
    name_prefix_fk: 'aps:name_prefix_fk',
    name_suffix_fk: 'aps:name_suffix_fk',
    phone_number: 'schema:telephone',
    name: 'schema:roleName',
    role_fk: 'aps:role_fk',
    PersonMemberships: 'aps:PersonMemberships',
    group_fk: 'aps:group_fk',
    team_fk: 'aps:team_fk',
    initiative: 'aps:initiative',
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
    created_audit_id: 'aps:created_audit_id',
    modified_audit_id: 'aps:modified_audit_id',
    live_status: 'aps:live_status',
    erased: dateTime('aps:erased'),
    validated: 'aps:validated',
    checksum: 'aps:checksum',
    // GRC's CoreMetaData keys that clients send and the service ignores (API.md 11.1).
    deprecated_notes: 'aps:deprecated_notes',
    superceded_by: 'aps:superceded_by',

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

    // An unmerge's answer (API.md 13.1): the two persons, each a Person node of its own.
    Unmerge: 'aps:Unmerge',
    survivor: 'aps:survivor',
    source: 'aps:source',

    PersonExport: 'aps:PersonExport',
    next: link('aps:next'),

    // A page of the change feed: its CloudEvents are JSON (their own spec's, with no context), kept as
    // one JSON literal in their order; its `next` is a cursor, not a link, in a page of this type.
    EventPage: { '@id': 'aps:EventPage', '@context': { next: 'aps:nextCursor' } },
    events: jsonLiteral('schema:dataFeedElement'),

    // Duplicates under review: a pair's evidence (`features`, as reconciliation's) is kept as one JSON
    // literal; a page's `next` is a cursor, as the feed's.
    DuplicatePair: 'aps:DuplicatePair',
    persons: { '@id': 'aps:persons', '@container': '@list' },
    score: 'aps:score',
    grade: 'aps:grade',
    features: jsonLiteral('aps:features'),
    detected: dateTime('aps:detected'),
    status: 'aps:status',
    decided_by: 'aps:decided_by',
    decided: dateTime('aps:decided'),
    DuplicatePage: { '@id': 'aps:DuplicatePage', '@context': { next: 'aps:nextCursor' } },
    pairs: { '@id': 'aps:pairs', '@container': '@list' },

    // Webhook subscriptions: where and which events are pushed; the secret is shown once.
    Subscription: 'aps:Subscription',
    url: link('aps:url'),
    description: 'schema:description',
    types: { '@id': 'aps:types', '@container': '@set' },
    paused: 'aps:paused',
    paused_reason: 'aps:paused_reason',
    secret: 'aps:secret',
    DeliveryPage: { '@id': 'aps:DeliveryPage', '@context': { next: 'aps:nextCursor' } },
    deliveries: { '@id': 'aps:deliveries', '@container': '@list' },
    event: 'aps:event',
    outcome: 'aps:outcome',
    duration_ms: 'aps:duration_ms',
    attempt: 'aps:attempt',
    error: 'aps:error',
    Replay: 'aps:Replay',
    subscription: link('aps:subscription'),
    after: 'aps:afterCursor',

    AuditEntry: 'aps:AuditEntry',
    person_id: 'aps:person_id',
    action: 'aps:action',
    requester: 'aps:requester',
    at: dateTime('aps:at'),
    changed: { '@id': 'aps:changed', '@container': '@set' },

    NamePrefix: 'aps:NamePrefix',
    NameSuffix: 'aps:NameSuffix',
    Prefix: 'aps:Prefix',
    Suffix: 'aps:Suffix',
    prefix: 'schema:honorificPrefix',
    suffix: 'schema:honorificSuffix',
    abbreviation: 'aps:abbreviation',

    ChangeHistory: 'aps:ChangeHistory',
    endpoint: 'aps:endpoint',
    object_id: 'aps:object_id',
    type: 'aps:changeType',
    previous_object: jsonLiteral('aps:previous_object'),
    current_object: jsonLiteral('aps:current_object'),
    provider_data: jsonLiteral('aps:provider_data'),
    timestamp: dateTime('aps:timestamp'),
  };
  return { '@context': context };
};

/** The service's own terms are fragments of the context document that defines them. */
export const termBaseOf = (contextUrl: string) => `${contextUrl.replace(/#.*$/, '')}#`;
