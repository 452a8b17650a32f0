import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type OpenApiDocument, openApiDocument, withServer } from '../../../lib/docs/openapi';
import { OPERATIONS } from '../../../lib/docs/operations';
import { LIST_DEFAULTS, PAGE_DEFAULTS } from '../../../lib/domain/listing';
import { toPersonOut } from '../../../lib/domain/representation';
import { CreatePersonBody, LIMITS, PatchPersonBody } from '../../../lib/domain/schemas';
import { PROBLEM_TYPES } from '../../../lib/http/problems';
import { ROUTES } from '../../../lib/http/routes';

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

/** The component schemas compiled by ajv, `$ref`s resolved among them. */
const compiled = (doc: OpenApiDocument) => {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
  addFormats(ajv);
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
    const routes = [...ROUTES, { method: 'GET' as const, path: '/Nowhere', handler: 'get-nowhere' }];

    expect(() => openApiDocument(routes)).toThrow('The route GET /Nowhere has no description');
  });

  it('refuses a description of a route that no longer exists', () => {
    expect(() => openApiDocument(ROUTES.filter(({ handler }) => handler !== 'get-prefix'))).toThrow(
      /describes routes that do not exist: GET \/Prefix\/\{id\}/,
    );
  });

  it('refuses parameters it has no description of', () => {
    const listing = OPERATIONS['GET /Person'];
    const withQuery = {
      ...OPERATIONS,
      'GET /Person': { ...listing, query: z.object({ mystery: z.string() }) },
    };
    const routes = [...ROUTES, { method: 'GET' as const, path: '/Thing/{thing}', handler: 'get-thing' }];
    const withPath = {
      ...OPERATIONS,
      'GET /Thing/{thing}': { ...OPERATIONS['GET /Prefix/{id}'], operationId: 'x' },
    };

    expect(() => openApiDocument(ROUTES, withQuery as typeof OPERATIONS)).toThrow(/query parameter mystery/);
    expect(() => openApiDocument(routes, withPath as typeof OPERATIONS)).toThrow(/path parameter \{thing\}/);
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
    expect(parameter('get', '/Person', 'sort_dir')?.schema).toEqual({
      type: 'string',
      enum: ['0', '1'],
      default: '1',
    });
    expect((operation('get', '/Person').parameters as Parameter[]).map(({ name }) => name)).toEqual([
      'first_name',
      'last_name',
      'email',
      'search',
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

  it('answers JSON resources in application/json and application/ld+json, from the zod output schemas', () => {
    expect(response('get', '/Person/{id}', 200).content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/Person' } },
      'application/ld+json': { schema: { $ref: '#/components/schemas/Person' } },
    });
    expect(response('get', '/Person', 200).content?.['application/json']).toEqual({
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
  const stored = toPersonOut(
    {
      id: 7,
      local_reference_id: null,
      Names: [
        {
          id: 8,
          local_reference_id: 'n-1',
          first_name: 'Ada',
          last_name: 'Lovelace',
          middle_initial: null,
          freeform_name: null,
          name_prefix_fk: 1,
          name_suffix_fk: null,
          primary: true,
        },
      ],
      Emails: [{ id: 9, local_reference_id: null, email: 'ada@example.org', primary: true }],
      PhoneNumbers: [],
      PersonRoles: [],
      PostalAddresses: [],
      SocialAddresses: { twitter: null, facebook: null, linkedin: null, youtube: null },
      CoreMetaData: {
        date_created: '2026-01-02T03:04:05.000Z',
        date_modified: '2026-01-02T03:04:05.000Z',
        created_by: 7,
        modified_by: null,
        version: 1,
      },
    },
    { baseUrl: 'https://api.example.test', contextUrl: 'https://api.example.test/context.jsonld' },
  );

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
