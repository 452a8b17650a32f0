/**
 * What the OpenAPI document says about each route of lib/api/routes.ts, by the route's operationId:
 * the prose, and which of the zod schemas, headers and problem types apply. Schemas themselves are
 * never written here; they come from lib/domain (and lib/docs/response-schemas.ts) through zod's JSON
 * Schema output, and the query parameters from the very zod schemas the handlers read the query with.
 */
import type { z } from 'zod';
import type { ProblemType } from '../api/problems';
import { PROBLEM_TYPE_NAMES, problemTypeUri } from '../api/problems';
import type { RequesterRule } from '../api/requester';
import type { OperationId } from '../api/routes';
import { DUPLICATES_DEFAULTS, DuplicatesQuery } from '../domain/duplicates';
import {
  ChangeHistoryQuery,
  EXPORT_DEFAULTS,
  ExportPersonsQuery,
  FEED_DEFAULTS,
  LIST_DEFAULTS,
  ListEventsQuery,
  ListPersonsQuery,
  MAX_CHANGES_PER_PAGE,
  PAGE_DEFAULTS,
  PageQuery,
  vocabularyListQuery,
} from '../domain/listing';
import { RECONCILE_LIMITS } from '../domain/reconcile';
import { LIMITS } from '../domain/schemas';
import { DELIVERIES_DEFAULTS, DeliveriesQuery } from '../domain/subscriptions';
import { VOCABULARIES, type VocabularyKind } from '../domain/vocabulary';
import { DOCS_ASSET_NAMES } from './docs-page';
import type { JsonSchema } from './json-schema';
import type { ResponseSchemaName } from './response-schemas';

export type { ResponseSchemaName } from './response-schemas';

export type Tag =
  | 'Person'
  | 'Vocabularies'
  | 'ChangeHistory'
  | 'Feed'
  | 'Matching'
  | 'Duplicates'
  | 'Webhooks'
  | 'Self-description';

export const TAGS: Record<Tag, string> = {
  Person: 'Person records: list, read, create, update, and their change history',
  Vocabularies:
    'The NamePrefix and NameSuffix vocabularies that `name_prefix_fk` and `name_suffix_fk` refer to, ' +
    'and their older read-only `/Prefix` and `/Suffix` view',
  ChangeHistory:
    'One entry per stored change of any object (Person, NamePrefix, NameSuffix), with the object before ' +
    'and after it',
  Feed:
    'The change feed: one CloudEvents 1.0 event per stored change, read oldest first with a cursor, for ' +
    'systems that keep a copy or react to changes',
  Matching:
    'The W3C Entity Reconciliation Service API 0.2 (the one OpenRefine 3.x speaks): candidates for names ' +
    'and emails, suggest, preview and data extension; CORS for any origin, JSONP with `callback`',
  Duplicates:
    "The store's own duplicates, found by the matcher after each change: a review queue of pairs with " +
    'grades and evidence, and the decision a steward takes on each (not a duplicate, or merge)',
  Webhooks:
    'The change feed pushed: each event a subscription takes is POSTed to its URL, signed as Standard ' +
    'Webhooks 1.0 says, in feed order, retried for 24 hours; never to a private or internal address',
  'Self-description':
    'This document, the JSON Schema of the Person, the JSON-LD context, this page and the pages that ' +
    'problem types resolve to; public, for tools',
};

export type RequestSchemaName =
  | 'PersonCreate'
  | 'PersonPatch'
  | 'PersonMerge'
  | 'PersonUnmerge'
  | 'PrincipalBinding'
  | 'DuplicateDecision'
  | 'SubscriptionCreate'
  | 'SubscriptionPatch'
  | 'SubscriptionReplay'
  | 'NamePrefixCreate'
  | 'NamePrefixPatch'
  | 'NameSuffixCreate'
  | 'NameSuffixPatch';

export type ResponseHeader = 'ETag' | 'Location';

export interface SuccessDoc {
  /** 410 is here for the tombstone an erased person's GET answers: a body of its own, not a problem. */
  status: 200 | 201 | 202 | 204 | 301 | 303 | 304 | 410;
  description: string;
  /** A JSON body in the negotiated media types; several names mean one of them. */
  json?: ResponseSchemaName | ResponseSchemaName[];
  /** A body of a fixed media type: media type to schema. */
  content?: Record<string, JsonSchema>;
  headers?: ResponseHeader[];
}

/** What a parameter means and the default the service applies when it is not sent. */
export interface ParameterDoc {
  description: string;
  default?: unknown;
}

export interface OperationDoc {
  tag: Tag;
  summary: string;
  description: string;
  /** Every key of the schema becomes a query parameter, described in QUERY_PARAMETERS. */
  query?: z.ZodObject;
  /** What a query parameter means for this operation, where QUERY_PARAMETERS says it too generally. */
  parameters?: Record<string, ParameterDoc>;
  body?: { schema: RequestSchemaName; description: string; example: unknown };
  requester?: RequesterRule;
  /**
   * `false` for a write that takes no `Idempotency-Key` (API.md 5.6): one that is safe to send again by
   * itself, as an erasure is (a second answers the same tombstone and writes nothing), and that must
   * never answer a stored answer about a person it erased.
   */
  idempotencyKey?: false;
  /**
   * The conditional headers the operation honours (API.md 2.1): a read answers 304 to If-None-Match;
   * a write takes If-Match and If-None-Match and answers 412 when they do not hold; an erasure takes
   * If-Match only (it creates nothing that If-None-Match could refuse).
   */
  conditional?: 'read' | 'write' | 'erase';
  success: SuccessDoc[];
  problems: ProblemType[];
}

const FOLDED = 'case and accents are ignored';

/** Query parameters by name: what they mean and the default the service applies. */
export const QUERY_PARAMETERS: Record<string, ParameterDoc> = {
  first_name: { description: `Part of any of the person's first names; ${FOLDED}` },
  last_name: { description: `Part of any of the person's last names; ${FOLDED}` },
  email: { description: `Part of any of the person's email addresses; ${FOLDED}` },
  search: {
    description: `Part of the fullname, any first, last or freeform name, or any email; ${FOLDED}`,
  },
  prefix: { description: `Part of the prefix ("Doctor"); ${FOLDED}` },
  suffix: { description: `Part of the suffix ("Esquire"); ${FOLDED}` },
  abbreviation: { description: `Part of the abbreviation ("Dr."); ${FOLDED}` },
  endpoint: { description: 'Only changes of this kind of object' },
  object_id: { description: 'Only changes of the object with this id (with `endpoint`: one object)' },
  sort_dir: { description: 'Order: 1 ascending, 0 descending', default: '1' },
  limit: {
    description: 'How many items to return (0 returns only the count); not combined with page/perPage',
    default: LIST_DEFAULTS.limit,
  },
  offset: {
    description: 'Position of the first item to return; not combined with page/perPage',
    default: LIST_DEFAULTS.offset,
  },
  page: { description: 'Page number, from 1', default: PAGE_DEFAULTS.page },
  perPage: { description: 'Items per page', default: PAGE_DEFAULTS.perPage },
};

