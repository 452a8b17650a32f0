/**
 * The request ids on the shared HTTP stack's log lines (lib/logger.ts `logContext`), with a logger of
 * the test's own: what an invocation appended never reaches the next, even when it ended without the
 * stack's `after` (test/integration/request-ids.test.ts reads the container logger's lines from deep
 * in the write path).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readHandler } from '../../lib/http/handler';
import { httpEvent, lambdaContext } from '../support/events';

const event = () =>
  httpEvent({ method: 'GET', route: '/Person/{id}', path: '/Person/1', pathParameters: { id: '1' } });

const contextWithId = (awsRequestId: string): Context => ({ ...lambdaContext(), awsRequestId });

/** The JSON lines written on stdout while `run` runs. */
const linesOf = async (run: () => Promise<unknown>) => {
  const lines: Record<string, unknown>[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(JSON.parse(String(chunk)));
    return true;
  });
  await run();
  vi.restoreAllMocks();
  return lines;
};

describe('the request ids on the shared stack’s log lines', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('name the Lambda request id and API Gateway’s on the request line', async () => {
    const logger = new Logger({ serviceName: 'test', logLevel: 'INFO' });
    const handler = readHandler({ logger }).handler(async () => ({ status: 200, body: {} }));
    const request = event();

    const lines = await linesOf(() => handler(request, contextWithId('lambda-1')));

    expect(lines).toEqual([
      expect.objectContaining({
        message: 'request',
        function_request_id: 'lambda-1',
        correlation_id: request.requestContext.requestId,
        function_name: 'test',
        cold_start: expect.any(Boolean),
      }),
    ]);
  });

  it('never include the event, even with POWERTOOLS_LOGGER_LOG_EVENT set', async () => {
    vi.stubEnv('POWERTOOLS_LOGGER_LOG_EVENT', 'true');
    const logger = new Logger({ serviceName: 'test', logLevel: 'INFO' });
    vi.unstubAllEnvs();
    const handler = readHandler({ logger }).handler(async () => ({ status: 201, body: {} }));
    const request = httpEvent({
      method: 'POST',
      route: '/Person',
      body: { Emails: { '@set': [{ email: 'ada@example.org' }] } },
    });

    const lines = await linesOf(() => handler(request, contextWithId('lambda-event')));

    expect(lines.map(({ message }) => message)).toEqual(['request']);
    expect(JSON.stringify(lines)).not.toContain('ada@example.org');
  });

  it('drop what an invocation answered early by a middleware appended, before the next begins', async () => {
    const logger = new Logger({ serviceName: 'test', logLevel: 'INFO' });
    let early = true;
    const handler = readHandler({
      logger,
      middlewares: [
        {
          before: async () => {
            if (!early) return undefined;
            // Answered here: middy runs no `after` of the stack, Powertools' reset among them.
            logger.appendKeys({ person: 'of the first invocation' });
            return { statusCode: 304 };
          },
        },
      ],
    }).handler(async () => ({ status: 200, body: {} }));

    await linesOf(() => handler(event(), contextWithId('lambda-early')));
    early = false;
    const lines = await linesOf(() => handler(event(), contextWithId('lambda-next')));

    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ message: 'request', function_request_id: 'lambda-next', status: 200 });
    expect(lines[0]).not.toHaveProperty('person');
  });
});
