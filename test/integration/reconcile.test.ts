/**
 * The Reconciliation API 0.2 (issue #37, API.md 12) on a table of its own: every answer validated
 * against the JSON Schemas of test/support/reconciliation-schemas.ts, and what OpenRefine 3.6 relies
 * on: form-encoded batches of 10 with duplicates, `limit`, `match: true` only when certain, JSONP,
 * CORS for any origin, extra parameters ignored, bad input 400 problem+json (never 500).
 */
import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_TYPES } from '../../lib/api/problems';
import { reconcileReader } from '../../lib/db/person/read/reconcile-candidates';
import { openApiDocument } from '../../lib/docs/openapi';
import {
  ALL_VISIBLE,
  matchRequestOf,
  QUERY_TEXT_REQUIRED,
  RECONCILE_LIMITS,
  type Visibility,
} from '../../lib/domain/reconcile';
import { previewHandler, reconcileHandler, suggestHandler } from '../../lib/http/reconcile-handlers';
import { personBody } from '../support/api';
import { type EventSpec, httpEvent, lambdaContext } from '../support/events';
import { type ReconcileSchema, reconcileErrors } from '../support/reconciliation-schemas';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const BASE = 'https://api.example.test';
const OTHERS = 60;
const PUBLIC: Visibility = { publicRead: true, publicProperties: ['fullname'] };

const ids: Record<string, string> = {};
let reader: ReturnType<typeof reconcileReader>;

beforeAll(async () => {
  const create = async (key: string, body: unknown) => {
    const { status, body: created } = await suite.api.post(body);
    expect(status).toBe(201);
    ids[key] = String(created.id);
  };
  await create('ada', personBody('Ada', 'Lovelace', 'ada@example.org'));
  await create('smith1', personBody('John', 'Smith', 'js1@example.org'));
  await create('smith2', personBody('John', 'Smith', 'js2@example.org'));
  await create('grace', personBody('Grace', 'Hopper', 'grace@example.org'));
  await create('alan', personBody('Alan', '<Turing>'));
  // Names as people write them (issue #53): hyphenated, family name first, words under 3 code points.
  await create('ngozi', personBody('Ngozi', 'Okonjo-Iweala'));
  await create('xiaoming', personBody('Xiaoming', 'Ma'));
  await create('yuma', personBody('Yu', 'Ma'));
  await create('fatima', personBody('Fatima', 'Sharma'));
  await create('thanh', personBody('Thanh', 'Lý'));
  // Others, so that a query reading every person would show in its cost.
  await Promise.all(
    Array.from({ length: OTHERS }, (_, n) =>
      suite.api.post(personBody(`Other${n}`, `Person${n % 7}`, `other${n}@example.org`)),
    ),
  );
  reader = reconcileReader(suite.table);
}, 60_000);

type Call = Omit<EventSpec, 'route' | 'method'> & { method?: string };

const call = async (
  build: typeof reconcileHandler,
  route: string,
  spec: Call = {},
  visibility: Visibility = ALL_VISIBLE,
): Promise<APIGatewayProxyStructuredResultV2 & { headers: Record<string, string> }> => {
  const handler = build({ reader, visibility });
  const result = await handler(httpEvent({ method: 'GET', route, ...spec }), lambdaContext());
  return {
    ...result,
    headers: Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
    ),
  };
};

const form = (parameters: Record<string, string>): Call => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(parameters).toString(),
});

const json = (result: { body?: string }) => JSON.parse(result.body ?? 'null');

const valid = (schema: ReconcileSchema, result: { statusCode?: number; body?: string }) => {
  expect(result.statusCode).toBe(200);
  const body = json(result);
  expect(reconcileErrors(schema, body)).toEqual([]);
  return body;
};

type Batch = Record<string, { result: { id: string; score: number; match: boolean; features: unknown[] }[] }>;

const reconcile = async (queries: Record<string, unknown>, visibility: Visibility = ALL_VISIBLE) =>
  valid(
    'result-batch',
    await call(reconcileHandler, '/reconcile', form({ queries: JSON.stringify(queries) }), visibility),
  ) as Batch;

