/**
 * What the OpenAPI document says about each route of lib/http/routes.ts: the prose, and which of the
 * zod schemas, headers and problem types apply. Schemas themselves are never written here; they come
 * from lib/domain (and lib/docs/response-schemas.ts) through zod's JSON Schema output.
 */
import type { z } from 'zod';
import { LIST_DEFAULTS, ListPersonsQuery, PAGE_DEFAULTS, PageQuery } from '../domain/listing';
import { LIMITS } from '../domain/schemas';
import type { ProblemType } from '../http/problems';
import type { RequesterRule } from '../http/request';
import { DOCS_ASSET_NAMES } from './docs-page';
import type { JsonSchema } from './json-schema';

export type Tag = 'Person' | 'Reference data' | 'Self-description';

export const TAGS: Record<Tag, string> = {
  Person: 'Person records: list, read, create, update, and their change history',
  'Reference data': 'The name prefixes and suffixes that `name_prefix_fk` and `name_suffix_fk` refer to',
  'Self-description':
    'This document, the JSON Schema of the Person, the JSON-LD context and this page; public, for tools',
};

/** Names of the response schemas in `components.schemas` (openapi.ts builds them from zod). */
export type ResponseSchemaName =
  | 'Person'
  | 'StubList'
  | 'PaginatedStubList'
  | 'PaginatedAuditEntryList'
  | 'Prefix'
  | 'PaginatedPrefixList'
  | 'Suffix'
  | 'PaginatedSuffixList';

export type RequestSchemaName = 'PersonCreate' | 'PersonPatch';

export type ResponseHeader = 'ETag' | 'Location';

export interface SuccessDoc {
  status: 200 | 201 | 304;
  description: string;
  /** A JSON body in the negotiated media types; several names mean one of them. */
  json?: ResponseSchemaName | ResponseSchemaName[];
  /** A body of a fixed media type: media type to schema. */
  content?: Record<string, JsonSchema>;
  headers?: ResponseHeader[];
}

export interface OperationDoc {
  operationId: string;
  tag: Tag;
  summary: string;
  description: string;
  /** Every key of the schema becomes a query parameter, described in QUERY_PARAMETERS. */
  query?: z.ZodObject;
  body?: { schema: RequestSchemaName; description: string; example: unknown };
  requester?: RequesterRule;
  conditional?: 'If-Match' | 'If-None-Match';
  success: SuccessDoc[];
  problems: ProblemType[];
}

/** Query parameters by name: what they mean and the default the service applies. */
export const QUERY_PARAMETERS: Record<string, { description: string; default?: unknown }> = {
  first_name: { description: "Part of any of the person's first names; case and accents are ignored" },
  last_name: { description: "Part of any of the person's last names; case and accents are ignored" },
  email: { description: "Part of any of the person's email addresses; case and accents are ignored" },
  search: {
    description:
      'Part of the fullname, any first, last or freeform name, or any email; case and accents are ignored',
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
  page: { description: 'Page number, from 1', default: PAGE_DEFAULTS.page },
  perPage: { description: 'Items per page', default: PAGE_DEFAULTS.perPage },
};

/** Path parameters by name. `{id}` takes its schema from the Person's `id`. */
export const PATH_PARAMETERS: Record<string, { description: string; schema?: JsonSchema }> = {
  id: { description: 'The id the service assigned' },
  asset: {
    description: 'A file of the documentation page',
    schema: { type: 'string', enum: DOCS_ASSET_NAMES },
  },
};

const STORAGE_PROBLEMS: ProblemType[] = ['unavailable', 'internal-error'];
const WRITE_PROBLEMS: ProblemType[] = [
  'validation-error',
  'missing-requester',
  'invalid-requester',
  'unknown-requester',
  'duplicate-email',
  'duplicate-name',
  'payload-too-large',
  'unsupported-media-type',
  ...STORAGE_PROBLEMS,
];

const PERSON_RESPONSE_NOTE =
  'Empty sets hold one example object (`@type` and every property null). `fullname`, `email`, `id`, ' +
  '`person_fk` and `CoreMetaData` are read only.';

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
        primary: true,
        local_reference_id: 'name-1',
      },
    ],
  },
  Emails: { '@type': 'Emails', '@set': [{ '@type': 'Email', email: 'jsmith@no-reply.org' }] },
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
};

const json = (type: string): JsonSchema => ({ type: 'object', description: `A ${type} document` });

const referenceOperations = (kind: 'Prefix' | 'Suffix') => ({
  list: {
    operationId: `list${kind}es`,
    tag: 'Reference data',
    summary: `List ${kind.toLowerCase()}es`,
    description: `The seeded ${kind} list, in the PaginatedList envelope. Ids never change once published.`,
    query: PageQuery,
    success: [{ status: 200, description: `A page of ${kind}es`, json: `Paginated${kind}List` }],
    problems: ['validation-error', ...STORAGE_PROBLEMS],
  } satisfies OperationDoc,
  get: {
    operationId: `get${kind}`,
    tag: 'Reference data',
    summary: `Get one ${kind.toLowerCase()}`,
    description: `One ${kind}; 404 for an id that names none.`,
    success: [{ status: 200, description: `The ${kind}`, json: kind }],
    problems: ['not-found', ...STORAGE_PROBLEMS],
  } satisfies OperationDoc,
});

