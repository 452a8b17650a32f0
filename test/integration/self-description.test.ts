import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import jsonld from 'jsonld';
import type { JsonLd, RemoteDocument } from 'jsonld/jsonld-spec';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { buildHandler as buildBindPrincipal } from '../../functions/bind-principal';
import { buildHandler as buildCreateNamePrefix } from '../../functions/create-name-prefix';
import { buildHandler as buildCreateNameSuffix } from '../../functions/create-name-suffix';
import { buildHandler as buildCreateSubscription } from '../../functions/create-subscription';
import { buildHandler as buildDecideDuplicate } from '../../functions/decide-duplicate';
import { buildHandler as buildDeleteSubscription } from '../../functions/delete-subscription';
import { buildHandler as buildErasePerson } from '../../functions/erase-person';
import { buildHandler as buildExportPersons } from '../../functions/export-persons';
import { buildHandler as buildGetChangeHistory } from '../../functions/get-change-history';
import { handler as getContext } from '../../functions/get-context';
import { buildHandler as buildGetDocs } from '../../functions/get-docs';
import { buildHandler as buildGetDuplicate } from '../../functions/get-duplicate';
import { buildHandler as buildGetNamePrefix } from '../../functions/get-name-prefix';
import { buildHandler as buildGetNameSuffix } from '../../functions/get-name-suffix';
import { buildHandler as buildGetOpenApi } from '../../functions/get-openapi';
import { buildHandler as buildGetOwnPerson } from '../../functions/get-own-person';
import { buildHandler as buildGetPersonSchema } from '../../functions/get-person-schema';
import { buildHandler as buildGetPrefix } from '../../functions/get-prefix';
import { handler as getProblem } from '../../functions/get-problem';
import { buildHandler as buildGetSubscription } from '../../functions/get-subscription';
import { buildHandler as buildGetSuffix } from '../../functions/get-suffix';
import { buildHandler as buildListChangeHistory } from '../../functions/list-change-history';
import { buildHandler as buildListDeliveries } from '../../functions/list-deliveries';
import { buildHandler as buildListDuplicates } from '../../functions/list-duplicates';
import { buildHandler as buildListEvents } from '../../functions/list-events';
import { buildHandler as buildListNamePrefixes } from '../../functions/list-name-prefixes';
import { buildHandler as buildListNameSuffixes } from '../../functions/list-name-suffixes';
import { buildHandler as buildListPersonAudit } from '../../functions/list-person-audit';
import { buildHandler as buildListPersons } from '../../functions/list-persons';
import { buildHandler as buildListPrefixes } from '../../functions/list-prefixes';
import { buildHandler as buildListSubscriptions } from '../../functions/list-subscriptions';
import { buildHandler as buildListSuffixes } from '../../functions/list-suffixes';
import { buildHandler as buildPreview } from '../../functions/preview-person';
import { buildHandler as buildReconcile } from '../../functions/reconcile-persons';
import { buildHandler as buildReplaySubscription } from '../../functions/replay-subscription';
import { buildHandler as buildRotateSubscription } from '../../functions/rotate-subscription-secret';
import { handler as routeNotFound } from '../../functions/route-not-found';
import { buildHandler as buildSuggest } from '../../functions/suggest-persons';
import { buildHandler as buildUnbindPrincipal } from '../../functions/unbind-principal';
import { buildHandler as buildUpdateNamePrefix } from '../../functions/update-name-prefix';
import { buildHandler as buildUpdateNameSuffix } from '../../functions/update-name-suffix';
import { buildHandler as buildUpdateSubscription } from '../../functions/update-subscription';
import { ROUTES } from '../../lib/api/routes';
import { duplicateReads } from '../../lib/db/duplicates/duplicate-reads';
import { pairStore } from '../../lib/db/duplicates/pair-store';
import { feedLog } from '../../lib/db/feed/feed-log';
import { auditLog } from '../../lib/db/history/audit-log';
import { changeHistory } from '../../lib/db/history/change-history';
import { idempotencyStore } from '../../lib/db/idempotency/idempotency-store';
import { personExport } from '../../lib/db/person/read/person-export';
import { personList } from '../../lib/db/person/read/person-list';
import { reconcileReader } from '../../lib/db/person/read/reconcile-candidates';
import { vocabularyRepository } from '../../lib/db/vocabulary/vocabulary-repository';
import { laneStore } from '../../lib/db/webhooks/lane-store';
import { subscriptionStore } from '../../lib/db/webhooks/subscription-store';
import { folderAssets } from '../../lib/docs/assets';
import { type OpenApiDocument, openApiDocument } from '../../lib/docs/openapi';
import { personSchemaBody } from '../../lib/docs/person-schema';
import { pairIdOf } from '../../lib/domain/duplicates';
import { decodeFeedCursor, encodeFeedCursor, FEED_START, feedEventOf } from '../../lib/domain/feed';
import { isMergedPerson } from '../../lib/domain/merge';
import { ALL_VISIBLE } from '../../lib/domain/reconcile';
import { VOCABULARIES, VOCABULARY_KINDS } from '../../lib/domain/vocabulary';
import { checkPerson } from '../../lib/duplicates/detect-duplicates';
import { localClientConfig } from '../../lib/local/dynamo-local';
import { localSecretBox } from '../../lib/webhooks/secret-box';
import type { Resolve } from '../../lib/webhooks/url-guard';
import { personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { testRepository } from '../support/dynamo';
import { httpEvent, lambdaContext } from '../support/events';
import { schemaValidator } from '../support/json-schema';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

const BASE = 'https://api.example.test';

/** A seeded abbreviation of each vocabulary: another entry may not take it (409). */
const VOCABULARY_SEEDS = { NamePrefix: 'Dr.', NameSuffix: 'Esquire' } as const;

type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

interface Reply {
  status: number;
  headers: Record<string, string>;
  /** The body as sent: text, or base64 when `base64` is set. */
  raw: string | undefined;
  base64: boolean;
  /** The body parsed, when it is JSON. */
  json: unknown;
}

const call = async (handler: Handler, event: APIGatewayProxyEventV2): Promise<Reply> => {
  const result = await handler(event, lambdaContext());
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  const isJson = /json/.test(headers['content-type'] ?? '');
  return {
    status: result.statusCode ?? 200,
    headers,
    raw: result.body,
    base64: result.isBase64Encoded === true,
    json: isJson && result.body !== undefined ? JSON.parse(result.body) : undefined,
  };
};

const get = (route: string, path = route, extra: Partial<Parameters<typeof httpEvent>[0]> = {}) =>
  httpEvent({ method: 'GET', route, path, ...extra });

const idPath = (route: string, id: number | string) => ({
  path: route.replace('{id}', String(id)),
  pathParameters: { id: String(id) },
});

// ---------------------------------------------------------------------------------------------------
// The document and a checker of real responses against it
// ---------------------------------------------------------------------------------------------------

const getOpenApi = buildGetOpenApi({ document: openApiDocument() });
let document: OpenApiDocument;

const ajv = schemaValidator({ strict: false, allErrors: true });

const pointer = (...segments: string[]) =>
  segments
    .map((segment) => `/${encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'))}`)
    .join('');

/** Which operation and status each real response was checked against: every operation must appear. */
const checked = new Set<string>();
/** Real JSON-LD bodies, for the JSON-LD checks. */
const linkedData: unknown[] = [];

type Declared = {
  content?: Record<string, { schema: unknown }>;
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: unknown }>;
};

/**
 * Asserts that a real response is one the document declares for the operation: the status, the media
 * type, the body against the declared schema, and the declared headers.
 */
