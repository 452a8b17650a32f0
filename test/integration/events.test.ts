import { readdir, readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { FALLBACK_HANDLER, ROUTES } from '../../lib/api/routes';
import { useLocalTable } from '../../lib/local/dynamo-local';
import { lambdaContext } from '../../lib/local/lambda-context';
import { createTestTable } from '../support/dynamo';

/**
 * `events/` holds a sample event for every operation (`npm run invoke`, `sam local invoke`): each is
 * a well-formed API Gateway payload 2.0 event for its route, and its handler answers it without a 5xx.
 */
const handlers = [...new Set([...ROUTES.map((route) => route.handler), FALLBACK_HANDLER])];

describe('events/', () => {
  it('has one sample event per handler and no strays', async () => {
    const files = (await readdir('events')).filter((file) => file.endsWith('.json')).sort();
    expect(files).toEqual(handlers.map((handler) => `${handler}.json`).sort());
  });

  it.each(handlers)('events/%s.json is an HTTP API 2.0 event of one of its routes', async (handler) => {
    const event = JSON.parse(await readFile(`events/${handler}.json`, 'utf8')) as APIGatewayProxyEventV2;
    const routeKeys = ROUTES.filter((route) => route.handler === handler).map(
      (route) => `${route.method} ${route.path}`,
    );
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe(event.requestContext.routeKey);
    if (handler === FALLBACK_HANDLER) expect(event.routeKey).toBe('$default');
    else expect(routeKeys).toContain(event.routeKey);
    expect(event.requestContext.http.path).toBe(event.rawPath);
    expect(Object.keys(event.headers).every((name) => name === name.toLowerCase())).toBe(true);
  });
});

describe('events/ against the handlers', () => {
  /** Each handler's status, or what it threw (on import or on the call), in the order it ran. */
  const answers: Record<string, number | string> = {};
  let createdPersonId: number | undefined;

  beforeAll(async () => {
    // Handler modules read TABLE_NAME when imported: point them at a fresh local table first.
    const table = await createTestTable();
    useLocalTable(inject('dynamoEndpoint'), table.tableName);
    // The sample person is made first and erased last: every other event reads or changes it.
    const firstAndLast = ['create-person', 'erase-person'];
    const order = [
      'create-person',
      ...handlers.filter((name) => !firstAndLast.includes(name)),
      'erase-person',
    ];
    for (const handler of order) {
      const event = JSON.parse(await readFile(`events/${handler}.json`, 'utf8'));
      try {
        const module = (await import(`../../functions/${handler}.ts`)) as {
          handler: (event: unknown, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
        };
        const result = await module.handler(event, lambdaContext(handler));
        answers[handler] = result.statusCode ?? 0;
        if (handler === 'create-person') createdPersonId = JSON.parse(result.body ?? '{}').id;
      } catch (error) {
        answers[handler] = `threw: ${(error as Error).message}`;
      }
    }
  }, 60_000);

  it('every sample event gets an answer below 500 from its handler, in the order a newcomer would try them', () => {
    expect(
      Object.entries(answers).filter(([, status]) => typeof status === 'string' || status >= 500),
    ).toEqual([]);
  });

  it('the events name what a fresh table holds, so each does what it shows rather than 404', () => {
    // The person the first create-person makes, the seeded vocabulary entries (PATCH /NamePrefix/1
    // changes the seeded Abbot) and the seed's first ChangeHistory entry.
    expect(answers).toMatchObject({
      'create-person': 201,
      'get-person': 200,
      'update-person': 200,
      'list-person-audit': 200,
      'export-persons': 200,
      'get-prefix': 200,
      'get-suffix': 200,
      'create-name-prefix': 201,
      'get-name-prefix': 200,
      'update-name-prefix': 200,
      'create-name-suffix': 201,
      'get-name-suffix': 200,
      'update-name-suffix': 200,
      'list-change-history': 200,
      'get-change-history': 200,
      // Nothing appends to the feed here (no stream): an empty page and its cursor.
      'list-events': 200,
      'reconcile-persons': 200,
      'suggest-persons': 200,
      'preview-person': 200,
      // A delegate binds a principal to the sample person, then unbinds it.
      'bind-principal': 204,
      'unbind-principal': 204,
      // Last of all, the sample person is erased: 200 with its tombstone.
      'erase-person': 200,
      [FALLBACK_HANDLER]: 405,
    });
  });

  it('name as person and requester only the person the sample create-person makes', async () => {
    expect(createdPersonId).toBeTypeOf('number');
    const named: Record<string, string> = {};
    for (const handler of handlers) {
      const event = JSON.parse(await readFile(`events/${handler}.json`, 'utf8')) as APIGatewayProxyEventV2;
      const requester = event.headers['x-requester-person'];
      if (requester && requester !== '0') named[`${handler} requester`] = requester;
      const route = ROUTES.find((candidate) => `${candidate.method} ${candidate.path}` === event.routeKey);
      if (route?.path.startsWith('/Person/{id}')) named[`${handler} path`] = event.pathParameters?.id ?? '';
    }
    expect(Object.keys(named).length).toBeGreaterThan(0);
    expect(named).toEqual(
      Object.fromEntries(Object.keys(named).map((key) => [key, String(createdPersonId)])),
    );
  });
});