const prefixes = referenceOperations('Prefix');
const suffixes = referenceOperations('Suffix');

/** By route key (`METHOD /path`, as API Gateway names routes). */
export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /Person': {
    operationId: 'listPersons',
    tag: 'Person',
    summary: 'List person stubs',
    description:
      'Stubs of the persons matching every given filter, ordered by fullname (folded), ties by id. ' +
      'With `limit`/`offset` (or neither) the answer is the stub list with `Pagination`; with ' +
      '`page`/`perPage` it is the PaginatedList envelope. Mixing the two styles is 400.',
    query: ListPersonsQuery,
    success: [
      {
        status: 200,
        description: 'The stub list, or with page/perPage a PaginatedList of stubs',
        json: ['StubList', 'PaginatedStubList'],
      },
    ],
    problems: ['validation-error', ...STORAGE_PROBLEMS],
  },
  'POST /Person': {
    operationId: 'createPerson',
    tag: 'Person',
    summary: 'Create a person',
    description:
      'At least one Name: structured (`first_name` and `last_name`) or `freeform_name`. The first Name ' +
      'and the first Email become primary when none is. `id` and `person_fk` are ignored. Email ' +
      'addresses are unique across the system, and a person without email is unique by name (409). ' +
      `The body may be at most ${LIMITS.bodyBytes / 1024} KiB.`,
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
    problems: WRITE_PROBLEMS,
  },
  'GET /Person/{id}': {
    operationId: 'getPerson',
    tag: 'Person',
    summary: 'Get a person',
    description: 'The full Person, with its version as a strong ETag.',
    conditional: 'If-None-Match',
    success: [
      { status: 200, description: `The Person. ${PERSON_RESPONSE_NOTE}`, json: 'Person', headers: ['ETag'] },
      { status: 304, description: 'The ETag sent in If-None-Match is current', headers: ['ETag'] },
    ],
    problems: ['not-found', ...STORAGE_PROBLEMS],
  },
  'PATCH /Person/{id}': {
    operationId: 'updatePerson',
    tag: 'Person',
    summary: 'Update a person',
    description:
      'Send the object from GET with changes: root properties sent are changed, absent ones kept. In a ' +
      'set, an element without `id` is added, one with `id` and properties changes that item, and one ' +
      'with only `id` (and `local_reference_id`) deletes it; items not mentioned stay. A deleted ' +
      'element that carried `local_reference_id` comes back as `{ "@type", "local_reference_id" }`. ' +
      'Without If-Match the change is merged onto the latest state.',
    body: {
      schema: 'PersonPatch',
      description: 'The Person as GET returned it, with changes; everything optional',
      example: patchExample,
    },
    requester: 'update',
    conditional: 'If-Match',
    success: [
      {
        status: 200,
        description: `The updated Person. ${PERSON_RESPONSE_NOTE}`,
        json: 'Person',
        headers: ['ETag'],
      },
    ],
    problems: [...WRITE_PROBLEMS, 'not-found', 'precondition-failed'],
  },
  'GET /Person/{id}/audit': {
    operationId: 'listPersonAudit',
    tag: 'Person',
    summary: "List a person's change history",
    description: 'One AuditEntry per stored change (create, update, enrich), newest first.',
    query: PageQuery,
    success: [{ status: 200, description: 'A page of AuditEntries', json: 'PaginatedAuditEntryList' }],
    problems: ['validation-error', 'not-found', ...STORAGE_PROBLEMS],
  },
  'GET /Prefix': prefixes.list,
  'GET /Prefix/{id}': prefixes.get,
  'GET /Suffix': suffixes.list,
  'GET /Suffix/{id}': suffixes.get,
  'GET /openapi.json': {
    operationId: 'getOpenApi',
    tag: 'Self-description',
    summary: 'This OpenAPI document',
    description: 'OpenAPI 3.1, generated from the schemas the service validates and answers with.',
    success: [
      { status: 200, description: 'OpenAPI 3.1', content: { 'application/json': json('OpenAPI 3.1') } },
    ],
    problems: ['internal-error'],
  },
  'GET /schema/Person': {
    operationId: 'getPersonSchema',
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
  'GET /context.jsonld': {
    operationId: 'getContext',
    tag: 'Self-description',
    summary: 'JSON-LD context',
    description:
      'The context every response names in `@context`: the terms mapped to schema.org (`first_name` to ' +
      '`schema:givenName`, ...), so JSON-LD processors expand responses into triples.',
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
  'GET /docs': {
    operationId: 'getDocs',
    tag: 'Self-description',
    summary: 'This page',
    description: 'Interactive API reference (Swagger UI), served with its assets by the API itself.',
    success: [{ status: 200, description: 'An HTML page', content: { 'text/html': { type: 'string' } } }],
    problems: ['internal-error'],
  },
  'GET /docs/{asset}': {
    operationId: 'getDocsAsset',
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
};