/** Path parameters by name. `{id}` takes its schema from the Person's `id`. */
export const PATH_PARAMETERS: Record<string, { description: string; schema?: JsonSchema }> = {
  id: { description: 'The id' },
  kind: {
    description: 'What to suggest: persons, properties or types',
    schema: { type: 'string', enum: ['entity', 'property', 'type'] },
  },
  asset: {
    description: 'A file of the documentation page',
    schema: { type: 'string', enum: DOCS_ASSET_NAMES },
  },
  pairId: {
    description: 'A duplicate pair: its two person ids, lower first (`30863-41207`)',
    schema: { type: 'string', pattern: '^[1-9][0-9]{0,15}-[1-9][0-9]{0,15}$' },
  },
  name: {
    description: 'The name of a problem type: the last segment of its `type` (`/problems/duplicate-email`)',
    schema: { type: 'string', enum: PROBLEM_TYPE_NAMES },
  },
};

const STORAGE_PROBLEMS: ProblemType[] = ['unavailable', 'internal-error'];
/**
 * What any write can be refused for, its `Idempotency-Key` (API.md 5.6) included, and with requester
 * binding on (API.md 9.1) its caller.
 */
const REQUEST_PROBLEMS: ProblemType[] = [
  'validation-error',
  'unauthorized',
  'missing-requester',
  'invalid-requester',
  'unknown-requester',
  'requester-mismatch',
  'payload-too-large',
  'unsupported-media-type',
  'request-in-progress',
  'idempotency-key-reused',
];
const WRITE_PROBLEMS: ProblemType[] = [
  ...REQUEST_PROBLEMS,
  'duplicate-email',
  'duplicate-name',
  ...STORAGE_PROBLEMS,
];

const PERSON_RESPONSE_NOTE =
  'Empty sets hold one example object (`@type` and every property null). `fullname`, `email`, `id`, ' +
  "the ownership keys `person_fk` and `organization_fk` (null on a person's own items) and " +
  '`CoreMetaData` are read only.';

const LIST_STYLES =
  'With `limit`/`offset` (or neither) the answer is GRC\'s list, `{ "@context", "Pagination": { count, ' +
  'limit, offset }, "@set" }`; with `page`/`perPage` it is the PaginatedList envelope. Mixing the two ' +
  'styles is 400.';

const createExample = {
  '@type': 'Person',
  local_reference_id: '1808bd7f-c99d-4ed0-8310-87483427041f',
  Names: {
    '@type': 'Names',
    '@set': [
      {
        '@type': 'Name',
        first_name: 'John',
        last_name: 'Smith',
        name_prefix_fk: 21,
        primary: true,
        local_reference_id: 'name-1',
      },
    ],
  },
  Emails: { '@type': 'Emails', '@set': [{ '@type': 'Email', email: 'jsmith@no-reply.org', primary: 1 }] },
};

const patchExample = {
  Emails: { '@type': 'Emails', '@set': [{ '@type': 'Email', id: 610, email: 'john.smith@no-reply.org' }] },
  PhoneNumbers: {
    '@type': 'PhoneNumbers',
    '@set': [{ '@type': 'PhoneNumber', phone_number: '+1 555 0100', primary: true }],
  },
  PostalAddresses: {
    '@type': 'PostalAddresses',
    '@set': [{ '@type': 'PostalAddress', id: 700, local_reference_id: 'address-1' }],
  },
  PersonMemberships: {
    '@type': 'PersonMemberships',
    PersonTeams: {
      '@type': 'PersonTeams',
      '@set': [{ '@type': 'PersonTeam', name: 'Audit committee', team_fk: 12, local_reference_id: 'team-1' }],
    },
  },
};

const json = (type: string): JsonSchema => ({ type: 'object', description: `A ${type} document` });

const CONDITIONAL_WRITE_NOTE =
  'If-Match (`*`, or a list of ETags) applies the change only when it names the current version, ' +
  'compared strongly: a weak tag (`W/"2"`) never matches a write. If-None-Match `*`, or a tag naming ' +
  'the current version, refuses it (the object exists). Either refusal is 412 with the current ETag, ' +
  'and its `detail` says why: another version, a weak tag, or something that is not an entity tag.';