const expectDeclared = (method: string, route: string, reply: Reply) => {
  const operation = document.paths[route]?.[method.toLowerCase()];
  expect(operation, `${method} ${route} is documented`).toBeDefined();
  const declared = operation?.responses[String(reply.status)] as Declared | undefined;
  expect(declared, `${method} ${route} declares ${reply.status}`).toBeDefined();
  const base = pointer('paths', route, method.toLowerCase(), 'responses', String(reply.status));

  if (reply.raw === undefined) {
    expect(declared?.content).toBeUndefined();
  } else {
    const mediaType = reply.headers['content-type']?.split(';')[0]?.trim() ?? '';
    expect(Object.keys(declared?.content ?? {}), `${method} ${route} ${reply.status}`).toContain(mediaType);
    if (!reply.base64) {
      const validate = ajv.getSchema(`openapi.json#${base}${pointer('content', mediaType, 'schema')}`);
      const body = reply.json ?? reply.raw;
      expect(validate, 'the schema compiles').toBeDefined();
      expect(validate?.(body) ? [] : validate?.errors, `${method} ${route} ${reply.status} body`).toEqual([]);
    }
  }

  for (const [name, header] of Object.entries(declared?.headers ?? {})) {
    const resolved = header.$ref
      ? (document.components.headers?.[header.$ref.split('/').pop() as string] as typeof header)
      : header;
    const value = reply.headers[name.toLowerCase()];
    if (resolved.required) expect(value, `${method} ${route} ${reply.status} ${name}`).toBeDefined();
    if (value !== undefined)
      expect(ajv.validate(resolved.schema as object, value), `${name}: ${value}`).toBe(true);
  }
  checked.add(`${method} ${route}`);
  // Resources name their context by URL; the context document itself holds one inline. An export
  // page is a set of Persons with its `@type` and `next` beside `@set`, which JSON-LD 1.1 does not let
  // a set object hold (a processor drops it, triples and all): its Persons, each with its context, are
  // its linked data.
  const json = reply.json as { '@context'?: unknown; '@type'?: unknown; '@set'?: unknown[] } | undefined;
  if (json?.['@type'] === 'PersonExport') linkedData.push(...(json['@set'] ?? []));
  else if (typeof json?.['@context'] === 'string') linkedData.push(json);
};

