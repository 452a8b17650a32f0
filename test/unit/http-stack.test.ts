import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readHandler } from '../../lib/http/handler';
import { HttpProblem } from '../../lib/http/problems';
import { httpEvent, invoke, lambdaContext } from '../support/events';

const event = () =>
  httpEvent({ method: 'GET', route: '/Person/{id}', path: '/Person/1', pathParameters: { id: '1' } });

describe('the shared middy stack', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('logs one structured JSON line per request, with the request id and status', async () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const logger = new Logger({ serviceName: 'test', logLevel: 'INFO' });
    const handler = readHandler({ logger }).handler(async () => ({ status: 200, body: { ok: true } }));
    const request = event();
    await invoke(handler, request);
    vi.restoreAllMocks();
    const records = lines.map((line) => JSON.parse(line));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      level: 'INFO',
      message: 'request',
      service: 'test',
      method: 'GET',
      path: '/Person/1',
      status: 200,
      requestId: request.requestContext.requestId,
    });
  });

  it('logs an unexpected error with the request id and answers 500 without its message', async () => {
    const logged: unknown[][] = [];
    const logger = { info: () => undefined, error: (...args: unknown[]) => logged.push(args) };
    const handler = readHandler({ logger: logger as never }).handler(async () => {
      throw new Error('arn:aws:dynamodb:eu-west-1:123:table/prod-persons exploded');
    });
    const request = event();
    const { status, headers, body } = await invoke(handler, request);
    expect(status).toBe(500);
    expect(headers['content-type']).toBe('application/problem+json');
    expect(JSON.stringify(body)).not.toContain('arn:aws');
    expect(logged).toHaveLength(1);
    expect(logged[0]?.[1]).toMatchObject({ requestId: request.requestContext.requestId });
  });

  it('builds absolute URLs from PUBLIC_BASE_URL when it is set', async () => {
    const handler = readHandler({ config: { publicBaseUrl: 'https://persons.example.org/v1' } }).handler(
      async ({ links }) => ({ status: 200, body: links }),
    );
    const { body } = await invoke(handler, event());
    expect(body).toEqual({
      baseUrl: 'https://persons.example.org/v1',
      contextUrl: 'https://persons.example.org/v1/context.jsonld',
    });
  });

  describe('HEAD', () => {
    const head = (path = '/Person/1') =>
      httpEvent({ method: 'HEAD', route: '/Person/{id}', path, pathParameters: { id: '1' } });
    const person = readHandler().handler(async () => ({
      status: 200,
      body: { id: 1, fullname: 'Ada Lovelace' },
      headers: { ETag: '"3"' },
    }));

    it('answers with the status and headers of GET, Content-Type included, and no body', async () => {
      const got = await person(event(), lambdaContext());
      const headed = await person(head(), lambdaContext());

      expect(got.body).toBeTruthy();
      expect(headed.statusCode).toBe(got.statusCode);
      expect(headed.headers).toEqual(got.headers);
      expect(headed.headers?.['Content-Type']).toBe('application/json; charset=utf-8');
      expect(headed.body).toBeUndefined();
    });

    it('drops a raw body and its base64 flag too', async () => {
      const image = readHandler().handler(async () => ({
        status: 200,
        raw: { contentType: 'image/png', content: new Uint8Array([1, 2, 3]) },
      }));

      const headed = await image(head(), lambdaContext());

      expect(headed).toEqual({ statusCode: 200, headers: { 'Content-Type': 'image/png' } });
    });

    it('keeps the status and headers of a refusal, without its problem+json body', async () => {
      const refusing = readHandler().handler(async () => {
        throw new HttpProblem('not-found', 'No person 1');
      });

      const headed = await refusing(head(), lambdaContext());

      expect(headed.statusCode).toBe(404);
      expect(headed.headers?.['Content-Type']).toBe('application/problem+json');
      expect(headed.body).toBeUndefined();
    });
  });

  describe("an operation's own middlewares", () => {
    it('run inside the shared ones: a response they give is the answer, with the stack headers', async () => {
      const calls: string[] = [];
      const handler = readHandler({
        middlewares: [
          {
            before: async (request) => {
              calls.push('before');
              request.response = {
                statusCode: 200,
                headers: { 'X-Replayed': 'yes' },
                body: '{"replayed":true}',
              };
              return request.response;
            },
          },
        ],
      }).handler(async () => {
        calls.push('handler');
        return { status: 200, body: { fresh: true } };
      });

      const { status, headers, body } = await invoke(handler, event());

      expect(calls).toEqual(['before']);
      expect(status).toBe(200);
      expect(headers['x-replayed']).toBe('yes');
      expect(body).toEqual({ replayed: true });
    });

    it('have what they throw answered as problem+json, like any error', async () => {
      const handler = readHandler({
        middlewares: [
          {
            before: async () => {
              throw new HttpProblem('not-found', 'thrown by a middleware');
            },
          },
        ],
      }).handler(async () => ({ status: 200, body: {} }));

      const { status, headers, body } = await invoke(handler, event());

      expect(status).toBe(404);
      expect(headers['content-type']).toBe('application/problem+json');
      expect(body).toMatchObject({ detail: 'thrown by a middleware' });
    });
  });
});