/** The two vocabularies differ only in their names (API.md 11.4). */
const vocabularyOperations = (kind: VocabularyKind) => {
  const { term, view } = VOCABULARIES[kind];
  const example =
    kind === 'NamePrefix'
      ? { text: 'Captain', abbreviation: 'Capt.', changed: 'Cpt.' }
      : { text: 'Doctor of Laws', abbreviation: 'LLD', changed: 'LL.D.' };
  const writeNote =
    `Needs \`x-requester-person\` (an existing person) and writes a ChangeHistory entry. The \`abbreviation\` ` +
    `is unique within the ${kind} vocabulary, compared without case and accents (409 ` +
    '`duplicate-abbreviation`). `local_reference_id` is stored and echoed. There is no delete: persons may ' +
    'point at any entry.';
  const getEntry = {
    tag: 'Vocabularies',
    summary: `Get a ${kind}`,
    description: `One ${kind} entry, with its version as a strong ETag; 404 for an id that names none.`,
    conditional: 'read',
    success: [
      { status: 200, description: `The ${kind}`, json: kind, headers: ['ETag'] },
      { status: 304, description: 'The ETag sent in If-None-Match is current', headers: ['ETag'] },
    ],
    problems: ['not-found', 'precondition-failed', ...STORAGE_PROBLEMS],
  } satisfies OperationDoc;
  return {
    list: {
      tag: 'Vocabularies',
      summary: `List the ${kind} vocabulary`,
      description:
        `The ${kind} entries matching every given filter, ordered by id. ${LIST_STYLES} The seeded ids are ` +
        `GRC's, so stored \`name_${term}_fk\` values keep their meaning.`,
      query: vocabularyListQuery(kind),
      parameters: {
        search: { description: `Part of the ${term} or the abbreviation; ${FOLDED}` },
        sort_dir: { description: 'Order by id: 1 ascending, 0 descending', default: '1' },
      },
      success: [
        {
          status: 200,
          description: `GRC's list of ${kind} entries, or with page/perPage a PaginatedList of them`,
          json: [`${kind}List`, `Paginated${kind}List`],
        },
      ],
      problems: ['validation-error', ...STORAGE_PROBLEMS],
    },
    create: {
      tag: 'Vocabularies',
      summary: `Add a ${kind}`,
      description: `A new entry with \`${term}\` and \`abbreviation\`, both required. ${writeNote}`,
      body: {
        schema: `${kind}Create`,
        description: `A ${kind}; \`id\` and \`CoreMetaData\` are ignored`,
        example: {
          '@type': kind,
          [term]: example.text,
          abbreviation: example.abbreviation,
          local_reference_id: `${term}-1`,
        },
      },
      requester: 'update',
      success: [
        { status: 201, description: `The created ${kind}`, json: kind, headers: ['ETag', 'Location'] },
      ],
      problems: [...REQUEST_PROBLEMS, 'duplicate-abbreviation', ...STORAGE_PROBLEMS],
    },
    get: getEntry,
    update: {
      tag: 'Vocabularies',
      summary: `Change a ${kind}`,
      description:
        `Send the entry as GET returned it, with changes: \`${term}\`, \`abbreviation\` and ` +
        `\`local_reference_id\` sent are changed, absent ones kept. Persons' stored fullnames are not ` +
        `rewritten; each one's next write is. ${writeNote} ${CONDITIONAL_WRITE_NOTE}`,
      body: {
        schema: `${kind}Patch`,
        description: `The ${kind} as GET returned it, with changes; everything optional`,
        example: { abbreviation: example.changed },
      },
      requester: 'update',
      conditional: 'write',
      success: [{ status: 200, description: `The changed ${kind}`, json: kind, headers: ['ETag'] }],
      problems: [
        ...REQUEST_PROBLEMS,
        'duplicate-abbreviation',
        'not-found',
        'precondition-failed',
        ...STORAGE_PROBLEMS,
      ],
    },
    viewList: {
      tag: 'Vocabularies',
      summary: `List ${view.toLowerCase()}es (the ${kind} view)`,
      description:
        `The ${kind} entries by id in the PaginatedList envelope, each with \`${term}\` and ` +
        `\`abbreviation\` only. \`/${kind}\` answers the full entries and takes filters.`,
      query: PageQuery,
      success: [{ status: 200, description: `A page of ${view}es`, json: `Paginated${view}List` }],
      problems: ['validation-error', ...STORAGE_PROBLEMS],
    },
    viewGet: {
      tag: 'Vocabularies',
      summary: `Get a ${view.toLowerCase()} (the ${kind} view)`,
      description:
        `The ${kind} entry of this id with \`${term}\` and \`abbreviation\` only, with the entry's ETag; ` +
        '404 for an id that names none.',
      conditional: 'read',
      success: [
        { status: 200, description: `The ${view}`, json: view, headers: ['ETag'] },
        { status: 304, description: 'The ETag sent in If-None-Match is current', headers: ['ETag'] },
      ],
      problems: ['not-found', 'precondition-failed', ...STORAGE_PROBLEMS],
    },
  } satisfies Record<string, OperationDoc>;
};

const prefixes = vocabularyOperations('NamePrefix');
const suffixes = vocabularyOperations('NameSuffix');

/** By operationId: the compiler holds this table to one description per route of the route table. */
const RECONCILE_PROBLEMS: ProblemType[] = [
  'validation-error',
  'payload-too-large',
  'unsupported-media-type',
  'unavailable',
  'internal-error',
];

/** A Reconciliation API answer: its shape is the 0.2 specification's (reconciliation-api/specs). */
const reconcileJson = (description: string): SuccessDoc[] => [
  {
    status: 200,
    description,
    content: {
      'application/json': { type: 'object' },
      'application/javascript': { type: 'string', description: 'With `callback`: the JSON as a JSONP call' },
    },
  },
];

const RECONCILE_USE =
  'Parameters the Reconciliation API does not define (`_`, `spell`, `exact`, `prefixed`, `scoring`, ' +
  '`type`) are ignored, never refused; `callback` (a function name) answers JSONP. Anyone may read it ' +
  'from a browser page (CORS for any origin, no credentials).';

/** What a batch of `queries` may hold (API.md 12, the 0.2 query schema), said by both of its operations. */
const RECONCILE_BATCH =
  `A batch holds at most ${RECONCILE_LIMITS.maxQueries} queries; each has \`query\` (a string) or at least ` +
  'one property in `properties`, and only the members the 0.2 query schema defines (`query`, `type`, ' +
  '`limit`, `properties`, `type_strict`). A batch past the limit, or a query the schema refuses, is 400 ' +
  'validation-error naming the limit or the offending member.';

const RECONCILE_OPERATIONS = {
  reconcile: {
    tag: 'Matching',
    summary: 'Reconciliation service: manifest, queries, data extension',
    description:
      'Without parameters: the service manifest. With `queries` (a JSON object of queries keyed `q0`, ' +
      '`q1`, ...: `query`, `type`, `limit`, `properties` [{`pid`, `v`}] with `email`, `first_name`, ' +
      '`last_name`): for each, candidates `{id, name, type, score, match, features}`, best first. The ' +
      'score (0 to 100) is the trigram similarity of the folded name (an exact email: 100); `match` is ' +
      'true for one candidate only when certain (its email, or a unique exact name with no close ' +
      'second). With `extend` ({"ids": [...], "properties": [{"id": ...}]}): the values of those ' +
      `properties, rows keyed by the ids as sent. ${RECONCILE_BATCH} ${RECONCILE_USE}`,
    success: reconcileJson('The manifest, the candidates of each query, or the extension rows'),
    problems: RECONCILE_PROBLEMS,
  },
  reconcileBatch: {
    tag: 'Matching',
    summary: 'Reconciliation queries or data extension, form-encoded',
    description:
      'The same as `GET /reconcile`, with `queries` or `extend` in a form-encoded body ' +
      '(`application/x-www-form-urlencoded`), as OpenRefine sends them; a body of another media type ' +
      `(JSON included) is 415. ${RECONCILE_BATCH}`,
    success: reconcileJson('The candidates of each query, or the extension rows'),
    problems: RECONCILE_PROBLEMS,
  },
  suggestReconcile: {
    tag: 'Matching',
    summary: 'Suggest persons, properties or types',
    description: `Entries whose name holds \`prefix\` (entity: persons; property; type). ${RECONCILE_USE}`,
    success: reconcileJson('The suggestions, `{"result": [...]}`'),
    problems: ['not-found', ...RECONCILE_PROBLEMS],
  },
  proposeProperties: {
    tag: 'Matching',
    summary: 'Properties for data extension',
    description: `The properties data extension can return (\`limit\` at most). ${RECONCILE_USE}`,
    success: reconcileJson('`{"type": "Person", "properties": [{id, name}]}`'),
    problems: RECONCILE_PROBLEMS,
  },
  previewPerson: {
    tag: 'Matching',
    summary: 'A person as a small HTML card',
    description:
      'The card OpenRefine shows in an iframe (so it may be framed): the name, the id, and the details ' +
      'the service shows. `id` is the person id.',
    success: [{ status: 200, description: 'The card', content: { 'text/html': { type: 'string' } } }],
    problems: ['not-found', ...RECONCILE_PROBLEMS],
  },
} satisfies Record<string, OperationDoc>;