describe('the manifest', () => {
  it('is a valid 0.2 manifest built from the base URL, whatever extra parameters come with it', async () => {
    const result = await call(reconcileHandler, '/reconcile', { query: { _: '1700000000000' } });
    const manifest = valid('manifest', result);

    expect(manifest).toMatchObject({
      versions: ['0.2'],
      identifierSpace: `${BASE}/Person/`,
      schemaSpace: `${BASE}/context.jsonld`,
      defaultTypes: [{ id: 'Person', name: 'Person' }],
      view: { url: `${BASE}/Person/{{id}}` },
      suggest: { entity: { service_url: `${BASE}/reconcile`, service_path: '/suggest/entity' } },
    });
    expect(result.headers['access-control-allow-origin']).toBe('*');
    expect(result.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('answers JSONP with a JavaScript media type when a callback is named', async () => {
    const result = await call(reconcileHandler, '/reconcile', {
      query: { callback: 'jQuery36009_1700000000000', _: '1700000000001' },
    });

    expect(result.statusCode).toBe(200);
    expect(result.headers['content-type']).toBe('application/javascript; charset=utf-8');
    const [, inner] = /^\/\*\*\/ jQuery36009_1700000000000\(([\s\S]*)\);$/.exec(result.body ?? '') ?? [];
    expect(reconcileErrors('manifest', JSON.parse(inner ?? 'null'))).toEqual([]);
  });
});

describe('queries', () => {
  it('answers a form-encoded batch of 10 with duplicates, each duplicate alike, each within its limit', async () => {
    const names = ['Ada Lovelace', 'John Smith', 'Grace Hopper', 'Ada Lovelace', 'Jon Smith'];
    const queries = Object.fromEntries(
      Array.from({ length: 10 }, (_, index) => [
        `q${index}`,
        { query: names[index % names.length], ...(index === 9 ? { limit: 1 } : {}) },
      ]),
    );
    const batch = await reconcile(queries);

    expect(Object.keys(batch).sort()).toEqual(Object.keys(queries).sort());
    expect(batch.q3).toEqual(batch.q0);
    expect(batch.q0?.result[0]).toMatchObject({ id: ids.ada, name: 'Ada Lovelace', match: true, score: 100 });
    expect(batch.q9?.result).toHaveLength(1);
    // A misspelt name still finds the Smiths (through the word "smith"), neither certain.
    expect(batch.q4?.result.map(({ id }) => id).sort()).toEqual([ids.smith1, ids.smith2].sort());
    expect(batch.q4?.result.every(({ match }) => !match)).toBe(true);
  });

  it('takes the batch from the query string too', async () => {
    const result = await call(reconcileHandler, '/reconcile', {
      query: { queries: JSON.stringify({ q0: { query: 'Grace Hopper', limit: 3 } }) },
    });
    expect((valid('result-batch', result) as Batch).q0?.result[0]).toMatchObject({
      id: ids.grace,
      match: true,
    });
  });

  it('marks the holder of an exact email as certain, namesake or not', async () => {
    const batch = await reconcile({
      q0: { query: 'John Smith', properties: [{ pid: 'email', v: 'JS2@example.org' }] },
      q1: { query: 'J. Smith', type: 'Person', properties: [{ pid: 'email', v: 'js1@example.org' }] },
    });

    expect(batch.q0?.result[0]).toMatchObject({ id: ids.smith2, match: true, score: 100 });
    expect(batch.q0?.result[0]?.features).toContainEqual({ id: 'email', value: true });
    expect(batch.q0?.result.slice(1).every(({ match }) => !match)).toBe(true);
    expect(batch.q1?.result[0]).toMatchObject({ id: ids.smith1, match: true });
  });

  it('never marks namesakes without an email as certain', async () => {
    const batch = await reconcile({ q0: { query: 'John Smith', type: ['Person'] } });

    expect(
      batch.q0?.result
        .slice(0, 2)
        .map(({ id }) => id)
        .sort(),
    ).toEqual([ids.smith1, ids.smith2].sort());
    expect(batch.q0?.result.every(({ match }) => !match)).toBe(true);
  });

  it('answers no candidates, not an error, for another type or nothing to look up', async () => {
    const batch = await reconcile({
      q0: { query: 'Ada Lovelace', type: 'Organization' },
      q1: { query: '' },
      q2: { query: 'zzqqxx' },
      q3: { query: 'Ada', properties: [{ pid: 'nonsense', v: { id: 'x' } }], type_strict: 'should' },
    });

    expect([batch.q0, batch.q1, batch.q2].map((answer) => answer?.result)).toEqual([[], [], []]);
    expect(batch.q3?.result.map(({ id }) => id)).toContain(ids.ada);
  });

  it('ignores the email under the public-read option unless it is public', async () => {
    const batch = await reconcile(
      { q0: { query: 'John Smith', properties: [{ pid: 'email', v: 'js2@example.org' }] } },
      PUBLIC,
    );

    expect(batch.q0?.result.every(({ match }) => !match)).toBe(true);
    expect(JSON.stringify(batch)).not.toContain('"email"');
  });

  it('reads what the answer holds, not the table', async () => {
    const { candidates, cost } = await reader.candidates(matchRequestOf({ query: 'Grace Hopper' }));
    console.log(`reconcile cost of "Grace Hopper" among ${OTHERS + 5} persons`, cost);

    expect(candidates.map(({ id }) => String(id))).toContain(ids.grace);
    expect(cost.itemsRead).toBeLessThan(OTHERS);
  });

  it('looks a name of 2 code points up by the values it ends, never by every gram it starts', async () => {
    // `al` starts Alan's grams, but no value ends in it: nothing found, nothing but its end gram read.
    const { candidates, cost, detail } = await reader.candidates(matchRequestOf({ query: 'Al' }));
    expect(candidates).toEqual([]);
    expect(detail.searched).toBe('al\n');
    expect(cost.itemsRead).toBe(0);
  });

  it('finds a name whose words are all under 3 code points, reading only what ends in them (issue #53)', async () => {
    const { candidates, cost, detail } = await reader.candidates(matchRequestOf({ query: 'X. Ma' }));
    expect(detail.searched).toBe('x. ma|ma\n');
    // Every person with a value ending in "ma" (Sharma's too), no one else.
    expect(candidates.map(({ id }) => String(id)).sort()).toEqual(
      [ids.xiaoming, ids.yuma, ids.fatima].sort(),
    );
    expect(cost.itemsRead).toBeLessThan(10);

    const batch = await reconcile({ q0: { query: 'X. Ma' }, q1: { query: 'Ma Yu' }, q2: { query: 'T Lý' } });
    expect(batch.q0?.result[0]).toMatchObject({ id: ids.xiaoming, match: false });
    // Family name first, words of 2: her name in another order, and no one else's: certain.
    expect(batch.q1?.result[0]).toMatchObject({ id: ids.yuma, match: true, score: 100 });
    expect(batch.q1?.result.slice(1).every(({ match }) => !match)).toBe(true);
    expect(batch.q2?.result[0]).toMatchObject({ id: ids.thanh, match: false });
  });

  it('reads a hyphen as a space and a unique name family name first as certain (issue #53)', async () => {
    const batch = await reconcile({
      q0: { query: 'Ngozi Okonjo Iweala' },
      q1: { query: 'Okonjo-Iweala Ngozi' },
      q2: { query: 'Okonjo Iweala Ngozi' },
      // Namesakes in another order are no more certain than in theirs.
      q3: { query: 'Smith John' },
    });
    for (const key of ['q0', 'q1', 'q2'])
      expect(batch[key]?.result[0], key).toMatchObject({ id: ids.ngozi, match: true, score: 100 });
    expect(
      batch.q3?.result
        .slice(0, 2)
        .map(({ id }) => id)
        .sort(),
    ).toEqual([ids.smith1, ids.smith2].sort());
    expect(batch.q3?.result.every(({ match }) => !match)).toBe(true);
  });
});

describe('refusals', () => {
  it.each([
    ['queries that are not JSON', form({ queries: '{"q0": {"query": ' })],
    ['queries of the wrong shape', form({ queries: JSON.stringify({ q0: { query: 'x', limit: 'many' } }) })],
    ['queries that are not an object', form({ queries: '[1, 2]' })],
    ['extend that is not JSON', { query: { extend: 'ids' } }],
    ['extend without ids', { query: { extend: JSON.stringify({ properties: [] }) } }],
    ['a callback that is no function name', { query: { callback: 'alert(1)//' } }],
  ])('%s: 400 problem+json, open to any origin', async (_, spec) => {
    const result = await call(reconcileHandler, '/reconcile', spec);

    expect(result.statusCode).toBe(400);
    expect(result.headers['content-type']).toBe('application/problem+json');
    expect(json(result)).toMatchObject({ type: '/problems/validation-error', status: 400 });
    expect(result.headers['access-control-allow-origin']).toBe('*');
  });

  it('refuses a body that is not form-encoded with 415, title and detail saying one thing', async () => {
    const result = await call(reconcileHandler, '/reconcile', { method: 'POST', body: { queries: {} } });
    expect(result.statusCode).toBe(415);
    const problem = json(result);
    expect(problem).toMatchObject({
      type: '/problems/unsupported-media-type',
      title: PROBLEM_TYPES['unsupported-media-type'].title,
    });
    // The title claims no media type (the route takes a form, another route JSON); the detail names
    // the one this route takes, and the one sent.
    expect(problem.title).not.toMatch(/json|form/i);
    expect(problem.detail).toMatch(
      /form-encoded \(Content-Type: application\/x-www-form-urlencoded\), not as application\/json/,
    );
    expect(result.headers['access-control-allow-origin']).toBe('*');
  });

  const refusal = async (queries: string) => {
    const result = await call(reconcileHandler, '/reconcile', form({ queries }));
    expect(result.statusCode).toBe(400);
    expect(result.headers['content-type']).toBe('application/problem+json');
    const problem = json(result);
    expect(problem).toMatchObject({ type: '/problems/validation-error', status: 400 });
    return problem as { detail: string; errors: { path: string; message: string }[] };
  };

  it.each([
    ['a query without query', { q0: { quer: 'x' } }, '/queries/q0/quer', /Unknown property/],
    ['a query whose query is not a string', { q0: { query: ['Ada'] } }, '/queries/q0/query', /string/],
    ['a query that is not an object', { q1: 'Ada Lovelace' }, '/queries/q1', /object/],
    ['a batch that is not an object of queries', 'Ada Lovelace', '/queries', /JSON object of queries/],
    [
      'a property without pid',
      { q0: { query: 'x', properties: [{ v: 'x' }] } },
      '/queries/q0/properties/0/pid',
      /string/,
    ],
  ])('refuses %s with 400, saying what is wrong and where', async (_, queries, path, message) => {
    const problem = await refusal(JSON.stringify(queries));
    expect(problem.errors[0]).toEqual({ path, message: expect.stringMatching(message) });
    expect(problem.detail).toContain(`${path}: `);
  });

  it('refuses a query without query whatever else it holds, and answers one with properties alone', async () => {
    const problem = await refusal(JSON.stringify({ q0: { type: 'Person', limit: 3 } }));
    expect(problem.errors).toEqual([{ path: '/queries/q0/query', message: QUERY_TEXT_REQUIRED }]);

    const batch = await reconcile({ q0: { properties: [{ pid: 'email', v: 'grace@example.org' }] } });
    expect(batch.q0?.result[0]).toMatchObject({ id: ids.grace, match: true });
  });

  it(`refuses a batch of more than ${RECONCILE_LIMITS.maxQueries} queries, the detail naming the limit`, async () => {
    const batchOf = (count: number) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, index) => [`q${index}`, { query: 'Ada Lovelace' }]),
      );
    expect(Object.keys(await reconcile(batchOf(RECONCILE_LIMITS.maxQueries)))).toHaveLength(
      RECONCILE_LIMITS.maxQueries,
    );
    const problem = await refusal(JSON.stringify(batchOf(RECONCILE_LIMITS.maxQueries + 1)));
    expect(problem.detail).toContain(
      `at most ${RECONCILE_LIMITS.maxQueries} queries, not ${RECONCILE_LIMITS.maxQueries + 1}`,
    );
  });

  it('publishes the batch limit in /openapi.json and docs/matching.md', async () => {
    const { paths } = openApiDocument();
    const limit = `at most ${RECONCILE_LIMITS.maxQueries} queries`;
    expect(paths['/reconcile']?.get?.description).toContain(limit);
    expect(paths['/reconcile']?.post?.description).toContain(limit);
    expect(await readFile(new URL('../../docs/matching.md', import.meta.url), 'utf8')).toMatch(
      new RegExp(`at most\\s+${RECONCILE_LIMITS.maxQueries}\\s+queries`),
    );
  });
});

