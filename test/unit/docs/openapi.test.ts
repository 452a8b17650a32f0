import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SEEDED_VOCABULARY } from '../../../infra/handlers/seed/vocabulary-seed';
import { PROBLEM_TYPES } from '../../../lib/api/problems';
import { type OperationId, ROUTES } from '../../../lib/api/routes';
import { type OpenApiDocument, openApiDocument, withServer } from '../../../lib/docs/openapi';
import { OPERATIONS, type OperationDoc } from '../../../lib/docs/operations';
import { RESPONSE_SCHEMAS } from '../../../lib/docs/response-schemas';
import { type ChangeEntry, NO_ORIGIN, RESOURCE_TYPES } from '../../../lib/domain/change-history';
import {
  FEED_DEFAULTS,
  LIST_DEFAULTS,
  MAX_CHANGES_PER_PAGE,
  offsetList,
  PAGE_DEFAULTS,
  paginatedList,
  toStub,
} from '../../../lib/domain/listing';
import { emptyPerson, type Person } from '../../../lib/domain/person';
import {
  changeHistoryOut,
  type Links,
  referenceOut,
  toPersonOut,
  vocabularyOut,
} from '../../../lib/domain/representation';
import { CreatePersonBody, LIMITS, PatchPersonBody } from '../../../lib/domain/schemas';
import {
  seededEntry,
  VOCABULARIES,
  VOCABULARY_KINDS,
  type VocabularyEntry,
  type VocabularyKind,
  vocabularyBody,
} from '../../../lib/domain/vocabulary';
import { matchRoute } from '../../../lib/http/routes';
import { schemaValidator } from '../../support/json-schema';

const document = openApiDocument();

type Parameter = { name: string; in: string; required: boolean; schema: Record<string, unknown> };
type Response = { headers?: Record<string, unknown>; content?: Record<string, unknown> };

const operation = (method: string, path: string) => {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`${method} ${path} is not documented`);
  return found;
};
type ProblemMedia = { schema: { properties: { type: { enum: string[] }; status: { const: number } } } };

const parameter = (method: string, path: string, name: string) =>
  (operation(method, path).parameters as Parameter[]).find((candidate) => candidate.name === name);
const response = (method: string, path: string, status: number) =>
  operation(method, path).responses[String(status)] as Response;
/** The media types of a response with their schemas alone (the examples beside them are checked apart). */
const schemasOf = ({ content = {} }: Response) =>
  Object.fromEntries(
    Object.entries(content).map(([type, media]) => [type, { schema: (media as { schema: unknown }).schema }]),
  );

/** The component schemas compiled by ajv, `$ref`s resolved among them. */
const compiled = (doc: OpenApiDocument) => {
  const ajv = schemaValidator({ strict: true, strictTypes: false, allErrors: true });
  const schemas = JSON.parse(
    JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', 'urn:schema:'),
  ) as Record<string, object>;
  for (const [name, schema] of Object.entries(schemas))
    ajv.addSchema({ ...schema, $id: `urn:schema:${name}` });
  return (name: string) => {
    const validate = ajv.getSchema(`urn:schema:${name}`);
    if (!validate) throw new Error(`no schema ${name}`);
    return (value: unknown) => validate(value) === true;
  };
};
const schema = compiled(document);

const links: Links = {
  baseUrl: 'https://api.example.test',
  contextUrl: 'https://api.example.test/context.jsonld',
};
const NOW = '2026-01-02T03:04:05.000Z';

/** A stored Person with an item in a top-level set and in a membership set. */
const storedPerson: Person = {
  ...emptyPerson(7),
  fullname: 'Dr. Ada Lovelace',
  Names: [
    {
      id: 8,
      local_reference_id: 'n-1',
      first_name: 'Ada',
      last_name: 'Lovelace',
      middle_initial: null,
      freeform_name: null,
      name_prefix_fk: 21,
      name_suffix_fk: null,
      primary: true,
    },
    {
      id: 10,
      local_reference_id: null,
      first_name: null,
      last_name: null,
      middle_initial: null,
      freeform_name: 'Augusta Ada King',
      name_prefix_fk: null,
      name_suffix_fk: null,
      primary: 3,
    },
  ],
  Emails: [{ id: 9, local_reference_id: null, email: 'ada@example.org', primary: true }],
  PersonTeams: [{ id: 11, local_reference_id: 'team-1', name: 'Analytical Engine', team_fk: 4 }],
  CoreMetaData: {
    date_created: NOW,
    date_modified: NOW,
    created_by: 7,
    modified_by: null,
    version: 1,
    created_audit_id: 12,
    modified_audit_id: null,
  },
};
const stored = toPersonOut(storedPerson, links);

