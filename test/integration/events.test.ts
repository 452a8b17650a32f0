import { readdir, readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, inject, it } from 'vitest';
import { FALLBACK_HANDLER, ROUTES } from '../../lib/http/routes';
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
  it('every sample event gets an answer below 500 from its handler, in the order a newcomer would try them', async () => {
    // Handler modules read TABLE_NAME when imported: point them at a fresh local table first.
    const table = await createTestTable();
    useLocalTable(inject('dynamoEndpoint'), table.tableName);
    const answers: Record<string, number> = {};
    for (const handler of ['create-person', ...handlers.filter((name) => name !== 'create-person')]) {
      const event = JSON.parse(await readFile(`events/${handler}.json`, 'utf8'));
      const module = (await import(`../../functions/${handler}.ts`)) as {
        handler: (event: unknown, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
      };
      answers[handler] = (await module.handler(event, lambdaContext(handler))).statusCode ?? 0;
    }
    expect(Object.entries(answers).filter(([, status]) => status >= 500)).toEqual([]);
    expect(answers['create-person']).toBe(201);
    expect(answers['get-person']).toBe(200);
    expect(answers['update-person']).toBe(200);
    expect(answers[FALLBACK_HANDLER]).toBe(405);
  });
});