describe('data extension', () => {
  it('answers rows keyed by the ids exactly as sent, with meta', async () => {
    const extend = {
      ids: [ids.ada, '999999999', 'not-an-id'],
      properties: [{ id: 'fullname' }, { id: 'email' }, { id: 'phones' }],
    };
    const body = valid(
      'extend',
      await call(reconcileHandler, '/reconcile', form({ extend: JSON.stringify(extend) })),
    );

    expect(body.meta).toEqual([
      { id: 'fullname', name: 'Full name' },
      { id: 'email', name: 'Primary email' },
      { id: 'phones', name: 'Phone numbers' },
    ]);
    expect(Object.keys(body.rows)).toEqual(extend.ids);
    expect(body.rows[ids.ada as string]).toEqual({
      fullname: [{ str: 'Ada Lovelace' }],
      email: [{ str: 'ada@example.org' }],
      phones: [],
    });
    expect(body.rows['999999999']).toEqual({ fullname: [], email: [], phones: [] });
  });

  it('shows only fullname under the public-read option', async () => {
    const extend = { ids: [ids.ada], properties: [{ id: 'fullname' }, { id: 'email' }] };
    const body = valid(
      'extend',
      await call(reconcileHandler, '/reconcile', { query: { extend: JSON.stringify(extend) } }, PUBLIC),
    );
    expect(body.rows[ids.ada as string]).toEqual({ fullname: [{ str: 'Ada Lovelace' }], email: [] });
  });
});