/** A seeded entry, and one a person added with a local_reference_id. */
const entries = (kind: VocabularyKind): VocabularyEntry[] => {
  const seeded = seededEntry(
    kind,
    SEEDED_VOCABULARY[kind][2] as (typeof SEEDED_VOCABULARY)[VocabularyKind][number],
    NOW,
    1,
  ).entry;
  const added: VocabularyEntry = {
    id: 600,
    term: 'Captain',
    abbreviation: 'Capt.',
    local_reference_id: 'capt-1',
    CoreMetaData: {
      ...seeded.CoreMetaData,
      created_by: 7,
      modified_by: 7,
      version: 2,
      modified_audit_id: 14,
    },
  };
  return [seeded, added];
};

const change = (values: Partial<ChangeEntry>): ChangeEntry => ({
  id: 12,
  endpoint: 'Person',
  object_id: 7,
  version: 1,
  action: 'create',
  requester: 7,
  at: NOW,
  changed: ['/Names', '/Emails'],
  provider_data: NO_ORIGIN,
  ...values,
});

describe('openApiDocument', () => {
  it('documents every route of the route table once, each with a unique operationId and a summary', () => {
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, { operationId, summary }]) => ({
        method,
        path,
        operationId,
        summary,
      })),
    );

    expect(documented.map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort()).toEqual(
      ROUTES.map(({ method, path }) => `${method} ${path}`).sort(),
    );
    expect(new Set(documented.map(({ operationId }) => operationId)).size).toBe(ROUTES.length);
    for (const { summary } of documented) expect(summary).toMatch(/\w/);
  });

  it('refuses a route that has no description, so a new route cannot be left out', () => {
    const routes = [
      ...ROUTES,
      { method: 'GET' as const, path: '/Nowhere', handler: 'get-nowhere', operation: 'getNowhere' },
    ];

    expect(() => openApiDocument(routes)).toThrow('The route GET /Nowhere has no description');
  });

  it('has one description per route, held by the compiler: one for an operation no route has does not type-check', () => {
    const stale: Record<OperationId, OperationDoc> = {
      ...OPERATIONS,
      // @ts-expect-error: no route of the route table has this operationId
      getNowhere: OPERATIONS.getPrefix,
    };
    // @ts-expect-error: every route needs its description
    const missing: Record<OperationId, OperationDoc> = { listPersons: OPERATIONS.listPersons };

    expect(Object.keys(stale)).toContain('getNowhere');
    expect(Object.keys(missing)).toEqual(['listPersons']);
  });

  it('refuses parameters it has no description of', () => {
    const withQuery = {
      ...OPERATIONS,
      listPersons: { ...OPERATIONS.listPersons, query: z.object({ mystery: z.string() }) },
    };
    const routes = [
      ...ROUTES,
      { method: 'GET' as const, path: '/Thing/{thing}', handler: 'get-thing', operation: 'getThing' },
    ];
    const withPath = { ...OPERATIONS, getThing: OPERATIONS.getPrefix };

    expect(() => openApiDocument(ROUTES, withQuery)).toThrow(/query parameter mystery/);
    expect(() => openApiDocument(routes, withPath)).toThrow(/path parameter \{thing\}/);
  });

  it('answers every problem type of API.md 7 as application/problem+json with its status', () => {
    const statuses = new Map<string, Set<number>>();
    const note = (value: Response, status?: string) => {
      const media = value.content?.['application/problem+json'] as ProblemMedia | undefined;
      if (!media) return;
      const { type, status: declared } = media.schema.properties;
      if (status !== undefined) expect(String(declared.const)).toBe(status);
      for (const uri of type.enum) statuses.set(uri, new Set([...(statuses.get(uri) ?? []), declared.const]));
    };
    for (const methods of Object.values(document.paths))
      for (const { responses } of Object.values(methods))
        for (const [status, value] of Object.entries(responses)) note(value as Response, status);
    for (const value of Object.values(document.components.responses ?? {})) note(value as Response);

    expect([...statuses.keys()].sort()).toEqual(
      Object.keys(PROBLEM_TYPES)
        .map((type) => `/problems/${type}`)
        .sort(),
    );
    for (const [type, { status }] of Object.entries(PROBLEM_TYPES))
      expect([...(statuses.get(`/problems/${type}`) ?? [])], type).toEqual([status]);
  });

  it('documents the 405 of the router with its Allow header', () => {
    const methodNotAllowed = (document.components.responses as Record<string, Response>)[
      'method-not-allowed'
    ];

    expect(methodNotAllowed?.headers).toEqual({ Allow: { $ref: '#/components/headers/Allow' } });
    expect(Object.keys(methodNotAllowed?.content ?? {})).toEqual(['application/problem+json']);
  });

  it('takes the bounds of the query parameters from the listing schemas', () => {
    expect(parameter('get', '/Person', 'limit')?.schema).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: LIST_DEFAULTS.maxLimit,
      default: LIST_DEFAULTS.limit,
    });
    expect(parameter('get', '/Person', 'perPage')?.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: PAGE_DEFAULTS.maxPerPage,
    });
    expect(parameter('get', '/Person/{id}/audit', 'page')?.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
    });
    expect(parameter('get', '/Person', 'first_name')?.schema).toEqual({
      type: 'string',
      maxLength: LIMITS.text,
    });
    expect(parameter('get', '/Person', 'local_reference_id')?.schema).toEqual({
      type: 'string',
      maxLength: LIMITS.localReferenceId,
    });
    expect(parameter('get', '/Person', 'sort_dir')?.schema).toEqual({
      type: 'string',
      enum: ['0', '1'],
      default: '1',
    });
    expect(parameter('get', '/events', 'limit')?.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: FEED_DEFAULTS.maxLimit,
      default: FEED_DEFAULTS.limit,
    });
    expect(parameter('get', '/events', 'after')?.schema).toEqual({
      type: 'string',
      maxLength: FEED_DEFAULTS.maxCursorLength,
    });
    expect((operation('get', '/Person').parameters as Parameter[]).map(({ name }) => name)).toEqual([
      'first_name',
      'last_name',
      'email',
      'search',
      'local_reference_id',
      'sort_dir',
      'limit',
      'offset',
      'page',
      'perPage',
    ]);
  });

  it('takes the path id from the Person id and lists the docs files by name', () => {
    expect(parameter('get', '/Prefix/{id}', 'id')).toMatchObject({
      in: 'path',
      required: true,
      schema: { type: 'integer', exclusiveMinimum: 0 },
    });
    expect(parameter('get', '/docs/{asset}', 'asset')?.schema).toEqual({
      type: 'string',
      enum: ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png', 'docs.js'],
    });
  });

  it('documents the request headers of writes and conditional requests', () => {
    expect(parameter('post', '/Person', 'x-requester-person')).toMatchObject({
      in: 'header',
      required: true,
      schema: { type: 'integer', minimum: 0 },
    });
    expect(parameter('patch', '/Person/{id}', 'x-requester-person')).toMatchObject({
      required: true,
      schema: { type: 'integer', minimum: 1 },
    });
    expect(parameter('patch', '/Person/{id}', 'If-Match')).toMatchObject({ in: 'header', required: false });
    expect(parameter('get', '/Person/{id}', 'If-None-Match')).toMatchObject({
      in: 'header',
      required: false,
    });
    expect(parameter('get', '/Person', 'x-requester-person')).toBeUndefined();
  });

  it('documents conditional requests on every versioned object (API.md 2.1)', () => {
    const headers = (method: string, path: string, status: number) =>
      Object.keys(response(method, path, status).headers ?? {});
    for (const path of ['/Person/{id}', '/NamePrefix/{id}', '/NameSuffix/{id}']) {
      expect(parameter('get', path, 'If-None-Match'), path).toMatchObject({ in: 'header', required: false });
      expect(headers('get', path, 200), path).toEqual(['ETag']);
      expect(headers('get', path, 304), path).toEqual(['ETag']);
      expect(response('get', path, 304).content, path).toBeUndefined();
      expect(parameter('patch', path, 'If-Match'), path).toMatchObject({ in: 'header', required: false });
      expect(parameter('patch', path, 'If-None-Match'), path).toMatchObject({
        in: 'header',
        required: false,
        description: expect.stringContaining('412'),
      });
      expect(headers('patch', path, 200), path).toEqual(['ETag']);
      expect(headers('patch', path, 412), path).toEqual(['ETag']);
      expect(response('patch', path, 412).content?.['application/problem+json'], path).toMatchObject({
        schema: { properties: { type: { enum: ['/problems/precondition-failed'] } } },
      });
    }
    for (const path of ['/Prefix/{id}', '/Suffix/{id}']) {
      expect(headers('get', path, 200), path).toEqual(['ETag']);
      expect(headers('get', path, 304), path).toEqual(['ETag']);
    }
  });

  it('documents DELETE /Person/{id} (API.md 15): requester and If-Match, no Idempotency-Key, the tombstone', () => {
    const names = ((operation('delete', '/Person/{id}').parameters ?? []) as Parameter[]).map(
      ({ name }) => name,
    );
    const problemTypes = (method: string, path: string, status: number) =>
      response(method, path, status).content?.['application/problem+json'] as ProblemMedia | undefined;
    const tombstone = {
      '@context': 'https://api.example.test/context.jsonld',
      '@type': 'Person',
      '@id': 'https://api.example.test/Person/7',
      id: 7,
      CoreMetaData: { date_created: NOW, date_modified: NOW, version: 3, live_status: 0, erased: NOW },
    };

    expect(names).toEqual(['id', 'x-requester-person', 'If-Match']);
    expect(parameter('delete', '/Person/{id}', 'x-requester-person')).toMatchObject({
      required: true,
      schema: { type: 'integer', minimum: 1 },
    });
    expect(schemasOf(response('delete', '/Person/{id}', 200))).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/ErasedPerson' } },
      'application/ld+json': { schema: { $ref: '#/components/schemas/ErasedPerson' } },
    });
    expect(schemasOf(response('get', '/Person/{id}', 410))).toEqual(
      schemasOf(response('delete', '/Person/{id}', 200)),
    );
    expect(problemTypes('delete', '/Person/{id}', 409)?.schema.properties.type.enum).toEqual([
      '/problems/merged',
    ]);
    expect(problemTypes('delete', '/Person/{id}', 412)?.schema.properties.type.enum).toEqual([
      '/problems/precondition-failed',
    ]);
    expect(Object.keys(operation('delete', '/Person/{id}').responses).sort()).toEqual(
      ['200', '400', '401', '403', '404', '409', '412', '500', '503'].sort(),
    );
    for (const [method, path] of [
      ['patch', '/Person/{id}'],
      ['post', '/Person/{id}/merge'],
    ] as const)
      expect(problemTypes(method, path, 410)?.schema.properties.type.enum, path).toEqual([
        '/problems/erased',
      ]);
    expect(schema('ErasedPerson')(tombstone)).toBe(true);
    expect(schema('ErasedPerson')({ ...tombstone, fullname: 'Ada Lovelace' })).toBe(false);
    expect(
      schema('ErasedPerson')({ ...tombstone, CoreMetaData: { ...tombstone.CoreMetaData, live_status: 1 } }),
    ).toBe(false);
  });

  it('documents the bodies of POST and PATCH in both JSON media types', () => {
    const bodyOf = (method: string, path: string) =>
      operation(method, path).requestBody as {
        required: boolean;
        content: Record<string, { schema: unknown }>;
      };

    expect(bodyOf('post', '/Person')).toMatchObject({
      required: true,
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/PersonCreate' } },
        'application/ld+json': { schema: { $ref: '#/components/schemas/PersonCreate' } },
      },
    });
    expect(Object.values(bodyOf('patch', '/Person/{id}').content).map((media) => media.schema)).toEqual([
      { $ref: '#/components/schemas/PersonPatch' },
      { $ref: '#/components/schemas/PersonPatch' },
    ]);
  });

  it('documents ETag and Location on success, ETag on 412 and Retry-After on 503', () => {
    const headers = (method: string, path: string, status: number) =>
      Object.keys(response(method, path, status).headers ?? {});

    expect(headers('post', '/Person', 201)).toEqual(['ETag', 'Location']);
    expect(headers('get', '/Person/{id}', 200)).toEqual(['ETag']);
    expect(headers('get', '/Person/{id}', 304)).toEqual(['ETag']);
    expect(response('get', '/Person/{id}', 304).content).toBeUndefined();
    expect(headers('patch', '/Person/{id}', 200)).toEqual(['ETag']);
    expect(headers('patch', '/Person/{id}', 412)).toEqual(['ETag']);
    expect(headers('get', '/Person', 503)).toEqual(['Retry-After']);
  });

  it('documents Idempotency-Key on every POST and PATCH, with its 409 (Retry-After) and 422, and on nothing else', () => {
    // POST /reconcile is a read (the Reconciliation API's form-encoded queries), not a write.
    const writes = ROUTES.filter(
      ({ method, reconciliation }) => (method === 'POST' || method === 'PATCH') && !reconciliation,
    );
    expect(writes.length).toBeGreaterThanOrEqual(6);
    for (const { method, path } of writes) {
      const verb = method.toLowerCase();
      expect(parameter(verb, path, 'Idempotency-Key'), `${method} ${path}`).toMatchObject({
        in: 'header',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      });
      const types = (status: number) =>
        response(verb, path, status).content?.['application/problem+json'] as ProblemMedia;
      expect(types(409).schema.properties.type.enum).toContain('/problems/request-in-progress');
      expect(types(422).schema.properties.type.enum).toEqual(['/problems/idempotency-key-reused']);
      // Required where every 409 of the route is `request-in-progress`, optional beside other conflicts.
      const conflicts = types(409).schema.properties.type.enum;
      expect(response(verb, path, 409).headers?.['Retry-After'], `${method} ${path}`).toEqual(
        conflicts.length === 1
          ? { $ref: '#/components/headers/Retry-After' }
          : expect.objectContaining({ required: false }),
      );
    }
    const others = ROUTES.filter((route) => !writes.includes(route));
    for (const { method, path } of others)
      expect(
        ((operation(method.toLowerCase(), path).parameters ?? []) as Parameter[]).map(({ name }) => name),
      ).not.toContain('Idempotency-Key');
    const pattern = new RegExp(String(parameter('post', '/Person', 'Idempotency-Key')?.schema.pattern));
    expect(['a', '!~', 'k'.repeat(255)].every((key) => pattern.test(key))).toBe(true);
    expect(['a b', 'clé', 'a\tb'].some((key) => pattern.test(key))).toBe(false);
  });

  it('answers JSON resources in application/json and application/ld+json, from the zod output schemas', () => {
    expect(schemasOf(response('get', '/Person/{id}', 200))).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/Person' } },
      'application/ld+json': { schema: { $ref: '#/components/schemas/Person' } },
    });
    expect(schemasOf(response('get', '/Person', 200))['application/json']).toEqual({
      schema: {
        oneOf: [
          { $ref: '#/components/schemas/StubList' },
          { $ref: '#/components/schemas/PaginatedStubList' },
        ],
      },
    });
    expect(document.components.schemas?.PaginatedPrefixList).toMatchObject({
      properties: {
        items: { items: { $ref: '#/components/schemas/Prefix' } },
        itemType: { const: 'Prefix' },
      },
    });
  });

  it('needs SigV4 authorization everywhere but on the public self-description routes', () => {
    expect(document.security).toEqual([{ sigv4: [] }]);
    expect(document.components.securitySchemes).toMatchObject({
      sigv4: {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        'x-amazon-apigateway-authtype': 'awsSigv4',
      },
    });
    for (const route of ROUTES)
      expect(
        operation(route.method.toLowerCase(), route.path).security,
        `${route.method} ${route.path}`,
      ).toEqual(route.public ? [] : undefined);
  });

  it('documents every path as also answering with one trailing slash, as the router does', () => {
    expect(document.info).toMatchObject({ description: expect.stringContaining('one trailing slash') });
    for (const route of ROUTES) {
      const path = `${route.path.replace(/\{\w+\}/g, '5')}/`;
      const match = matchRoute(route.method, path);
      expect(match.kind === 'found' && match.route, `${route.method} ${path}`).toMatchObject({
        path: route.path,
      });
    }
  });

  it.each(VOCABULARY_KINDS)('documents the %s vocabulary: list, add, get and change', (kind) => {
    const path = `/${kind}`;
    const { term } = VOCABULARIES[kind];

    expect((operation('get', path).parameters as Parameter[]).map(({ name }) => name)).toEqual([
      term,
      'abbreviation',
      'search',
      'sort_dir',
      'limit',
      'offset',
      'page',
      'perPage',
    ]);
    expect(schemasOf(response('get', path, 200))['application/json']).toEqual({
      schema: {
        oneOf: [
          { $ref: `#/components/schemas/${kind}List` },
          { $ref: `#/components/schemas/Paginated${kind}List` },
        ],
      },
    });
    for (const [method, route, status, body] of [
      ['post', path, 201, `${kind}Create`],
      ['patch', `${path}/{id}`, 200, `${kind}Patch`],
    ] as const) {
      expect(operation(method, route).requestBody).toMatchObject({
        required: true,
        content: {
          'application/json': { schema: { $ref: `#/components/schemas/${body}` } },
          'application/ld+json': { schema: { $ref: `#/components/schemas/${body}` } },
        },
      });
      expect(parameter(method, route, 'x-requester-person')).toMatchObject({
        in: 'header',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      });
      expect(schemasOf(response(method, route, status))['application/json']).toEqual({
        schema: { $ref: `#/components/schemas/${kind}` },
      });
      expect(response(method, route, 409).content?.['application/problem+json']).toMatchObject({
        schema: {
          properties: {
            type: { enum: ['/problems/request-in-progress', '/problems/duplicate-abbreviation'] },
          },
        },
      });
      expect(response(method, route, 403)).toBeDefined();
    }
    expect(Object.keys(response('post', path, 201).headers ?? {})).toEqual(['ETag', 'Location']);
    expect(response('patch', `${path}/{id}`, 404)).toBeDefined();
    expect(schemasOf(response('get', `${path}/{id}`, 200))['application/json']).toEqual({
      schema: { $ref: `#/components/schemas/${kind}` },
    });
  });

  it('documents ChangeHistory: its filters, list shapes and entries', () => {
    expect(parameter('get', '/ChangeHistory', 'endpoint')?.schema).toEqual({
      type: 'string',
      enum: [...RESOURCE_TYPES],
    });
    expect(parameter('get', '/ChangeHistory', 'object_id')?.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
    });
    expect(parameter('get', '/ChangeHistory', 'limit')?.schema).toMatchObject({
      maximum: MAX_CHANGES_PER_PAGE,
    });
    expect(parameter('get', '/ChangeHistory', 'sort_dir')?.schema).toMatchObject({ default: '0' });
    expect(schemasOf(response('get', '/ChangeHistory', 200))['application/ld+json']).toEqual({
      schema: {
        oneOf: [
          { $ref: '#/components/schemas/ChangeHistoryList' },
          { $ref: '#/components/schemas/PaginatedChangeHistoryList' },
        ],
      },
    });
    expect(schemasOf(response('get', '/ChangeHistory/{id}', 200))['application/json']).toEqual({
      schema: { $ref: '#/components/schemas/ChangeHistory' },
    });
    const entry = document.components.schemas?.ChangeHistory as { properties: Record<string, unknown> };
    for (const key of ['previous_object', 'current_object'])
      expect(entry.properties[key], key).toMatchObject({
        anyOf: [
          { $ref: '#/components/schemas/Person' },
          { $ref: '#/components/schemas/MergedPerson' },
          { $ref: '#/components/schemas/ErasedPerson' },
          { $ref: '#/components/schemas/NamePrefix' },
          { $ref: '#/components/schemas/NameSuffix' },
          { type: 'null' },
        ],
      });
  });

  it('generates a component for every response schema and every request body', () => {
    expect(Object.keys(document.components.schemas ?? {}).sort()).toEqual(
      [
        ...Object.keys(RESPONSE_SCHEMAS),
        'PersonCreate',
        'PersonPatch',
        'PersonMerge',
        'PersonUnmerge',
        'PrincipalBinding',
        'DuplicateDecision',
        'SubscriptionCreate',
        'SubscriptionPatch',
        'SubscriptionReplay',
        'NamePrefixCreate',
        'NamePrefixPatch',
        'NameSuffixCreate',
        'NameSuffixPatch',
      ].sort(),
    );
  });

  it('adds the base URL of the request as its server without changing the shared document', () => {
    const served = withServer(document, 'https://api.example.org/prod');

    expect(served.servers).toEqual([{ url: 'https://api.example.org/prod' }]);
    expect(document).not.toHaveProperty('servers');
  });
});