export const OPERATIONS: Record<OperationId, OperationDoc> = {
  ...RECONCILE_OPERATIONS,
  listPersons: {
    tag: 'Person',
    summary: 'List person stubs',
    description:
      'Stubs of the persons matching every given filter, ordered by fullname (folded), ties by id. ' +
      '`local_reference_id` finds the persons whose own (root) `local_reference_id` is exactly the value ' +
      "sent (the client's key: case-sensitive, no substring), alone or with the other filters; it reads " +
      `only what it finds. A value longer than ${LIMITS.localReferenceId} characters (longer than any ` +
      `stored one) is 400. ${LIST_STYLES}`,
    query: ListPersonsQuery,
    parameters: {
      local_reference_id: {
        description:
          "Exactly the person's root `local_reference_id` (case-sensitive, whole value; sub-objects' are not " +
          `matched); at most ${LIMITS.localReferenceId} characters. A person merged into another is found as ` +
          'its survivor (the live end of its chain), once, as long as the merge stands',
      },
      sort_dir: { description: 'Order by fullname: 1 ascending, 0 descending', default: '1' },
      limit: {
        description: 'How many stubs to return (0 returns only the count); not combined with page/perPage',
        default: LIST_DEFAULTS.limit,
      },
      offset: {
        description: 'Position of the first stub to return; not combined with page/perPage',
        default: LIST_DEFAULTS.offset,
      },
    },
    success: [
      {
        status: 200,
        description: 'The stub list, or with page/perPage a PaginatedList of stubs',
        json: ['StubList', 'PaginatedStubList'],
      },
    ],
    problems: ['validation-error', ...STORAGE_PROBLEMS],
  },
  createPerson: {
    tag: 'Person',
    summary: 'Create a person',
    description:
      'At least one Name: structured (`first_name` and `last_name`) or `freeform_name`. The first Name ' +
      "and the first Email become primary when none is; `primary` takes `true`/`false` or GRC's `1`/`0`, " +
      "and on Names GRC's alias types `2` and `3` (not primary, kept as sent). `id`, `fullname`, " +
      "`email`, `CoreMetaData` (ours or GRC's keys) and the ownership keys `person_fk` and " +
      '`organization_fk` are ignored. `name_prefix_fk`/`name_suffix_fk` must name NamePrefix/NameSuffix ' +
      'entries. Email addresses are unique across the system, and a person without email is unique by ' +
      `name (409). The body may be at most ${LIMITS.bodyBytes / 1024} KiB.`,
    body: {
      schema: 'PersonCreate',
      description: 'A Person; keys not sent are null',
      example: createExample,
    },
    requester: 'create',
    success: [
      {
        status: 201,
        description: `The created Person. ${PERSON_RESPONSE_NOTE}`,
        json: 'Person',
        headers: ['ETag', 'Location'],
      },
    ],
    problems: [...WRITE_PROBLEMS, 'principal-already-bound'],
  },
  exportPersons: {
    tag: 'Person',
    summary: 'Export every person, a page at a time',
    description:
      'Every stored Person, each in full as `GET /Person/{id}` answers it, in pages: follow `next` from ' +
      'the first page until it is null. A page may hold fewer than `limit` persons, even none, while ' +
      '`next` is not null. Each page costs about the same whatever the store holds (at most two index ' +
      'reads and one batch read per 100 persons), so an export of N persons costs about N / limit pages. ' +
      'The pages follow no order a client should rely on. It is no snapshot: a person changed during ' +
      'an export is exported as it is when its page is read, a person renamed during it may come twice ' +
      'or not at all, and one created during it may or may not come. `npm run export` follows the pages ' +
      'and writes NDJSON.',
    query: ExportPersonsQuery,
    parameters: {
      limit: {
        description: `How many persons a page holds at most, 1 to ${EXPORT_DEFAULTS.maxLimit}`,
        default: EXPORT_DEFAULTS.limit,
      },
      cursor: {
        description:
          "Where the page starts: the opaque value the previous page's `next` link carries (leave it out " +
          'for the first page); anything else is 400',
      },
    },
    success: [
      {
        status: 200,
        description: `A page of full Persons and the link to the next page. ${PERSON_RESPONSE_NOTE}`,
        json: 'PersonExport',
      },
    ],
    problems: ['validation-error', ...STORAGE_PROBLEMS],
  },
  getPerson: {
    tag: 'Person',
    summary: 'Get a person',
    description:
      'The full Person, with its version as a strong ETag. A person merged into another answers 301 to ' +
      'its survivor; an erased person answers 410 with its tombstone, which holds nothing personal.',
    conditional: 'read',
    success: [
      { status: 200, description: `The Person. ${PERSON_RESPONSE_NOTE}`, json: 'Person', headers: ['ETag'] },
      {
        status: 301,
        description:
          'The person was merged into another: `Location` names the person that survived it (the live ' +
          'end of the chain, when that one was merged later too); the body links it, with no personal data',
        json: 'MergedPerson',
        headers: ['Location'],
      },
      { status: 304, description: 'The ETag sent in If-None-Match is current', headers: ['ETag'] },
      {
        status: 410,
        description:
          'The person was erased (`DELETE /Person/{id}`): the body is its tombstone, its id and when it ' +
          'was erased, with no personal data',
        json: 'ErasedPerson',
      },
    ],
    problems: ['not-found', 'precondition-failed', ...STORAGE_PROBLEMS],
  },
  getOwnPerson: {
    tag: 'Person',
    summary: "The caller's own person",
    description:
      'With requester binding on: 303 to the person the caller (its token, or its IAM principal) is ' +
      'bound to, the person it registered with `x-requester-person: 0`; 404 when it is bound to none.',
    success: [
      { status: 303, description: "`Location` names the caller's own person", headers: ['Location'] },
    ],
    problems: ['unauthorized', 'not-found', ...STORAGE_PROBLEMS],
  },
  updatePerson: {
    tag: 'Person',
    summary: 'Update a person',
    description:
      'Send the object from GET with changes: root properties sent are changed, absent ones kept. In a ' +
      'set, an element without `id` is added, one with `id` and properties changes that item, and one ' +
      'with only `id` (and `local_reference_id`) deletes it; items not mentioned stay. A deleted ' +
      'element that carried `local_reference_id` comes back as `{ "@type", "id", "local_reference_id" }`. ' +
      'The sets of `PersonMemberships` follow the same rules. ' +
      `Without If-Match the change is merged onto the latest state. ${CONDITIONAL_WRITE_NOTE}`,
    body: {
      schema: 'PersonPatch',
      description: 'The Person as GET returned it, with changes; everything optional',
      example: patchExample,
    },
    requester: 'update',
    conditional: 'write',
    success: [
      {
        status: 200,
        description: `The updated Person. ${PERSON_RESPONSE_NOTE}`,
        json: 'Person',
        headers: ['ETag'],
      },
    ],
    problems: [...WRITE_PROBLEMS, 'not-found', 'merged', 'erased', 'precondition-failed'],
  },
  erasePerson: {
    tag: 'Person',
    summary: 'Erase a person',
    description:
      'The right to erasure (GDPR Art. 17): every personal value of the person and of its sub-objects ' +
      '(names, emails, phone numbers, addresses, roles, memberships, social addresses, the ' +
      '`local_reference_id`s) is removed from the person, from every ChangeHistory entry of it (their ' +
      '`previous_object` and `current_object` become the tombstone; the entries keep their type, time, ' +
      'requester and changed paths), and from search, lists, counts, matching, export and the duplicates ' +
      'queue. Its email and name claims and its principal binding are released: a later create with the ' +
      'same email is a new person with a new id. The id is kept and resolves to a tombstone: GET answers ' +
      '410 with it. Persons merged into this one are erased with it; a merged person itself is 409 ' +
      '`merged`, naming its live end. The answer is the tombstone; a second DELETE answers the same ' +
      'tombstone and writes nothing, so the request is safe to send again and takes no ' +
      '`Idempotency-Key`. One ChangeHistory entry of `type` `ERASE` names the requester and the caller ' +
      'and holds nothing personal; the change feed carries `person.erased`. Afterwards a PATCH or merge ' +
      'of the person is 410 `erased`. With requester binding on, only the person itself (its own ' +
      'principal) or a delegate may erase it. Backups keep older copies for their retention period ' +
      '(SECURITY.md). If-Match (`*`, or a list of ETags) erases only when it names the current version, ' +
      'compared strongly; else 412 with the current ETag.',
    requester: 'update',
    idempotencyKey: false,
    conditional: 'erase',
    success: [{ status: 200, description: 'The tombstone the person is now', json: 'ErasedPerson' }],
    problems: [
      'unauthorized',
      'missing-requester',
      'invalid-requester',
      'unknown-requester',
      'requester-mismatch',
      'delegate-required',
      'not-found',
      'merged',
      'precondition-failed',
      ...STORAGE_PROBLEMS,
    ],
  },
  mergePersons: {
    tag: 'Person',
    summary: 'Merge a duplicate into this person',
    description:
      'The person `source` (the duplicate) is merged into this one (the survivor). Every Email, ' +
      'PhoneNumber, PostalAddress, PersonRole and membership of the source joins the survivor as a ' +
      'non-primary item, keeping its `id` and `local_reference_id`, unless the survivor holds an equal ' +
      'one (the same email address; phone number ignoring spaces and punctuation; address; role or ' +
      'membership key); its Names join unless the survivor has one with the same folded parts; empty ' +
      "SocialAddresses fields take the source's values. The survivor keeps its own values, primaries, " +
      '`local_reference_id` and `created_by`; its version goes one up. The source then answers GET with 301 ' +
      'to the survivor, is gone from lists, counts and matching, and takes no PATCH (409 `merged`); a ' +
      'write naming it as requester acts as the survivor. Both get a MERGE ChangeHistory entry. The same ' +
      'merge sent again answers the survivor and changes nothing. `"preview": true` answers the same and ' +
      'writes nothing. With requester binding on, a merge (its preview too) is for delegates only (a ' +
      'token with the scope `persons/delegate`, or an IAM principal listed in the deploy option ' +
      "`delegates`; else 403 `delegate-required`, nothing written): it moves the source's binding to the " +
      `survivor. ${CONDITIONAL_WRITE_NOTE}`,
    body: {
      schema: 'PersonMerge',
      description: 'The duplicate to merge into this person',
      example: { source: 30958 },
    },
    requester: 'delegate',
    conditional: 'write',
    success: [
      {
        status: 200,
        description: `The survivor as GET now shows it. ${PERSON_RESPONSE_NOTE}`,
        json: 'Person',
        headers: ['ETag'],
      },
    ],
    problems: [
      ...REQUEST_PROBLEMS,
      'delegate-required',
      'not-found',
      'merged',
      'erased',
      'principal-already-bound',
      'precondition-failed',
      ...STORAGE_PROBLEMS,
    ],
  },
  unmergePersons: {
    tag: 'Person',
    summary: 'Undo the merge of a person into this one',
    description:
      'Undoes the merge of the person `source` into this one (the survivor), exactly, even after both ' +
      'changed. Every item that moved from the source (known by its `id`) goes back to it as the ' +
      'survivor holds it now (a later edit stays with it; an item deleted since stays deleted) with the ' +
      '`primary` it had in the source; the items the merge dropped as equal come back as the source held ' +
      'them; its Names, root `local_reference_id`, SocialAddresses, uniqueness claims and binding return. ' +
      'SocialAddresses fields the survivor took from the source go back to null unless changed since; the ' +
      'survivor keeps its own items and whatever was added to it after the merge. A set left without its ' +
      'primary takes the item with the lowest id, as a PATCH deleting a primary does. Both persons are ' +
      'answered as GET now shows them, each one version higher, and each gets an UNMERGE ChangeHistory ' +
      'entry; the feed carries `person.unmerged` (the source) and `person.updated` (the survivor). ' +
      'Refused, nothing written: a `source` not merged into this person (409 `not-merged`, `existing` ' +
      'naming the person it was merged into, if any); this person merged since (409 `merged`: undo that ' +
      'merge first); a returning email or name now held by a third person (409 `duplicate-email` / ' +
      '`duplicate-name`, `existing` naming it); an erased person (410). `"preview": true` answers the ' +
      'same and writes nothing. With requester binding on, for delegates only, as a merge. ' +
      CONDITIONAL_WRITE_NOTE,
    body: {
      schema: 'PersonUnmerge',
      description: 'The person merged into this one, to be given back',
      example: { source: 30958 },
    },
    requester: 'delegate',
    conditional: 'write',
    success: [
      {
        status: 200,
        description: `Both persons as GET now shows them, and the survivor's ETag. ${PERSON_RESPONSE_NOTE}`,
        json: 'Unmerge',
        headers: ['ETag'],
      },
    ],
    problems: [
      ...REQUEST_PROBLEMS,
      'delegate-required',
      'not-found',
      'not-merged',
      'merged',
      'duplicate-email',
      'duplicate-name',
      'erased',
      'principal-already-bound',
      'precondition-failed',
      ...STORAGE_PROBLEMS,
    ],
  },
  bindPrincipal: {
    tag: 'Person',
    summary: 'Bind a principal to this person',
    description:
      'For delegates only (a token with the scope `persons/delegate`, or an IAM principal listed in the ' +
      'deploy option `delegates`; else 403 `delegate-required`). Binds the principal the body names, a ' +
      "token's issuer and subject exactly as its `iss` and `sub` say them, or an IAM caller's `arn`, to " +
      'this person: with requester binding on, that principal then writes as this person and ' +
      '`GET /Person/me` names it. A person has at most one principal and a principal at most one person: ' +
      'either bound elsewhere is 409 `principal-already-bound`. The same binding sent again is 204 and ' +
      'changes nothing; a merged person is 409 `merged`.',
    body: {
      schema: 'PrincipalBinding',
      description: 'The principal to bind',
      example: { issuer: 'https://login.example.org/', subject: 'ada' },
    },
    success: [{ status: 204, description: 'The principal is bound to this person' }],
    problems: [
      'validation-error',
      'unauthorized',
      'delegate-required',
      'payload-too-large',
      'unsupported-media-type',
      'not-found',
      'merged',
      'principal-already-bound',
      ...STORAGE_PROBLEMS,
    ],
  },
  unbindPrincipal: {
    tag: 'Person',
    summary: "Unbind this person's principal",
    description:
      'For delegates only (else 403 `delegate-required`): the principal bound to this person is bound to ' +
      'none any more, and may register itself or be bound again. A person bound to none is 204 as well.',
    success: [{ status: 204, description: 'The person is bound to no principal' }],
    problems: ['unauthorized', 'delegate-required', 'not-found', 'merged', ...STORAGE_PROBLEMS],
  },
  listPersonAudit: {
    tag: 'Person',
    summary: "List a person's change history",
    description:
      'One AuditEntry per stored change (create, update, enrich), newest first: the ChangeHistory ' +
      'entries of this person, by the same ids, without the objects.',
    query: PageQuery,
    success: [{ status: 200, description: 'A page of AuditEntries', json: 'PaginatedAuditEntryList' }],
    problems: ['validation-error', 'not-found', ...STORAGE_PROBLEMS],
  },
  listPrefixes: prefixes.viewList,
  getPrefix: prefixes.viewGet,
  listSuffixes: suffixes.viewList,
  getSuffix: suffixes.viewGet,
  listNamePrefixes: prefixes.list,
  createNamePrefix: prefixes.create,
  getNamePrefix: prefixes.get,
  updateNamePrefix: prefixes.update,
  listNameSuffixes: suffixes.list,
  createNameSuffix: suffixes.create,
  getNameSuffix: suffixes.get,
  updateNameSuffix: suffixes.update,
  listChangeHistory: {
    tag: 'ChangeHistory',
    summary: 'List changes',
    description:
      'One entry per stored change of a Person (create, update, enrichment) or a NamePrefix or ' +
      'NameSuffix (create, update), newest first, each with the object as GET showed it before and after ' +
      `the change. ${LIST_STYLES} At most ${MAX_CHANGES_PER_PAGE} entries an answer: each carries two ` +
      'whole objects.',
    query: ChangeHistoryQuery,
    parameters: {
      sort_dir: { description: 'Order by time: 0 newest first, 1 oldest first', default: '0' },
    },
    success: [
      {
        status: 200,
        description: "GRC's list of ChangeHistory entries, or with page/perPage a PaginatedList of them",
        json: ['ChangeHistoryList', 'PaginatedChangeHistoryList'],
      },
    ],
    problems: ['validation-error', ...STORAGE_PROBLEMS],
  },
  getChangeHistory: {
    tag: 'ChangeHistory',
    summary: 'Get a change',
    description:
      "One ChangeHistory entry: the id that an object's `CoreMetaData.created_audit_id` or " +
      '`modified_audit_id` names.',
    success: [{ status: 200, description: 'The ChangeHistory entry', json: 'ChangeHistory' }],
    problems: ['not-found', ...STORAGE_PROBLEMS],
  },
  listDuplicates: {
    tag: 'Duplicates',
    summary: 'Read the duplicates queue',
    description:
      'Every change that adds or changes a Name, Email, PhoneNumber or PostalAddress of a person is checked ' +
      'against the store by the matcher of `/reconcile`, within about a minute; each other person it finds ' +
      'above the threshold makes (or updates) a duplicate pair: its two person ids (lower first, also its ' +
      '`id`), a `score` (0 to 100), a `grade` and the `features` the score is made of (the names, shared ' +
      'phone numbers and addresses, an email mailbox at another domain). `certain` is evidence that the two ' +
      'records are one person (an email both hold; the same name with the same phone number, nothing ' +
      'speaking against it); namesakes with nothing else in common are never `certain`. `probable` and ' +
      '`possible` follow the score. Pairs come highest score first, then by `id`; follow `next` with ' +
      '`after` for the next page (null: the last page). A pair whose person is merged elsewhere or erased, ' +
      'or whose persons are no longer alike, leaves the open queue (`resolved`).',
    query: DuplicatesQuery,
    parameters: {
      status: {
        description: 'Only pairs of this status: `open`, `not-duplicate`, `merged` or `resolved`',
        default: 'open',
      },
      grade: {
        description:
          'Only pairs of these grades, comma-separated (`certain,probable`); every grade when left out',
      },
      person: { description: 'Only the pairs this person is in' },
      limit: {
        description: `How many pairs a page holds at most, 1 to ${DUPLICATES_DEFAULTS.maxLimit}`,
        default: DUPLICATES_DEFAULTS.limit,
      },
      after: {
        description:
          'Where the page starts: the `next` of a page the queue answered, as it was sent (leave it out to ' +
          'start at the best pair); anything else is 400',
      },
    },
    success: [{ status: 200, description: 'A page of pairs, best first', json: 'DuplicatePage' }],
    problems: ['validation-error', ...STORAGE_PROBLEMS],
  },
  getDuplicate: {
    tag: 'Duplicates',
    summary: 'Get a duplicate pair',
    description:
      'One pair, whatever its status; once decided it names who decided it (`decided_by`) and when (`decided`).',
    success: [{ status: 200, description: 'The pair', json: 'DuplicatePair' }],
    problems: ['not-found', ...STORAGE_PROBLEMS],
  },
  decideDuplicate: {
    tag: 'Duplicates',
    summary: 'Decide a duplicate pair',
    description:
      '`{"decision": "not-duplicate"}`: the pair becomes `not-duplicate`, and these two persons are never ' +
      'proposed as a pair again, whatever changes later. `{"decision": "merge", "survivor": <one of the two ' +
      'ids>}`: the other person is merged into the survivor as `POST /Person/{id}/merge` merges it (its ' +
      'refusals answered as they are, nothing written then), and the pair becomes `merged`. The answer is ' +
      'the pair with `decided_by` (the requester) and `decided`. A pair no longer open is 409 ' +
      '`pair-decided`. With requester binding on, a decision is for delegates only, as a merge is.',
    body: {
      schema: 'DuplicateDecision',
      description: 'The decision: not a duplicate, or merge into one of the two',
      example: { decision: 'merge', survivor: 30863 },
    },
    requester: 'delegate',
    success: [{ status: 200, description: 'The pair as decided', json: 'DuplicatePair' }],
    problems: [
      ...REQUEST_PROBLEMS,
      'delegate-required',
      'not-found',
      'pair-decided',
      'merged',
      'erased',
      'principal-already-bound',
      ...STORAGE_PROBLEMS,
    ],
  },
  listSubscriptions: {
    tag: 'Webhooks',
    summary: 'List webhook subscriptions',
    description: 'Every subscription, oldest first, without its secrets.',
    query: PageQuery,
    success: [{ status: 200, description: 'A page of subscriptions', json: 'PaginatedSubscriptionList' }],
    problems: ['validation-error', ...STORAGE_PROBLEMS],
  },
  createSubscription: {
    tag: 'Webhooks',
    summary: 'Subscribe a URL to the change feed',
    description:
      'Each event of the change feed whose `type` matches one of `types` (`*` ends a prefix: `person.*`; ' +
      'every type when `types` is left out; a pattern that matches no type is 400) is POSTed to `url` as ' +
      '`GET /events` shows it, signed as Standard Webhooks 1.0 says (`webhook-id`, `webhook-timestamp`, ' +
      '`webhook-signature`) with the `secret` of this answer: it is shown only here, and kept encrypted. ' +
      '`url` must be https and its host, and every address it resolves to, public: a private, loopback, ' +
      'link-local, cloud metadata, multicast or unspecified address (IPv4 or IPv6, IPv4-mapped included) is ' +
      '400 `webhook-url-refused`, saying why. Written as a person write is, for the requester.',
    body: {
      schema: 'SubscriptionCreate',
      description: 'Where to, which event types, and what for',
      example: {
        url: 'https://directory.example.org/hooks/persons',
        types: ['person.*'],
        description: 'Directory sync',
      },
    },
    requester: 'update',
    success: [
      {
        status: 201,
        description: 'The subscription, with its signing secret shown this once',
        json: 'Subscription',
        headers: ['Location', 'ETag'],
      },
    ],
    problems: [...REQUEST_PROBLEMS, 'webhook-url-refused', ...STORAGE_PROBLEMS],
  },
  getSubscription: {
    tag: 'Webhooks',
    summary: 'Get a webhook subscription',
    description: 'The subscription, without its secrets; `paused_reason` says why it is paused, if it is.',
    conditional: 'read',
    success: [
      { status: 200, description: 'The subscription', json: 'Subscription', headers: ['ETag'] },
      { status: 304, description: 'If-None-Match named the current version', headers: ['ETag'] },
    ],
    problems: ['not-found', 'precondition-failed', ...STORAGE_PROBLEMS],
  },
  updateSubscription: {
    tag: 'Webhooks',
    summary: 'Change, pause or resume a webhook subscription',
    description:
      'Any of `url` (checked as on create), `types`, `description` and `paused`. Nothing is delivered while ' +
      'it is paused; `"paused": false` resumes it where it stopped, with the event it stopped on, and clears ' +
      '`paused_reason`. ' +
      CONDITIONAL_WRITE_NOTE,
    body: {
      schema: 'SubscriptionPatch',
      description: 'The fields to change',
      example: { paused: false },
    },
    requester: 'update',
    conditional: 'write',
    success: [
      { status: 200, description: 'The subscription as stored', json: 'Subscription', headers: ['ETag'] },
    ],
    problems: [
      ...REQUEST_PROBLEMS,
      'not-found',
      'webhook-url-refused',
      'precondition-failed',
      ...STORAGE_PROBLEMS,
    ],
  },
  deleteSubscription: {
    tag: 'Webhooks',
    summary: 'Delete a webhook subscription',
    description: 'Nothing more is delivered to it, and its secrets are gone. Safe to send again (404 then).',
    requester: 'update',
    idempotencyKey: false,
    conditional: 'erase',
    success: [{ status: 204, description: 'Deleted' }],
    problems: [...REQUEST_PROBLEMS, 'not-found', 'precondition-failed', ...STORAGE_PROBLEMS],
  },
  listDeliveries: {
    tag: 'Webhooks',
    summary: "List a webhook subscription's delivery attempts",
    description:
      "Every attempt of the last 30 days, newest first: the event, when, the receiver's HTTP status (null " +
      'when it gave none), the outcome (`delivered`, `failed`, `timeout`, `refused`, `forbidden`), how long ' +
      'it took, its number for that event, and what went wrong. Follow `next` with `after` for older ones.',
    query: DeliveriesQuery,
    parameters: {
      limit: {
        description: `How many attempts a page holds at most, 1 to ${DELIVERIES_DEFAULTS.maxLimit}`,
        default: DELIVERIES_DEFAULTS.limit,
      },
      after: {
        description: 'Where the page starts: the `next` of a page this list answered; anything else is 400',
      },
    },
    success: [{ status: 200, description: 'A page of attempts, newest first', json: 'DeliveryPage' }],
    problems: ['validation-error', 'not-found', ...STORAGE_PROBLEMS],
  },
  replaySubscription: {
    tag: 'Webhooks',
    summary: 'Deliver again from a feed cursor',
    description:
      "The subscription's deliveries go back to the position `after` holds (a `next` of `GET /events`; " +
      'another is 400) and go on from there in feed order: the events after it that the subscription takes ' +
      "are sent again, each with its event's id as `webhook-id` as the first time, and its retries are forgotten. A paused subscription " +
      'replays once it is resumed. Written as a person write is, for the requester.',
    body: {
      schema: 'SubscriptionReplay',
      description: 'The feed cursor to deliver again after',
      example: { after: 'f2.3.3.4.5.3.3.7.2.0umZcV2Wz0awrfepO-o87w' },
    },
    requester: 'update',
    success: [{ status: 202, description: 'The lane is set back; the deliveries follow', json: 'Replay' }],
    problems: [...REQUEST_PROBLEMS, 'not-found', ...STORAGE_PROBLEMS],
  },
  rotateSubscriptionSecret: {
    tag: 'Webhooks',
    summary: "Rotate a webhook subscription's secret",
    description:
      'A new signing secret, shown only in this answer. For 24 hours deliveries carry a signature by each ' +
      '(`webhook-signature` holds both, space-separated), so a receiver can change over without missing ' +
      'one; then only the new one signs. ' +
      CONDITIONAL_WRITE_NOTE,
    requester: 'update',
    conditional: 'write',
    success: [
      {
        status: 200,
        description: 'The subscription, with its new signing secret shown this once',
        json: 'Subscription',
        headers: ['ETag'],
      },
    ],
    problems: [...REQUEST_PROBLEMS, 'not-found', 'precondition-failed', ...STORAGE_PROBLEMS],
  },
  listEvents: {
    tag: 'Feed',
    summary: 'Read the change feed',
    description:
      'Every stored change (a Person created, PATCHed, enriched or merged; a NamePrefix or NameSuffix ' +
      'created or PATCHed) is one event, a CloudEvents 1.0 object in JSON: its `id` is the ChangeHistory ' +
      "entry's id, `source` the service's base URL, `subject` the object (`Person/30863`), and `data` the " +
      "object's id and new version, the parts that changed, the requester and a link to the entry. Events " +
      'are thin on purpose, with no personal data: GET what you need. A merge is a `person.merged` event ' +
      'of the source (`data.superceded_by` names the survivor) and a `person.updated` of the survivor. ' +
      'A duplicate pair found for the first time is a `duplicate.detected` event: its `id` an id of its ' +
      "own (no ChangeHistory entry's), `subject` the pair (`duplicates/30863-41207`), and `data` the " +
      "pair's id, persons, grade and score; the pair's later updates and decisions are no events. " +
      'Pages come oldest first; without `after` the first page starts at the first event kept. Keep the ' +
      "page's `next` and ask again with it as `after`: you never miss an event, and see one twice only " +
      "when you go back to an older cursor. One object's events come in `version` order. A page may hold " +
      'fewer than `limit` events while more are waiting (it reads about what it answers); a page with no ' +
      'events means nothing is new yet, and answers a `next` at least as far as the cursor sent (the same ' +
      'one when nothing is new), so polling goes on from it. A cursor the feed did not issue is 400. A ' +
      "change reaches the feed from the table's stream, within about 5 seconds of its write's answer when " +
      'the system is idle; events are kept as long as ChangeHistory is.',
    query: ListEventsQuery,
    parameters: {
      after: {
        description:
          'Where the page starts: the `next` of a page the feed answered, as it was sent (leave it out to ' +
          'start at the first event); anything else is 400',
      },
      limit: {
        description: `How many events a page holds at most, 1 to ${FEED_DEFAULTS.maxLimit}`,
        default: FEED_DEFAULTS.limit,
      },
    },
    success: [
      {
        status: 200,
        description: 'A page of events, oldest first, and the cursor of the page after it',
        json: 'EventPage',
      },
    ],
    problems: ['validation-error', ...STORAGE_PROBLEMS],
  },
  getOpenApi: {
    tag: 'Self-description',
    summary: 'This OpenAPI document',
    description: 'OpenAPI 3.1, generated from the schemas the service validates and answers with.',
    success: [
      { status: 200, description: 'OpenAPI 3.1', content: { 'application/json': json('OpenAPI 3.1') } },
    ],
    problems: ['internal-error'],
  },
  getPersonSchema: {
    tag: 'Self-description',
    summary: 'JSON Schema of the Person',
    description: 'The full Person as JSON Schema 2020-12, with `$id` set to this URL.',
    success: [
      {
        status: 200,
        description: 'JSON Schema 2020-12',
        content: { 'application/schema+json': json('JSON Schema 2020-12') },
      },
    ],
    problems: ['internal-error'],
  },
  getContext: {
    tag: 'Self-description',
    summary: 'JSON-LD context',
    description:
      'The context every response names in `@context`: the terms mapped to schema.org (`first_name` to ' +
      '`schema:givenName`, ...) or to terms of its own (fragments of its URL), so JSON-LD processors ' +
      'expand responses into triples.',
    success: [
      {
        status: 200,
        description: 'A JSON-LD context',
        content: {
          'application/ld+json': {
            type: 'object',
            required: ['@context'],
            properties: { '@context': { type: 'object' } },
          },
        },
      },
    ],
    problems: ['internal-error'],
  },
  getDocs: {
    tag: 'Self-description',
    summary: 'This page',
    description: 'Interactive API reference (Swagger UI), served with its assets by the API itself.',
    success: [{ status: 200, description: 'An HTML page', content: { 'text/html': { type: 'string' } } }],
    problems: ['internal-error'],
  },
  getDocsAsset: {
    tag: 'Self-description',
    summary: 'A file of this page',
    description: 'Stylesheet, scripts and icons of the documentation page.',
    success: [
      {
        status: 200,
        description: 'The file',
        content: {
          'text/css': { type: 'string' },
          'text/javascript': { type: 'string' },
          'image/png': { type: 'string', contentMediaType: 'image/png' },
        },
      },
    ],
    problems: ['not-found', 'internal-error'],
  },
  listProblems: {
    tag: 'Self-description',
    summary: 'Every problem type',
    description:
      "The index of the problem types this API answers: each one's `type` URL (its page), `title` and " +
      '`status`. HTML, or JSON when `Accept` prefers `application/json` or `application/problem+json`.',
    success: [
      {
        status: 200,
        description: 'The problem types',
        content: {
          'text/html': { type: 'string' },
          'application/json': {
            type: 'array',
            items: {
              type: 'object',
              required: ['type', 'title', 'status'],
              properties: {
                type: { type: 'string', enum: PROBLEM_TYPE_NAMES.map(problemTypeUri) },
                title: { type: 'string' },
                status: { type: 'integer', minimum: 400, maximum: 599 },
              },
            },
          },
        },
      },
    ],
    problems: ['internal-error'],
  },
  getProblem: {
    tag: 'Self-description',
    summary: 'A problem type',
    description:
      'What the problem a `type` names means and what a client should do about it: every problem ' +
      "body's `type` (`/problems/duplicate-email`) resolves to this page. HTML, or JSON when `Accept` " +
      'prefers `application/json` or `application/problem+json`.',
    success: [
      {
        status: 200,
        description: 'The problem type',
        content: {
          'text/html': { type: 'string' },
          'application/json': {
            type: 'object',
            required: ['type', 'title', 'status', 'description'],
            properties: {
              type: { type: 'string', enum: PROBLEM_TYPE_NAMES.map(problemTypeUri) },
              title: { type: 'string' },
              status: { type: 'integer', minimum: 400, maximum: 599 },
              description: { type: 'string' },
            },
            additionalProperties: false,
          },
        },
      },
    ],
    problems: ['not-found', 'internal-error'],
  },
};