describe('suggest and proposed properties', () => {
  const WIDGET = {
    spell: 'always',
    exact: 'false',
    prefixed: 'true',
    scoring: 'schema',
    type: 'Person',
    _: '17',
  };
  const suggest = (kind: string, query: Record<string, string>) =>
    call(suggestHandler, '/reconcile/suggest/{kind}', {
      path: `/reconcile/suggest/${kind}`,
      pathParameters: { kind },
      query,
    });

  it('suggests persons by a prefix, ignoring what the widget adds', async () => {
    const body = valid('suggest', await suggest('entity', { prefix: 'lovel', ...WIDGET }));
    expect(body.result).toContainEqual({
      id: ids.ada,
      name: 'Ada Lovelace',
      notable: [{ id: 'Person', name: 'Person' }],
    });
  });

  it.each([
    ['property', 'first', ['first_name']],
    ['type', 'pers', ['Person']],
  ])('suggests a %s', async (kind, prefix, expected) => {
    const body = valid('suggest', await suggest(kind, { prefix, ...WIDGET }));
    expect(body.result.map(({ id }: { id: string }) => id)).toEqual(expected);
  });

  it('answers JSONP for the suggest widget', async () => {
    const result = await suggest('type', { prefix: 'p', callback: 'cb', _: '1' });
    expect(result.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(result.body).toMatch(/^\/\*\*\/ cb\(\{"result":/);
  });

  it('knows no other suggest service', async () => {
    expect((await suggest('nonsense', { prefix: 'x' })).statusCode).toBe(404);
  });

  it('proposes the properties of data extension', async () => {
    const result = await call(suggestHandler, '/reconcile/properties', {
      query: { type: 'Person', limit: '3' },
    });
    expect(valid('propose-properties', result).properties).toHaveLength(3);
  });
});

describe('the preview', () => {
  it('is a small escaped HTML card that may be framed', async () => {
    const result = await call(previewHandler, '/reconcile/preview', { query: { id: ids.alan as string } });

    expect(result.statusCode).toBe(200);
    expect(result.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(result.body).toContain('Alan &lt;Turing&gt;');
    expect(result.body).not.toContain('<Turing>');
    expect(result.headers['x-frame-options']).toBeUndefined();
    expect(result.headers['content-security-policy']).not.toMatch(/frame-ancestors/);
  });

  it('is 404 for an id no person has', async () => {
    expect(
      (await call(previewHandler, '/reconcile/preview', { query: { id: '999999999' } })).statusCode,
    ).toBe(404);
  });
});