describe('the request body schemas say what zod accepts', () => {
  const create = schema('PersonCreate');
  const patch = schema('PersonPatch');
  const name = { '@type': 'Name', first_name: 'Ada', last_name: 'Lovelace' };
  const names = (...items: unknown[]) => ({ '@type': 'Names', '@set': items });
  it.each<[string, unknown, boolean, boolean]>([
    ['a structured name', { Names: names(name) }, true, true],
    ['JSON-LD keywords beside the data', { '@context': 'x', '@id': 'y', Names: names(name) }, true, true],
    [
      'a read-only id and fullname',
      { id: 3, fullname: 'x', Names: names({ ...name, id: null }) },
      true,
      true,
    ],
    ['an unknown property', { Names: names(name), nickname: 'Ada' }, false, false],
    ['an unknown property in an item', { Names: names({ ...name, title: 'Countess' }) }, false, false],
    ['no Names', { '@type': 'Person' }, false, true],
    ['another @type', { '@type': 'Organization', Names: names(name) }, false, false],
    [
      'a name over the text limit',
      { Names: names({ ...name, first_name: 'a'.repeat(LIMITS.text + 1) }) },
      false,
      false,
    ],
    ['more Names than allowed', { Names: names(...Array(LIMITS.sets.Names + 1).fill(name)) }, false, false],
    ['a long local_reference_id', { local_reference_id: 'x'.repeat(129), Names: names(name) }, false, false],
    [
      'an email that is not one',
      { Names: names(name), Emails: { '@set': [{ email: 'not-an-email' }] } },
      false,
      false,
    ],
    ['a prefix id of 0', { Names: names({ ...name, name_prefix_fk: 0 }) }, false, false],
    ['the Person GET returned', stored, true, true],
  ])('%s: create %s, patch %s', (_label, body, creates, patches) => {
    expect(create(body)).toBe(creates);
    expect(CreatePersonBody.safeParse(body).success).toBe(creates);
    expect(patch(body)).toBe(patches);
    expect(PatchPersonBody.safeParse(body).success).toBe(patches);
  });

  it('describes the Person GET returns with the Person response schema', () => {
    expect(schema('Person')(stored)).toBe(true);
    expect(schema('Person')({ ...stored, CoreMetaData: { ...stored.CoreMetaData, version: 0 } })).toBe(false);
  });
});