beforeAll(async () => {
  const reply = await call(getOpenApi, get('/openapi.json'));
  document = reply.json as OpenApiDocument;
  ajv.addSchema(document as object, 'openapi.json');
});

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for a real validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(document as Parameters<Validator['validate']>[0]);

    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is checked by a validator that does refuse a broken document', async () => {
    const broken = { ...document, paths: { '/x': { get: { responses: { '200': {} } } } } };

    const result = await new Validator().validate(broken as Parameters<Validator['validate']>[0]);

    expect(result.valid).toBe(false);
  });

  it('names the base URL of the request it was fetched through as its server', () => {
    expect(document.servers).toEqual([{ url: BASE }]);
  });

  it('holds component schemas that are valid JSON Schema 2020-12 under ajv strict mode', () => {
    const strict = schemaValidator();
    const schemas = JSON.parse(
      JSON.stringify(document.components.schemas).replaceAll('#/components/schemas/', 'urn:schema:'),
    ) as Record<string, object>;
    for (const [name, schema] of Object.entries(schemas))
      strict.addSchema({ ...schema, $id: `urn:schema:${name}` });

    for (const name of Object.keys(schemas))
      expect(() => strict.getSchema(`urn:schema:${name}`)).not.toThrow();
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining([
        'Person',
        'PersonCreate',
        'NamePrefix',
        'NamePrefixList',
        'NamePrefixCreate',
        'NameSuffixPatch',
        'ChangeHistory',
        'ChangeHistoryList',
        'PaginatedChangeHistoryList',
        'Subscription',
        'PaginatedSubscriptionList',
        'SubscriptionCreate',
        'SubscriptionPatch',
        'SubscriptionReplay',
        'DeliveryPage',
        'Replay',
        'Problem',
      ]),
    );
  });

  it('gives request body examples that match their schemas', () => {
    const bodies = Object.entries(document.paths).flatMap(([route, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        Object.entries(
          (
            operation.requestBody as {
              content?: Record<string, { examples: Record<string, { value: unknown }> }>;
            }
          )?.content ?? {},
        ).map(([mediaType, { examples }]) => ({ route, method, mediaType, examples })),
      ),
    );

    expect(bodies.map(({ route, method, mediaType }) => `${method} ${route} ${mediaType}`).sort()).toEqual(
      ['/Person', '/NamePrefix', '/NameSuffix', '/Subscription']
        .flatMap((path) => [
          `post ${path} application/json`,
          `post ${path} application/ld+json`,
          `patch ${path}/{id} application/json`,
          `patch ${path}/{id} application/ld+json`,
        ])
        .concat(
          [
            'post /Person/{id}/merge',
            'post /Person/{id}/unmerge',
            'put /Person/{id}/principal',
            'post /duplicates/{pairId}/decision',
            'post /Subscription/{id}/replay',
          ].flatMap((operation) => [`${operation} application/json`, `${operation} application/ld+json`]),
        )
        .sort(),
    );
    for (const { route, method, mediaType, examples } of bodies) {
      const validate = ajv.getSchema(
        `openapi.json#${pointer('paths', route, method, 'requestBody', 'content', mediaType, 'schema')}`,
      );
      for (const { value } of Object.values(examples)) expect(validate?.(value), route).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Real responses of every operation
// ---------------------------------------------------------------------------------------------------

describe('real responses match the schemas the document declares', () => {
  const handlers = {} as Record<string, Handler>;
  const person = { id: 0, email: '', etag: '' };

  beforeAll(() => {
    const vocabulary = vocabularyRepository(suite.table);
    const history = changeHistory(suite.table);
    Object.assign(handlers, {
      listPersons: buildListPersons({ personList: personList(suite.table) }),
      exportPersons: buildExportPersons({ personExport: personExport(suite.table) }),
      audit: buildListPersonAudit({ audit: auditLog(suite.table) }),
      listPrefixes: buildListPrefixes({ vocabulary }),
      getPrefix: buildGetPrefix({ vocabulary }),
      listSuffixes: buildListSuffixes({ vocabulary }),
      getSuffix: buildGetSuffix({ vocabulary }),
      listNamePrefix: buildListNamePrefixes({ vocabulary }),
      createNamePrefix: buildCreateNamePrefix({ vocabulary }),
      getNamePrefix: buildGetNamePrefix({ vocabulary }),
      updateNamePrefix: buildUpdateNamePrefix({ vocabulary }),
      listNameSuffix: buildListNameSuffixes({ vocabulary }),
      createNameSuffix: buildCreateNameSuffix({ vocabulary }),
      getNameSuffix: buildGetNameSuffix({ vocabulary }),
      updateNameSuffix: buildUpdateNameSuffix({ vocabulary }),
      listChangeHistory: buildListChangeHistory({ history }),
      getChangeHistory: buildGetChangeHistory({ history }),
      schema: buildGetPersonSchema({ schema: personSchemaBody() }),
      docs: buildGetDocs({ assets: folderAssets() }),
    });
  });

  const api = () => suite.api;
  const asReply = ({
    status,
    headers,
    body,
  }: {
    status: number;
    headers: Record<string, string>;
    body: unknown;
  }) =>
    ({
      status,
      headers,
      raw: body === undefined ? undefined : JSON.stringify(body),
      base64: false,
      json: body,
    }) satisfies Reply;

  it('POST /Person: 201, then 400, 403, 409, 413 and 415', async () => {
    person.email = uniqueEmail('ld');
    const body = {
      ...personBody('Ada', 'Lovelace', person.email),
      local_reference_id: 'ada-1',
      PostalAddresses: {
        '@type': 'PostalAddresses',
        '@set': [
          { '@type': 'PostalAddress', address1: '12 St James Square', city: 'London', country_code: 'GB' },
        ],
      },
      PhoneNumbers: { '@type': 'PhoneNumbers', '@set': [{ phone_number: '+44 20 7946 0000' }] },
    };
    const created = await api().post(body);
    expect(created.status).toBe(201);
    expectDeclared('POST', '/Person', asReply(created));
    person.id = created.body.id;
    person.etag = created.headers.etag as string;

    const problems = [
      await api().post({ '@type': 'Person', Names: { '@set': [{ first_name: 'Only' }] } }),
      await api().post(personBody('No', 'Requester'), { requester: null }),
      await api().post(personBody('Bad', 'Requester'), { requester: 'abc' }),
      await api().post(personBody('Unknown', 'Requester'), { requester: 999_999_999 }),
      await api().post(personBody('Second', 'Holder', person.email)),
      await api().post({ '@type': 'Person', local_reference_id: 'x'.repeat(300 * 1024) }),
      await api().post(personBody('Plain', 'Text'), { headers: { 'content-type': 'text/plain' } }),
    ];

    expect(problems.map(({ status }) => status)).toEqual([400, 400, 400, 403, 409, 413, 415]);
    for (const problem of problems) {
      expect(problem.headers['content-type']).toMatch(/^application\/problem\+json/);
      expectDeclared('POST', '/Person', asReply(problem));
    }
  });

  it('GET /Person/{id}: 200, 304 and 404', async () => {
    const found = await api().get(person.id);
    const unchanged = await api().get(person.id, { 'if-none-match': person.etag });
    const missing = await api().get(999_999_999);
    const malformed = await api().get('not-a-number');

    expect([found.status, unchanged.status, missing.status, malformed.status]).toEqual([200, 304, 404, 404]);
    for (const reply of [found, unchanged, missing, malformed])
      expectDeclared('GET', '/Person/{id}', asReply(reply));
  });

  it('PATCH /Person/{id}: 200 with a deleted element echoed, 400, 404, 409 and 412', async () => {
    const current = await api().get(person.id);
    const address = current.body.PostalAddresses['@set'][0] as { id: number };
    const changed = await api().patch(person.id, {
      PostalAddresses: {
        '@type': 'PostalAddresses',
        '@set': [{ '@type': 'PostalAddress', id: address.id, local_reference_id: 'gone-1' }],
      },
      SocialAddresses: { twitter: 'https://x.com/ada' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.PostalAddresses['@set']).toContainEqual({
      '@type': 'PostalAddress',
      id: address.id,
      local_reference_id: 'gone-1',
    });
    expectDeclared('PATCH', '/Person/{id}', asReply(changed));

    const other = await api().post(personBody(uniqueTag('Other'), 'Person', uniqueEmail('other')));
    const problems = [
      await api().patch(person.id, { unknown: true }),
      await api().patch(person.id, {}, { requester: 0 }),
      await api().patch(999_999_999, {}, { requester: person.id }),
      await api().patch(other.body.id, {
        Emails: { '@type': 'Emails', '@set': [{ '@type': 'Email', email: person.email }] },
      }),
      await api().patch(person.id, {}, { headers: { 'if-match': '"1"' } }),
    ];

    expect(problems.map(({ status }) => status)).toEqual([400, 400, 404, 409, 412]);
    for (const problem of problems) expectDeclared('PATCH', '/Person/{id}', asReply(problem));
  });

  it('POST /Person/{id}/merge: 200, 400, 404, 409 and 412; then GET of the merged person 301 and its PATCH 409', async () => {
    const create = async (label: string) =>
      (await api().post(personBody(uniqueTag(label), 'Merged', uniqueEmail(label)))).body.id;
    const [survivor, source, other] = [await create('Keep'), await create('Dupe'), await create('Else')];
    const previewed = await api().merge(survivor, { source, preview: true });
    const merged = await api().merge(survivor, { source });
    expect([previewed.status, merged.status]).toEqual([200, 200]);
    const problems = [
      await api().merge(survivor, { source: survivor }),
      await api().merge(survivor, { source: 999_999_999 }),
      await api().merge(other, { source }),
      await api().merge(survivor, { source: other }, { headers: { 'if-match': '"1"' } }),
    ];
    expect(problems.map(({ status }) => status)).toEqual([400, 404, 409, 412]);
    for (const reply of [previewed, merged, ...problems])
      expectDeclared('POST', '/Person/{id}/merge', asReply(reply));

    const gone = await api().get(source);
    expect(gone.status).toBe(301);
    expectDeclared('GET', '/Person/{id}', asReply(gone));
    const refused = await api().patch(source, {}, { requester: survivor });
    expect(refused.status).toBe(409);
    expectDeclared('PATCH', '/Person/{id}', asReply(refused));
  });

  it('POST /Person/{id}/unmerge: 200 (a preview, the unmerge), 400, 404, 409 (not-merged, merged) and 412', async () => {
    const create = async (label: string) =>
      (await api().post(personBody(uniqueTag(label), 'Unmerged', uniqueEmail(label)))).body.id;
    const [survivor, source, other] = [await create('Keep'), await create('Dupe'), await create('Else')];
    expect((await api().merge(survivor, { source })).status).toBe(200);
    const previewed = await api().unmerge(survivor, { source, preview: true });
    const stale = await api().unmerge(survivor, { source }, { headers: { 'if-match': '"1"' } });
    const undone = await api().unmerge(survivor, { source });
    expect([previewed.status, stale.status, undone.status]).toEqual([200, 412, 200]);
    expect((await api().merge(other, { source: survivor })).status).toBe(200);
    const problems = [
      await api().unmerge(survivor, { source: 'one' }),
      await api().unmerge(other, { source: 999_999_999 }),
      await api().unmerge(source, { source: other }),
      await api().unmerge(survivor, { source }, { requester: other }),
    ];
    expect(problems.map(({ status }) => status)).toEqual([400, 404, 409, 409]);
    for (const reply of [previewed, stale, undone, ...problems])
      expectDeclared('POST', '/Person/{id}/unmerge', asReply(reply));
  });

  it('DELETE /Person/{id}: 200 with the tombstone (again on a second), 400, 403, 404, 409 and 412; then GET 410 and PATCH 410', async () => {
    const erase = buildErasePerson({ persons: testRepository(suite.table) });
    const create = async (label: string) =>
      (await api().post(personBody(uniqueTag(label), 'Erased', uniqueEmail(label)))).body.id as number;
    const [erased, survivor, source] = [await create('Gone'), await create('Kept'), await create('Dupe')];
    expect((await api().merge(survivor, { source })).status).toBe(200);
    const del = (id: number | string, requester?: number | string, headers: Record<string, string> = {}) =>
      call(
        erase,
        httpEvent({
          method: 'DELETE',
          route: '/Person/{id}',
          ...idPath('/Person/{id}', id),
          requester,
          headers,
        }),
      );

    const replies = [
      await del(erased, person.id, { 'if-match': '"7"' }),
      await del(erased, person.id),
      await del(erased, person.id),
      await del(erased),
      await del(erased, 'abc'),
      await del(erased, 999_999_999),
      await del(999_999_999, person.id),
      await del(source, person.id),
    ];

    expect(replies.map(({ status }) => status)).toEqual([412, 200, 200, 400, 400, 403, 404, 409]);
    expect(replies[2]?.json).toEqual(replies[1]?.json);
    for (const reply of replies) expectDeclared('DELETE', '/Person/{id}', reply);
    const tombstone = await api().get(erased);
    expect(tombstone.status).toBe(410);
    expectDeclared('GET', '/Person/{id}', asReply(tombstone));
    const refused = await api().patch(erased, {}, { requester: person.id });
    expect(refused.status).toBe(410);
    expectDeclared('PATCH', '/Person/{id}', asReply(refused));
  });

  it('GET /Person/me: 303 for a bound caller, 404 unbound, 401 without a caller', async () => {
    const jwt = (sub: string) => ({ jwt: { claims: { iss: 'https://issuer.example.test', sub } } });
    const subject = uniqueTag('self');
    const bound = personApi(testRepository(suite.table), { requesterBinding: true });
    const created = await bound.post(personBody(uniqueTag('Self'), 'Bound', uniqueEmail('self')), {
      authorizer: jwt(subject),
    });
    expect(created.status).toBe(201);
    const me = buildGetOwnPerson({ persons: testRepository(suite.table) });
    const replies = [
      await call(me, httpEvent({ method: 'GET', route: '/Person/me', authorizer: jwt(subject) })),
      await call(me, httpEvent({ method: 'GET', route: '/Person/me', authorizer: jwt(uniqueTag('none')) })),
      await call(me, httpEvent({ method: 'GET', route: '/Person/me' })),
    ];
    expect(replies.map(({ status }) => status)).toEqual([303, 404, 401]);
    for (const reply of replies) expectDeclared('GET', '/Person/me', reply);
  });

  it('PUT and DELETE /Person/{id}/principal: 204, 400, 401, 403, 404, 409 and 415', async () => {
    const claims = (sub: string, scope?: string) => ({
      jwt: { claims: { iss: 'https://issuer.example.test', sub, ...(scope ? { scope } : {}) } },
    });
    const admin = claims('admin', 'persons/delegate');
    const persons = testRepository(suite.table);
    const created = await personApi(persons).post(
      personBody(uniqueTag('Bound'), 'Later', uniqueEmail('bind')),
    );
    const taken = await personApi(persons).post(
      personBody(uniqueTag('Taken'), 'Person', uniqueEmail('bind')),
    );
    const [bind, unbind] = [buildBindPrincipal({ persons }), buildUnbindPrincipal({ persons })];
    const put = (id: number, body: unknown, authorizer = admin, headers: Record<string, string> = {}) =>
      call(
        bind,
        httpEvent({
          method: 'PUT',
          route: '/Person/{id}/principal',
          path: `/Person/${id}/principal`,
          pathParameters: { id: String(id) },
          body,
          authorizer,
          headers,
        }),
      );
    const subject = { issuer: 'https://issuer.example.test', subject: uniqueTag('bound') };
    const binds = [
      await put(created.body.id, subject),
      await put(taken.body.id, subject),
      await put(created.body.id, { issuer: 'https://issuer.example.test' }),
      await put(created.body.id, subject, claims('plain')),
      await put(created.body.id, subject, {} as typeof admin),
      await put(999_999_999, subject),
      await put(created.body.id, 'issuer=x', admin, { 'content-type': 'text/plain' }),
    ];
    expect(binds.map(({ status }) => status)).toEqual([204, 409, 400, 403, 401, 404, 415]);
    for (const reply of binds) expectDeclared('PUT', '/Person/{id}/principal', reply);
    const del = (id: number, authorizer = admin) =>
      call(
        unbind,
        httpEvent({
          method: 'DELETE',
          route: '/Person/{id}/principal',
          path: `/Person/${id}/principal`,
          pathParameters: { id: String(id) },
          authorizer,
        }),
      );
    const unbinds = [
      await del(created.body.id),
      await del(created.body.id, claims('plain')),
      await del(999_999_999),
    ];
    expect(unbinds.map(({ status }) => status)).toEqual([204, 403, 404]);
    for (const reply of unbinds) expectDeclared('DELETE', '/Person/{id}/principal', reply);
  });

  it('GET /Person: the stub list, the PaginatedList and 400', async () => {
    const replies = [
      await call(handlers.listPersons as Handler, get('/Person')),
      await call(
        handlers.listPersons as Handler,
        get('/Person', '/Person', { query: { search: 'ada', limit: '5' } }),
      ),
      await call(
        handlers.listPersons as Handler,
        get('/Person', '/Person', { query: { page: '1', perPage: '1' } }),
      ),
      await call(handlers.listPersons as Handler, get('/Person', '/Person', { query: { limit: '501' } })),
      await call(
        handlers.listPersons as Handler,
        get('/Person', '/Person', { query: { page: '1', limit: '1' } }),
      ),
    ];

    expect(replies.map(({ status }) => status)).toEqual([200, 200, 200, 400, 400]);
    expect(replies[2]?.json).toMatchObject({ '@type': 'PaginatedList', itemType: 'Stub' });
    for (const reply of replies) expectDeclared('GET', '/Person', reply);
  });

  it('GET /Person/export: a page of full Persons, the last page, and 400', async () => {
    const route = '/Person/export';
    const page = (query: Record<string, string>) =>
      call(handlers.exportPersons as Handler, get(route, route, { query }));
    const replies: Reply[] = [];
    for (let query: Record<string, string> | null = { limit: '1' }; query !== null; ) {
      const reply = await page(query);
      replies.push(reply);
      const { next } = reply.json as { next: string | null };
      query = next === null ? null : Object.fromEntries(new URL(next).searchParams);
    }
    const refused = [await page({ limit: '0' }), await page({ cursor: 'bm90IGEgY3Vyc29y' })];

    expect(replies.every(({ status }) => status === 200)).toBe(true);
    expect(replies.flatMap((reply) => (reply.json as { '@set': { id: number }[] })['@set'])).toContainEqual(
      expect.objectContaining({ id: person.id }),
    );
    expect(refused.map(({ status }) => status)).toEqual([400, 400]);
    for (const reply of [...replies, ...refused]) expectDeclared('GET', route, reply);
  });

  it('GET /Person/{id}/audit: a page of AuditEntries, 400 and 404', async () => {
    const route = '/Person/{id}/audit';
    const replies = [
      await call(handlers.audit as Handler, get(route, undefined, idPath(route, person.id))),
      await call(
        handlers.audit as Handler,
        get(route, undefined, { ...idPath(route, person.id), query: { perPage: '0' } }),
      ),
      await call(handlers.audit as Handler, get(route, undefined, idPath(route, 999_999_999))),
    ];

    expect(replies.map(({ status }) => status)).toEqual([200, 400, 404]);
    expect(replies[0]?.json).toMatchObject({ itemType: 'AuditEntry', total: 2 });
    for (const reply of replies) expectDeclared('GET', route, reply);
  });

  it.each(['Prefix', 'Suffix'])('GET /%s, a page, an item and 404', async (kind) => {
    const list = handlers[`list${kind}es`] as Handler;
    const item = handlers[`get${kind}`] as Handler;
    const route = `/${kind}/{id}`;
    const lists = [
      await call(list, get(`/${kind}`)),
      await call(list, get(`/${kind}`, `/${kind}`, { query: { page: '2', perPage: '5' } })),
      await call(list, get(`/${kind}`, `/${kind}`, { query: { perPage: '101' } })),
    ];
    const items = [
      await call(item, get(route, undefined, idPath(route, 1))),
      await call(item, get(route, undefined, idPath(route, 9999))),
    ];

    expect([...lists, ...items].map(({ status }) => status)).toEqual([200, 200, 400, 200, 404]);
    for (const reply of lists) expectDeclared('GET', `/${kind}`, reply);
    for (const reply of items) expectDeclared('GET', route, reply);
  });

  describe.each(VOCABULARY_KINDS)('/%s', (kind) => {
    const { term } = VOCABULARIES[kind];
    const itemRoute = `/${kind}/{id}`;
    const entry = { id: 0, abbreviation: '' };
    const send = (
      method: 'POST' | 'PATCH',
      body: unknown,
      {
        id,
        requester = person.id,
        headers,
      }: { id?: number; requester?: number | string | null; headers?: Record<string, string> } = {},
    ) =>
      call(
        handlers[`${method === 'POST' ? 'create' : 'update'}${kind}`] as Handler,
        httpEvent({
          method,
          route: id === undefined ? `/${kind}` : itemRoute,
          ...(id === undefined ? {} : idPath(itemRoute, id)),
          body,
          ...(requester === null ? {} : { requester }),
          ...(headers ? { headers } : {}),
        }),
      );

    it('POST: 201 with Location, then 400, 403, 409 and 415', async () => {
      entry.abbreviation = uniqueTag('Ab.');
      const created = await send('POST', {
        '@type': kind,
        [term]: uniqueTag('Title'),
        abbreviation: entry.abbreviation,
        local_reference_id: 'voc-1',
      });
      expect(created.status).toBe(201);
      expectDeclared('POST', `/${kind}`, created);
      entry.id = (created.json as { id: number }).id;
      expect(created.headers.location).toBe(`${BASE}/${kind}/${entry.id}`);

      const problems = [
        await send('POST', { [term]: 'No abbreviation' }),
        await send('POST', { [term]: 'x', abbreviation: uniqueTag('y') }, { requester: null }),
        await send('POST', { [term]: 'x', abbreviation: uniqueTag('y') }, { requester: 0 }),
        await send('POST', { [term]: 'x', abbreviation: uniqueTag('y') }, { requester: 999_999_999 }),
        await send('POST', { [term]: 'Again', abbreviation: entry.abbreviation.toUpperCase() }),
        await send('POST', 'prefix=x', { headers: { 'content-type': 'text/plain' } }),
      ];

      expect(problems.map(({ status }) => status)).toEqual([400, 400, 400, 403, 409, 415]);
      expect(problems[4]?.json).toMatchObject({ type: '/problems/duplicate-abbreviation' });
      for (const problem of problems) expectDeclared('POST', `/${kind}`, problem);
    });

    it('GET /{id}: 200 and 404; PATCH: 200, 404 and 409', async () => {
      const items = [
        await call(handlers[`get${kind}`] as Handler, get(itemRoute, undefined, idPath(itemRoute, entry.id))),
        await call(handlers[`get${kind}`] as Handler, get(itemRoute, undefined, idPath(itemRoute, 999_999))),
      ];
      const changes = [
        await send('PATCH', { abbreviation: uniqueTag('Chg.') }, { id: entry.id }),
        await send('PATCH', { abbreviation: uniqueTag('None.') }, { id: 999_999 }),
        await send('PATCH', { abbreviation: VOCABULARY_SEEDS[kind] as string }, { id: entry.id }),
      ];

      expect([...items, ...changes].map(({ status }) => status)).toEqual([200, 404, 200, 404, 409]);
      expect(changes[0]?.json).toMatchObject({
        '@type': kind,
        local_reference_id: 'voc-1',
        CoreMetaData: { version: 2 },
      });
      for (const reply of items) expectDeclared('GET', itemRoute, reply);
      for (const reply of changes) expectDeclared('PATCH', itemRoute, reply);
    });

    it("GET: GRC's list, the PaginatedList and 400", async () => {
      const list = handlers[`list${kind}`] as Handler;
      const replies = [
        await call(list, get(`/${kind}`)),
        await call(
          list,
          get(`/${kind}`, `/${kind}`, { query: { search: 'doctor', sort_dir: '0', limit: '3' } }),
        ),
        await call(list, get(`/${kind}`, `/${kind}`, { query: { page: '2', perPage: '5' } })),
        await call(list, get(`/${kind}`, `/${kind}`, { query: { limit: '501' } })),
        await call(list, get(`/${kind}`, `/${kind}`, { query: { page: '1', offset: '1' } })),
      ];

      expect(replies.map(({ status }) => status)).toEqual([200, 200, 200, 400, 400]);
      expect(replies[0]?.json).toMatchObject({ Pagination: { '@type': 'Pagination', offset: 0 } });
      expect(replies[2]?.json).toMatchObject({ '@type': 'PaginatedList', itemType: kind });
      for (const reply of replies) expectDeclared('GET', `/${kind}`, reply);
    });
  });

  it('GET /ChangeHistory: entries of persons and vocabularies in both list shapes, and 400', async () => {
    const list = handlers.listChangeHistory as Handler;
    const replies = [
      await call(list, get('/ChangeHistory')),
      await call(
        list,
        get('/ChangeHistory', '/ChangeHistory', {
          query: { endpoint: 'Person', object_id: String(person.id) },
        }),
      ),
      await call(
        list,
        get('/ChangeHistory', '/ChangeHistory', { query: { endpoint: 'NamePrefix', limit: '100' } }),
      ),
      await call(list, get('/ChangeHistory', '/ChangeHistory', { query: { page: '1', perPage: '3' } })),
      await call(list, get('/ChangeHistory', '/ChangeHistory', { query: { limit: '101' } })),
      await call(list, get('/ChangeHistory', '/ChangeHistory', { query: { endpoint: 'Organization' } })),
    ];

    expect(replies.map(({ status }) => status)).toEqual([200, 200, 200, 200, 400, 400]);
    const ofPerson = replies[1]?.json as { '@set': { type: string; previous_object: unknown }[] };
    expect(ofPerson['@set'].map(({ type }) => type)).toEqual(['PATCH', 'POST']);
    expect(ofPerson['@set'][1]?.previous_object).toBeNull();
    expect(replies[2]?.json).toMatchObject({
      '@set': expect.arrayContaining([
        expect.objectContaining({
          endpoint: 'NamePrefix',
          type: 'PATCH',
          current_object: expect.objectContaining({ '@type': 'NamePrefix' }),
        }),
      ]),
    });
    expect(replies[3]?.json).toMatchObject({ '@type': 'PaginatedList', itemType: 'ChangeHistory' });
    for (const reply of replies) expectDeclared('GET', '/ChangeHistory', reply);
  });

  it('GET /ChangeHistory/{id}: the entry a CoreMetaData names, and 404', async () => {
    const route = '/ChangeHistory/{id}';
    const { body } = await api().get(person.id);
    const item = handlers.getChangeHistory as Handler;
    const replies = [
      await call(item, get(route, undefined, idPath(route, body.CoreMetaData.modified_audit_id as number))),
      await call(item, get(route, undefined, idPath(route, 999_999_999))),
    ];

    expect(replies.map(({ status }) => status)).toEqual([200, 404]);
    expect(replies[0]?.json).toMatchObject({
      type: 'PATCH',
      object_id: person.id,
      current_object: { id: person.id },
    });
    for (const reply of replies) expectDeclared('GET', route, reply);
  });

  it('GET /events: a page of events, an empty page at the end, and 400 for a cursor or limit it refuses', async () => {
    const route = '/events';
    const history = changeHistory(suite.table);
    // The file's changes (creates, PATCHes, merges, vocabulary entries), oldest first, as the stream's
    // appender puts them in the feed.
    const changes = [];
    for (let offset = 0, total = 1; offset < total; offset += 100) {
      const page = await history.page({ descending: false, window: { offset, limit: 100 } });
      changes.push(...page.changes);
      total = page.total;
    }
    await feedLog(suite.table).append(
      changes.map(({ entry, current }) =>
        feedEventOf(entry, isMergedPerson(current) ? current.superceded_by : null),
      ),
    );
    const listEvents = buildListEvents({ feed: feedLog(suite.table) });
    const page = (query: Record<string, string>) => call(listEvents, get(route, route, { query }));
    const first = await page({ limit: '500' });
    const last = await page({ after: (first.json as { next: string }).next });
    const replies = [first, last, await page({ after: 'f1.0.0.0.0.0.0.0.0.0' }), await page({ limit: '0' })];

    expect(replies.map(({ status }) => status)).toEqual([200, 200, 400, 400]);
    expect((first.json as { events: { type: string }[] }).events.map(({ type }) => type)).toEqual(
      expect.arrayContaining(['person.created', 'person.updated', 'person.merged', 'nameprefix.created']),
    );
    expect(last.json).toMatchObject({ events: [], next: (first.json as { next: string }).next });
    for (const reply of replies) expectDeclared('GET', route, reply);
  });

  it('the duplicates queue: GET /duplicates 200 and 400, GET /duplicates/{pairId} 200 and 404, a decision 200, 400, 404 and 409', async () => {
    // Namesakes with the same phone, one with an email of its own: a certain pair once checked.
    const last = `Twin${uniqueTag('d').replace(/\d/g, '')}`;
    const phone = { PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0001' }] } };
    const first = await api().post({ ...personBody('Duplicated', last, uniqueEmail('dup')), ...phone });
    const second = await api().post({ ...personBody('Duplicated', last), ...phone });
    const pairs = pairStore(suite.table);
    await checkPerson({ reads: duplicateReads(suite.table), pairs }, second.body.id, Date.now() + 10_000);
    const pairId = pairIdOf(first.body.id, second.body.id);
    const itemRoute = '/duplicates/{pairId}';
    const pairPath = (id: string, suffix = '') => ({
      path: `/duplicates/${id}${suffix}`,
      pathParameters: { pairId: id },
    });
    const list = buildListDuplicates({ pairs });
    const lists = [
      await call(list, get('/duplicates', '/duplicates', { query: { person: String(first.body.id) } })),
      await call(list, get('/duplicates', '/duplicates', { query: { grade: 'certain', limit: '1' } })),
      await call(list, get('/duplicates', '/duplicates', { query: { after: 'made-up' } })),
      await call(list, get('/duplicates', '/duplicates', { query: { status: 'closed' } })),
    ];
    expect(lists.map(({ status }) => status)).toEqual([200, 200, 400, 400]);
    expect(lists[0]?.json).toMatchObject({
      pairs: [expect.objectContaining({ id: pairId, grade: 'certain', status: 'open' })],
    });
    const getPair = buildGetDuplicate({ pairs });
    const items = [
      await call(getPair, get(itemRoute, undefined, pairPath(pairId))),
      await call(getPair, get(itemRoute, undefined, pairPath('2-1'))),
    ];
    expect(items.map(({ status }) => status)).toEqual([200, 404]);
    const decide = buildDecideDuplicate({ pairs, persons: testRepository(suite.table) });
    const decision = (id: string, body: unknown) =>
      call(
        decide,
        httpEvent({
          method: 'POST',
          route: `${itemRoute}/decision`,
          ...pairPath(id, '/decision'),
          body,
          requester: first.body.id,
        }),
      );
    const decisions = [
      await decision(pairId, { decision: 'merge', survivor: 1 }),
      await decision('1-999999999', { decision: 'not-duplicate' }),
      await decision(pairId, { decision: 'not-duplicate' }),
      await decision(pairId, { decision: 'not-duplicate' }),
    ];
    expect(decisions.map(({ status }) => status)).toEqual([400, 404, 200, 409]);
    expect(decisions[2]?.json).toMatchObject({ status: 'not-duplicate', decided_by: first.body.id });
    for (const reply of lists) expectDeclared('GET', '/duplicates', reply);
    for (const reply of items) expectDeclared('GET', itemRoute, reply);
    for (const reply of decisions) expectDeclared('POST', `${itemRoute}/decision`, reply);
  });

  it('webhook subscriptions: POST 201 (a keyed one replayed, its secret opened) and 400, 403, 415; GET list 200 and 400; GET 200, 304 and 404; PATCH 200, 400, 404 and 412; rotate 200, 404 and 412; DELETE 412, 204 and 404', async () => {
    const subscriptions = subscriptionStore(suite.table);
    const box = localSecretBox(randomBytes(32).toString('base64url'));
    // Every name a public address, as DNS would answer (the URL guard asks no real resolver).
    const resolve: Resolve = async () => [{ address: '93.184.216.34', family: 4 }];
    const raw = new DynamoDBClient(localClientConfig(inject('dynamoEndpoint')));
    const idempotency = { store: idempotencyStore({ client: raw, tableName: suite.table.tableName }) };
    const create = buildCreateSubscription({ subscriptions, box, resolve, idempotency });
    const list = buildListSubscriptions({ subscriptions });
    const read = buildGetSubscription({ subscriptions });
    const update = buildUpdateSubscription({ subscriptions, resolve, idempotency });
    const rotate = buildRotateSubscription({ subscriptions, box, idempotency });
    const remove = buildDeleteSubscription({ subscriptions });
    const itemRoute = '/Subscription/{id}';
    const rotateRoute = `${itemRoute}/rotate`;
    const at = (id: string, suffix = '') => ({
      path: `/Subscription/${id}${suffix}`,
      pathParameters: { id },
    });
    const missing = '00000000-0000-4000-8000-000000000000';
    const post = (
      body: unknown,
      requester: number | null = person.id,
      headers: Record<string, string> = {},
    ) =>
      call(
        create,
        httpEvent({
          method: 'POST',
          route: '/Subscription',
          body,
          headers,
          ...(requester === null ? {} : { requester }),
        }),
      );
    const body = {
      url: 'https://hooks.example.org/persons',
      types: ['person.*'],
      description: 'Directory sync',
    };

    const keyed = { 'idempotency-key': uniqueTag('subscribe') };
    const created = [
      await post(body),
      await post(body, person.id, keyed),
      await post(body, person.id, keyed),
    ];
    expect(created.map(({ status }) => status)).toEqual([201, 201, 201]);
    const [first, kept, replayed] = created.map(({ json }) => json as { id: string; secret: string });
    expect(first?.secret).toMatch(/^whsec_/);
    // The replay is the answer kept, its secret opened again: the secret shown the first time.
    expect(replayed).toEqual(kept);
    const id = first?.id as string;
    expect(created[0]?.headers.location).toBe(`${BASE}/Subscription/${id}`);
    const refused = [
      await post({ ...body, types: ['person.create'] }),
      await post({ ...body, url: 'https://10.0.0.7/hooks' }),
      await post(body, null),
      await post(body, 999_999_999),
      await post('url=https://hooks.example.org', person.id, { 'content-type': 'text/plain' }),
    ];
    expect(refused.map(({ status }) => status)).toEqual([400, 400, 400, 403, 415]);
    expect(refused[1]?.json).toMatchObject({ type: '/problems/webhook-url-refused' });

    const lists = [
      await call(list, get('/Subscription')),
      await call(list, get('/Subscription', '/Subscription', { query: { page: '1', perPage: '1' } })),
      await call(list, get('/Subscription', '/Subscription', { query: { perPage: '101' } })),
    ];
    expect(lists.map(({ status }) => status)).toEqual([200, 200, 400]);
    expect(lists[0]?.json).toMatchObject({ '@type': 'PaginatedList', itemType: 'Subscription', total: 2 });
    // Never a secret, sealed or shown, once it was made.
    expect(JSON.stringify(lists[0]?.json)).not.toMatch(/secret/);

    const found = await call(read, get(itemRoute, undefined, at(id)));
    const items = [
      found,
      await call(
        read,
        get(itemRoute, undefined, { ...at(id), headers: { 'if-none-match': found.headers.etag as string } }),
      ),
      await call(read, get(itemRoute, undefined, at(missing))),
      await call(read, get(itemRoute, undefined, at('not-a-uuid'))),
    ];
    expect(items.map(({ status }) => status)).toEqual([200, 304, 404, 404]);

    const patch = (target: string, change: unknown, headers: Record<string, string> = {}) =>
      call(
        update,
        httpEvent({
          method: 'PATCH',
          route: itemRoute,
          ...at(target),
          body: change,
          requester: person.id,
          headers,
        }),
      );
    const changes = [
      await patch(id, { paused: true, url: 'https://hooks.example.org/v2' }),
      await patch(id, { secret: 'whsec_AAAA' }),
      await patch(missing, { paused: false }),
      await patch(id, { paused: false }, { 'if-match': '"1"' }),
    ];
    expect(changes.map(({ status }) => status)).toEqual([200, 400, 404, 412]);
    expect(changes[0]?.json).toMatchObject({ paused: true, paused_reason: `Paused by person ${person.id}` });

    const rotation = (target: string) =>
      call(
        rotate,
        httpEvent({ method: 'POST', route: rotateRoute, ...at(target, '/rotate'), requester: person.id }),
      );
    const rotations = [
      await rotation(id),
      await rotation(missing),
      await call(
        rotate,
        httpEvent({
          method: 'POST',
          route: rotateRoute,
          ...at(id, '/rotate'),
          requester: person.id,
          headers: { 'if-match': '"1"' },
        }),
      ),
    ];
    expect(rotations.map(({ status }) => status)).toEqual([200, 404, 412]);
    const rotated = rotations[0]?.json as { secret: string } | undefined;
    expect(rotated?.secret).toMatch(/^whsec_/);
    expect(rotated?.secret).not.toBe(first?.secret);

    const del = (target: string, headers: Record<string, string> = {}) =>
      call(
        remove,
        httpEvent({ method: 'DELETE', route: itemRoute, ...at(target), requester: person.id, headers }),
      );
    const deletes = [await del(id, { 'if-match': '"1"' }), await del(id), await del(id)];
    expect(deletes.map(({ status }) => status)).toEqual([412, 204, 404]);

    for (const reply of [...created, ...refused]) expectDeclared('POST', '/Subscription', reply);
    for (const reply of lists) expectDeclared('GET', '/Subscription', reply);
    for (const reply of items) expectDeclared('GET', itemRoute, reply);
    for (const reply of changes) expectDeclared('PATCH', itemRoute, reply);
    for (const reply of rotations) expectDeclared('POST', rotateRoute, reply);
    for (const reply of deletes) expectDeclared('DELETE', itemRoute, reply);
  });

  it("a webhook subscription's deliveries: GET 200 (newest first, a page at a time), 400 and 404; its replay: POST 202 (a keyed one replayed), 400, 403 and 404", async () => {
    const subscriptions = subscriptionStore(suite.table);
    const lanes = laneStore(suite.table);
    const box = localSecretBox(randomBytes(32).toString('base64url'));
    const resolve: Resolve = async () => [{ address: '93.184.216.34', family: 4 }];
    const raw = new DynamoDBClient(localClientConfig(inject('dynamoEndpoint')));
    const idempotency = { store: idempotencyStore({ client: raw, tableName: suite.table.tableName }) };
    const key = randomBytes(32).toString('base64url');
    const cursorKey = async () => key;
    const create = buildCreateSubscription({ subscriptions, box, resolve });
    const listDeliveries = buildListDeliveries({ subscriptions, lanes });
    const replay = buildReplaySubscription({ lanes, cursorKey, idempotency });
    const deliveriesRoute = '/Subscription/{id}/deliveries';
    const replayRoute = '/Subscription/{id}/replay';
    const at = (id: string, suffix: string) => ({
      path: `/Subscription/${id}${suffix}`,
      pathParameters: { id },
    });
    const missing = '00000000-0000-4000-8000-000000000000';
    const made = await call(
      create,
      httpEvent({
        method: 'POST',
        route: '/Subscription',
        body: { url: 'https://hooks.example.org/replayed' },
        requester: person.id,
      }),
    );
    expect(made.status).toBe(201);
    const id = (made.json as { id: string }).id;

    // Two attempts of one event, as the deliverer records them: refused, then delivered.
    const started = Date.now() - 60_000;
    await lanes.record(id, {
      event: 30911,
      type: 'person.updated',
      at: new Date(started).toISOString(),
      status: 503,
      outcome: 'failed',
      duration_ms: 41,
      attempt: 1,
      error: 'the receiver answered 503',
    });
    await lanes.record(id, {
      event: 30911,
      type: 'person.updated',
      at: new Date(started + 5_000).toISOString(),
      status: 204,
      outcome: 'delivered',
      duration_ms: 88,
      attempt: 2,
    });
    const deliveries = (target: string, query: Record<string, string> = {}) =>
      call(listDeliveries, get(deliveriesRoute, undefined, { ...at(target, '/deliveries'), query }));
    const firstPage = await deliveries(id, { limit: '1' });
    const pages = [
      firstPage,
      await deliveries(id, { after: (firstPage.json as { next: string }).next }),
      await deliveries(id),
    ];
    expect(pages.map(({ status }) => status)).toEqual([200, 200, 200]);
    expect(pages[0]?.json).toMatchObject({
      '@type': 'DeliveryPage',
      deliveries: [{ event: 30911, outcome: 'delivered', status: 204, attempt: 2 }],
      next: expect.stringMatching(/^DELIVERY#/),
    });
    expect(pages[1]?.json).toMatchObject({
      deliveries: [{ outcome: 'failed', status: 503, attempt: 1, error: 'the receiver answered 503' }],
      next: null,
    });
    expect(pages[2]?.json).toMatchObject({ deliveries: [{ attempt: 2 }, { attempt: 1 }], next: null });
    const refusedLists = [
      await deliveries(id, { after: 'made-up' }),
      await deliveries(id, { limit: '0' }),
      await deliveries(id, { limit: '101' }),
      await deliveries(id, { page: '1' }),
    ];
    expect(refusedLists.map(({ status }) => status)).toEqual([400, 400, 400, 400]);
    const unknownLists = [await deliveries(missing), await deliveries('not-a-uuid')];
    expect(unknownLists.map(({ status }) => status)).toEqual([404, 404]);

    // A real cursor of the feed (a `next` of GET /events, signed with the same key).
    const events = buildListEvents({ feed: feedLog(suite.table), cursorKey });
    const feedPage = await call(events, get('/events', '/events', { query: { limit: '1' } }));
    expect(feedPage.status).toBe(200);
    const after = (feedPage.json as { next: string }).next;
    const post = (
      target: string,
      body: unknown,
      requester: number = person.id,
      headers: Record<string, string> = {},
    ) =>
      call(
        replay,
        httpEvent({ method: 'POST', route: replayRoute, ...at(target, '/replay'), body, requester, headers }),
      );
    const keyed = { 'idempotency-key': uniqueTag('replay') };
    const replayed = await post(id, { after });
    // The lane set back to where the cursor points, its retries forgotten.
    expect(await lanes.get(id)).toEqual({ position: decodeFeedCursor(after, key), attempt: 0 });
    const replays = [
      replayed,
      await post(id, { after: encodeFeedCursor(FEED_START, key) }, person.id, keyed),
      await post(id, { after: encodeFeedCursor(FEED_START, key) }, person.id, keyed),
    ];
    expect(replays.map(({ status }) => status)).toEqual([202, 202, 202]);
    expect(replays[0]?.json).toMatchObject({
      '@type': 'Replay',
      subscription: `${BASE}/Subscription/${id}`,
      after,
    });
    expect(replays[2]?.json).toEqual(replays[1]?.json);
    expect(await lanes.get(id)).toEqual({ position: [...FEED_START], attempt: 0 });
    const refusedReplays = [
      await post(id, { after: encodeFeedCursor(FEED_START, randomBytes(32).toString('base64url')) }),
      await post(id, { after: 'f1.0.0.0.0.0.0.0.0.0' }),
      await post(id, {}),
      await post(id, { after }, 999_999_999),
    ];
    expect(refusedReplays.map(({ status }) => status)).toEqual([400, 400, 400, 403]);
    expect(refusedReplays[0]?.json).toMatchObject({ type: '/problems/validation-error' });
    const unknownReplays = [await post(missing, { after }), await post('not-a-uuid', { after })];
    expect(unknownReplays.map(({ status }) => status)).toEqual([404, 404]);

    for (const reply of [...pages, ...refusedLists, ...unknownLists])
      expectDeclared('GET', deliveriesRoute, reply);
    for (const reply of [...replays, ...refusedReplays, ...unknownReplays])
      expectDeclared('POST', replayRoute, reply);
  });

  it('the self-description routes: openapi.json, schema/Person, context.jsonld, docs', async () => {
    const replies: [string, Reply][] = [
      ['/openapi.json', await call(getOpenApi, get('/openapi.json'))],
      ['/schema/Person', await call(handlers.schema as Handler, get('/schema/Person'))],
      ['/context.jsonld', await call(getContext, get('/context.jsonld'))],
      ['/docs', await call(handlers.docs as Handler, get('/docs'))],
    ];
    const route = '/docs/{asset}';
    const assets = await Promise.all(
      ['swagger-ui.css', 'swagger-ui-bundle.js', 'docs.js', 'favicon-32x32.png', 'nothing.js'].map((asset) =>
        call(handlers.docs as Handler, get(route, `/docs/${asset}`, { pathParameters: { asset } })),
      ),
    );

    expect(replies.map(([, { status }]) => status)).toEqual([200, 200, 200, 200]);
    expect(assets.map(({ status }) => status)).toEqual([200, 200, 200, 200, 404]);
    expect(replies.map(([, reply]) => reply.headers['content-type'])).toEqual([
      'application/json; charset=utf-8',
      'application/schema+json; charset=utf-8',
      'application/ld+json; charset=utf-8',
      'text/html; charset=utf-8',
    ]);
    for (const [path, reply] of replies) expectDeclared('GET', path, reply);
    for (const reply of assets) expectDeclared('GET', route, reply);
  });

  it('the problem type pages: HTML, JSON and 404', async () => {
    const route = '/problems/{name}';
    const page = (name: string, accept: string) =>
      call(getProblem, get(route, `/problems/${name}`, { pathParameters: { name }, headers: { accept } }));
    const replies = [
      await page('duplicate-email', 'text/html'),
      await page('duplicate-email', 'application/json'),
      await page('no-such-problem', 'application/json'),
    ];

    expect(replies.map(({ status }) => status)).toEqual([200, 200, 404]);
    for (const reply of replies) expectDeclared('GET', route, reply);
  });

  it('the index of the problem types: HTML and JSON', async () => {
    const route = '/problems';
    const index = (accept: string) => call(getProblem, get(route, route, { headers: { accept } }));
    const replies = [await index('text/html'), await index('application/json')];

    expect(replies.map(({ status }) => status)).toEqual([200, 200]);
    for (const reply of replies) expectDeclared('GET', route, reply);
  });

  it('the Reconciliation API: manifest, queries, JSONP, suggest, properties, preview, and their refusals', async () => {
    const deps = { reader: reconcileReader(suite.table), visibility: ALL_VISIBLE };
    const reconcile = buildReconcile(deps);
    const suggest = buildSuggest(deps);
    const form = (body: string, type = 'application/x-www-form-urlencoded') =>
      httpEvent({ method: 'POST', route: '/reconcile', headers: { 'content-type': type }, body });
    const queries = `queries=${encodeURIComponent(JSON.stringify({ q0: { query: 'Ada Lovelace' } }))}`;
    const suggestOf = (kind: string) =>
      get('/reconcile/suggest/{kind}', `/reconcile/suggest/${kind}`, {
        pathParameters: { kind },
        query: { prefix: 'lov' },
      });
    const preview = (id: string) => get('/reconcile/preview', '/reconcile/preview', { query: { id } });
    const replies: [string, string, Reply][] = [
      ['GET', '/reconcile', await call(reconcile, get('/reconcile'))],
      [
        'GET',
        '/reconcile',
        await call(reconcile, get('/reconcile', '/reconcile', { query: { callback: 'cb' } })),
      ],
      [
        'GET',
        '/reconcile',
        await call(reconcile, get('/reconcile', '/reconcile', { query: { queries: '{' } })),
      ],
      ['POST', '/reconcile', await call(reconcile, form(queries))],
      ['POST', '/reconcile', await call(reconcile, form('queries=[', 'application/x-www-form-urlencoded'))],
      ['POST', '/reconcile', await call(reconcile, form('{}', 'application/json'))],
      ['GET', '/reconcile/suggest/{kind}', await call(suggest, suggestOf('entity'))],
      ['GET', '/reconcile/suggest/{kind}', await call(suggest, suggestOf('nothing'))],
      ['GET', '/reconcile/properties', await call(suggest, get('/reconcile/properties'))],
      ['GET', '/reconcile/preview', await call(buildPreview(deps), preview(String(person.id)))],
      ['GET', '/reconcile/preview', await call(buildPreview(deps), preview('999999999'))],
    ];

    expect(replies.map(([, , { status }]) => status)).toEqual([
      200, 200, 400, 200, 400, 415, 200, 404, 200, 200, 404,
    ]);
    for (const [method, route, reply] of replies) expectDeclared(method, route, reply);
  });

  it('405 from the router matches the document’s method-not-allowed response', async () => {
    const reply = await call(
      routeNotFound,
      httpEvent({ method: 'PUT', route: '$default', path: '/Person/1' }),
    );
    const declared = document.components.responses?.['method-not-allowed'] as Declared;
    const validate = ajv.getSchema(
      `openapi.json#${pointer('components', 'responses', 'method-not-allowed', 'content', 'application/problem+json', 'schema')}`,
    );

    expect(reply.status).toBe(405);
    expect(Object.keys(declared.content ?? {})).toEqual(['application/problem+json']);
    expect(validate?.(reply.json)).toBe(true);
    expect(reply.headers.allow).toBe('GET, HEAD, PATCH, DELETE');
  });

  it('every operation of the document was checked against a real response', () => {
    const documented = Object.entries(document.paths).flatMap(([route, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${route}`),
    );

    expect(documented.sort()).toEqual(ROUTES.map(({ method, path }) => `${method} ${path}`).sort());
    expect([...checked].sort()).toEqual(documented.sort());
  });

  // -------------------------------------------------------------------------------------------------

  describe('GET /schema/Person', () => {
    it('is a JSON Schema 2020-12 document with its own URL as $id that a real Person satisfies', async () => {
      const reply = await call(handlers.schema as Handler, get('/schema/Person'));
      const schema = reply.json as { $schema: string; $id: string };
      const strict = schemaValidator();
      const validate = strict.compile(schema);
      const { body } = await api().get(person.id);

      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id).toBe(`${BASE}/schema/Person`);
      expect(validate(body) ? [] : validate.errors).toEqual([]);
      expect(validate({ ...body, fullname: undefined, email: 42 })).toBe(false);
    });
  });

  // -------------------------------------------------------------------------------------------------

  describe('JSON-LD', () => {
    const requested: string[] = [];
    /** Serves the context from its handler: no network. */
    const documentLoader = async (url: string): Promise<RemoteDocument> => {
      requested.push(url);
      if (url !== `${BASE}/context.jsonld`) throw new Error(`No network in tests: ${url}`);
      const reply = await call(getContext, get('/context.jsonld'));
      return { documentUrl: url, document: reply.json as JsonLd };
    };
    const iris = (expanded: unknown) => JSON.stringify(expanded);

    it('expands a real GET /Person/{id} into schema.org terms', async () => {
      const { body } = await api().get(person.id);

      const expanded = await jsonld.expand(body, { documentLoader });

      expect(requested).toContain(`${BASE}/context.jsonld`);
      const [node] = expanded as Record<string, unknown>[];
      expect(node?.['@id']).toBe(`${BASE}/Person/${person.id}`);
      expect(node?.['@type']).toEqual(['http://schema.org/Person']);
      expect(node?.['http://schema.org/email']).toEqual([{ '@value': person.email }]);
      expect(node?.['http://schema.org/name']).toEqual([{ '@value': 'Ada Lovelace' }]);
      for (const iri of [
        'http://schema.org/givenName',
        'http://schema.org/familyName',
        'http://schema.org/telephone',
        'http://schema.org/dateCreated',
        'http://schema.org/identifier',
      ])
        expect(iris(expanded)).toContain(iri);
    });

    it('turns a real Person into triples that link its names, emails and phones to it', async () => {
      const { body } = await api().get(person.id);
      const subject = `<${BASE}/Person/${person.id}>`;

      const quads = (await jsonld.toRDF(body, { documentLoader, format: 'application/n-quads' })) as string;

      expect(quads).toContain(`${subject} <http://schema.org/email> "${person.email}" .`);
      const nameNode = /^(_:\S+) <http:\/\/schema\.org\/givenName> "Ada" \.$/m.exec(quads)?.[1];
      expect(nameNode).toBeDefined();
      expect(quads).toContain(`${subject} <${BASE}/context.jsonld#Names> ${nameNode} .`);
      expect(quads).toMatch(/^_:\S+ <http:\/\/schema\.org\/telephone> "\+44 20 7946 0000" \.$/m);
      expect(quads).toContain(
        `${subject} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/Person> .`,
      );
    });

    it('defines a term for every key of every real response, and every response becomes triples', async () => {
      const reply = await call(getContext, get('/context.jsonld'));
      const context = (reply.json as { '@context': Record<string, unknown> })['@context'];
      const keys = new Set<string>();
      // A key mapped to null is left out of the data on purpose, with everything it holds.
      const collect = (value: unknown): void => {
        if (Array.isArray(value)) value.forEach(collect);
        else if (value !== null && typeof value === 'object')
          for (const [key, inner] of Object.entries(value)) {
            if (key.startsWith('@')) collect(inner);
            else if (context[key] !== null) {
              keys.add(key);
              // A JSON literal (a ChangeHistory snapshot) holds JSON, not terms.
              if ((context[key] as { '@type'?: string } | undefined)?.['@type'] !== '@json') collect(inner);
            }
          }
      };
      linkedData.forEach(collect);

      expect(linkedData.length).toBeGreaterThan(10);
      expect([...keys].filter((key) => !(key in context))).toEqual([]);
      for (const body of linkedData) {
        const quads = jsonld.toRDF(body as JsonLd, { documentLoader, format: 'application/n-quads' });
        // A replay's answer holds no schema.org term (the service's own: its type, the subscription's
        // link, the cursor): its triples are those.
        if ((body as { '@type'?: unknown })['@type'] === 'Replay') {
          const { subscription, after } = body as { subscription: string; after: string };
          await expect(quads).resolves.toMatch(`<${BASE}/context.jsonld#Replay> .`);
          await expect(quads).resolves.toMatch(`<${BASE}/context.jsonld#subscription> <${subscription}> .`);
          await expect(quads).resolves.toMatch(`<${BASE}/context.jsonld#afterCursor> "${after}" .`);
        } else await expect(quads).resolves.toMatch(/schema\.org/);
      }
    });
  });
});