describe('primary in the Person schemas (API.md 5.2, 11.1)', () => {
  type Node = { properties: Record<string, Node>; items: Node & { anyOf?: Node[] }; description?: string };
  const components = document.components.schemas as Record<string, Node>;
  /** The `primary` of a set's items: a response's items are a union with the tombstone. */
  const primaryIn = (name: string, set: string) => {
    const items = components[name]?.properties[set]?.properties['@set']?.items;
    return (items?.anyOf?.[0] ?? items)?.properties.primary;
  };
  const create = schema('PersonCreate');
  const name = { first_name: 'Ada', last_name: 'Lovelace' };
  const bodyWith = (set: 'Names' | 'Emails', primary: unknown) => ({
    Names: { '@set': [set === 'Names' ? { ...name, primary } : name] },
    ...(set === 'Emails' ? { Emails: { '@set': [{ email: 'ada@example.org', primary }] } } : {}),
  });

  it.each<['Names' | 'Emails', unknown, boolean]>([
    ['Emails', 1, true],
    ['Emails', 0, true],
    ['Emails', true, true],
    ['Emails', 2, false],
    ['Emails', 'yes', false],
    ['Names', 1, true],
    ['Names', 0, true],
    ['Names', 2, true],
    ['Names', 3, true],
    ['Names', 5, false],
    ['Names', 'yes', false],
  ])('a request takes primary %s on %s: %s, as zod does', (set, primary, takes) => {
    expect(create(bodyWith(set, primary))).toBe(takes);
    expect(CreatePersonBody.safeParse(bodyWith(set, primary)).success).toBe(takes);
  });

  it.each(['Names', 'Emails', 'PhoneNumbers', 'PostalAddresses'])(
    'the %s primary has one description in the response and both request bodies, naming 1 and 0',
    (set) => {
      const described = primaryIn('Person', set)?.description;

      expect(described).toMatch(/Accepted also: GRC's `1` for `true` and `0` for `false`/);
      expect(primaryIn('PersonCreate', set)?.description).toBe(described);
      expect(primaryIn('PersonPatch', set)?.description).toBe(described);
    },
  );

  it('answers only what GET answers: the response schema keeps 1 and 0 out', () => {
    const person = {
      ...stored,
      Emails: { ...stored.Emails, '@set': [{ ...stored.Emails['@set'][0], primary: 1 }] },
    };

    expect(schema('Person')(stored)).toBe(true);
    expect(schema('Person')(person)).toBe(false);
  });
});

describe('the vocabulary body schemas say what zod accepts', () => {
  it.each(VOCABULARY_KINDS)('%s', (kind) => {
    const { term } = VOCABULARIES[kind];
    const other = kind === 'NamePrefix' ? 'suffix' : 'prefix';
    const returned = vocabularyOut(kind, entries(kind)[1] as VocabularyEntry, links);
    const cases: [string, unknown, boolean, boolean][] = [
      ['both texts', { [term]: 'Captain', abbreviation: 'Capt.' }, true, true],
      ['the abbreviation alone', { abbreviation: 'Capt.' }, false, true],
      [
        'JSON-LD keywords',
        { '@context': 'x', '@id': 'y', [term]: 'Captain', abbreviation: 'Capt.' },
        true,
        true,
      ],
      ['the entry GET returned', returned, true, true],
      [
        'GRC CoreMetaData keys',
        { abbreviation: 'C', CoreMetaData: { live_status: 1, checksum: 3 } },
        false,
        true,
      ],
      ['the other vocabulary’s text', { [other]: 'Captain', abbreviation: 'Capt.' }, false, false],
      ['another @type', { '@type': 'Person', [term]: 'Captain', abbreviation: 'Capt.' }, false, false],
      ['a text over the limit', { [term]: 'a'.repeat(LIMITS.text + 1), abbreviation: 'C' }, false, false],
      ['a number for the abbreviation', { abbreviation: 3 }, false, false],
    ];
    for (const [label, body, creates, patches] of cases) {
      expect(schema(`${kind}Create`)(body), `create: ${label}`).toBe(creates);
      expect(vocabularyBody(kind, true).safeParse(body).success, `zod create: ${label}`).toBe(creates);
      expect(schema(`${kind}Patch`)(body), `patch: ${label}`).toBe(patches);
      expect(vocabularyBody(kind, false).safeParse(body).success, `zod patch: ${label}`).toBe(patches);
    }
  });
});

describe('the response schemas describe what the builders answer', () => {
  const personEntries = [
    changeHistoryOut(change({}), null, storedPerson, links),
    changeHistoryOut(
      change({ id: 13, version: 2, action: 'update', changed: ['/PersonMemberships'] }),
      storedPerson,
      { ...storedPerson, PersonTeams: [] },
      links,
    ),
    changeHistoryOut(
      change({
        id: 14,
        version: 3,
        action: 'enrich',
        requester: null,
        provider_data: { request_id: 'r-1', user_agent: 'curl/8', caller: 'arn:aws:iam::1:user/x' },
      }),
      storedPerson,
      storedPerson,
      links,
    ),
  ];

  it('a Person with memberships, alias names, organization_fk and GRC CoreMetaData', () => {
    expect(stored.Emails['@set'][0]).toMatchObject({ organization_fk: null });
    expect(schema('Person')(stored)).toBe(true);
    expect(schema('Person')({ ...stored, CoreMetaData: { ...stored.CoreMetaData, version: 0 } })).toBe(false);
    expect(schema('Person')({ ...stored, CoreMetaData: { ...stored.CoreMetaData, checksum: 10 } })).toBe(
      false,
    );
    const { PersonMemberships: _memberships, ...withoutMemberships } = stored;
    expect(schema('Person')(withoutMemberships)).toBe(false);
  });

  it.each(VOCABULARY_KINDS)('%s entries, their lists and the Prefix/Suffix view', (kind) => {
    const { view } = VOCABULARIES[kind];
    const items = entries(kind).map((entry) => vocabularyOut(kind, entry, links));
    const views = entries(kind).map((entry) => referenceOut(kind, entry, links));
    const page = (itemType: string, listed: unknown[]) =>
      paginatedList({
        itemType,
        items: listed,
        total: 14,
        request: { page: 1, perPage: 10 },
        pageUrl: (number, perPage) => `${links.baseUrl}/${itemType}?page=${number}&perPage=${perPage}`,
        contextUrl: links.contextUrl,
      });

    for (const item of items) expect(schema(kind)(item)).toBe(true);
    for (const item of views) expect(schema(view)(item)).toBe(true);
    expect(schema(`${kind}List`)(offsetList(links.contextUrl, 14, 0, items))).toBe(true);
    expect(schema(`Paginated${kind}List`)(page(kind, items))).toBe(true);
    expect(schema(`Paginated${view}List`)(page(view, views))).toBe(true);
    expect(schema(kind)(views[0])).toBe(false);
    expect(schema(view)(items[0])).toBe(false);
    expect(schema(kind)({ ...items[0], CoreMetaData: undefined })).toBe(false);
  });

  it('ChangeHistory entries of persons and vocabularies, and their lists', () => {
    const [seeded, added] = entries('NameSuffix') as [VocabularyEntry, VocabularyEntry];
    const vocabularyEntry = changeHistoryOut(
      change({ id: 15, endpoint: 'NameSuffix', object_id: added.id, version: 2, action: 'update' }),
      { ...added, abbreviation: 'Cpt.' },
      added,
      links,
    );
    const seededEntry = changeHistoryOut(
      change({ id: 1, endpoint: 'NameSuffix', object_id: seeded.id, requester: null }),
      null,
      seeded,
      links,
    );
    const all = [...personEntries, vocabularyEntry, seededEntry];

    for (const entry of all) expect(schema('ChangeHistory')(entry), entry.type).toBe(true);
    expect(schema('ChangeHistoryList')(offsetList(links.contextUrl, 5, 0, all))).toBe(true);
    expect(
      schema('ChangeHistoryList')(
        offsetList(links.contextUrl, 500, 0, Array(MAX_CHANGES_PER_PAGE + 1).fill(all[0])),
      ),
    ).toBe(false);
    const stub = toStub({ id: 7, fullname: 'Ada' }, links.baseUrl, links.contextUrl);
    expect(schema('ChangeHistory')({ ...all[0], current_object: stub })).toBe(false);
    expect(schema('ChangeHistory')({ ...all[0], type: 'DELETE' })).toBe(false);
  });
});
