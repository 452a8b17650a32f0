/**
 * Every log line names the invocation that wrote it (lib/logger.ts `logContext`, first in the HTTP
 * and the stream stacks): a line written deep in the write path, far from any handler, carries the
 * Lambda request id and API Gateway's, and the next invocation's lines carry only its own.
 */
import type { DynamoDBStreamEvent, Context as LambdaContext } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { batchHandler } from '../../lib/batch-handler';
import { appendEvents } from '../../lib/db/feed/feed-appender';
import { personApi, uniqueTag } from '../support/api';
import { testRepository } from '../support/dynamo';
import { httpEvent, invoke, lambdaContext, streamRecord } from '../support/events';
import { injectFaults, sdkError } from '../support/faults';
import { distinctEmails } from '../support/fixtures';
import { integrationSuite } from '../support/suite';

// The test run logs nothing (vitest.config.ts); this file reads the container logger's lines. Set
// before lib/logger.ts loads: each invocation puts the logger back to the level it was built with.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

const suite = integrationSuite();

type LogLine = Record<string, unknown> & { message: string };

/** The JSON lines the loggers write (info on stdout, warnings and errors on stderr) while `run` runs. */
const linesOf = async (run: () => Promise<unknown>): Promise<LogLine[]> => {
  let written = '';
  const capture = (chunk: unknown) => {
    written += String(chunk);
    return true;
  };
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await run();
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return written
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
};

/** The context Lambda gives an invocation, with a request id the test knows. */
const contextWithId = (awsRequestId: string): LambdaContext => ({ ...lambdaContext(), awsRequestId });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('an HTTP invocation', () => {
  /**
   * POST /Person with more postings than its transaction holds, the second transaction of the chain
   * after it failing: the person is created, and the chain's sender (lib/db, four calls below the
   * handler) logs `postings left pending` with the container logger.
   */
  const createCutShort = async (awsRequestId: string) => {
    const create = buildCreate({ persons: testRepository(suite.table) });
    let chainCalls = 0;
    const stop = injectFaults(suite.table.client, (name, input) => {
      const items = (input.TransactItems ?? []) as { ConditionCheck?: { Key?: { sk?: string } } }[];
      const inChain = items.some((action) => action.ConditionCheck?.Key?.sk === 'POSTINGS');
      if (name === 'TransactWriteItemsCommand' && inChain && ++chainCalls === 2)
        return sdkError('InternalServerError');
      return undefined;
    });
    const event = httpEvent({
      method: 'POST',
      route: '/Person',
      requester: 0,
      body: {
        Names: { '@set': [{ first_name: 'Logged', last_name: uniqueTag('Deep') }] },
        Emails: { '@set': distinctEmails(20) },
      },
    });
    try {
      const lines = await linesOf(async () => {
        const { status, body } = await invoke(create, event, contextWithId(awsRequestId));
        expect(status).toBe(201);
        // The person's next write finishes its postings (the suite's invariant check wants them whole).
        await personApi(testRepository(suite.table)).patch(body.id as number, {
          PhoneNumbers: { '@set': [{ phone_number: '+1 202 555 0101' }] },
        });
      });
      return { lines, apiGatewayId: event.requestContext.requestId };
    } finally {
      stop();
    }
  };

  it('names its Lambda request id and API Gateway’s on a line logged deep in the write path', async () => {
    const { lines, apiGatewayId } = await createCutShort('request-deep-1');

    const pending = lines.find((line) => line.message === 'postings left pending');
    expect(pending).toMatchObject({
      level: 'WARN',
      function_request_id: 'request-deep-1',
      correlation_id: apiGatewayId,
      function_name: 'test',
      cold_start: expect.any(Boolean),
    });
  });

  it('gives each invocation its own ids on every line, the next one none of the last', async () => {
    const first = await createCutShort('request-first');
    const second = await createCutShort('request-second');
    expect(first.apiGatewayId).not.toBe(second.apiGatewayId);

    for (const { lines, apiGatewayId, own } of [
      { ...first, own: 'request-first' },
      { ...second, own: 'request-second' },
    ]) {
      // The create's lines: the deep one and its request line, with the create's ids.
      const created = lines.filter((line) => line.function_request_id === own);
      expect(created.map(({ message }) => message)).toEqual(['postings left pending', 'request']);
      for (const line of created) expect(line.correlation_id).toBe(apiGatewayId);
      // The PATCH after it is the next invocation: its lines carry ids of their own, none of the create's.
      const next = lines.filter((line) => line.function_request_id !== own);
      expect(next.map(({ message }) => message)).toEqual(['request']);
      for (const line of next) {
        expect(line.function_request_id).toEqual(expect.any(String));
        expect(line.correlation_id).toEqual(expect.any(String));
        expect(line.correlation_id).not.toBe(apiGatewayId);
      }
    }
  });
});

describe('a stream invocation', () => {
  /** The change feed's appender given a record that is no ChangeHistory entry: it logs an error. */
  const poisonBatch = (): DynamoDBStreamEvent => ({
    Records: [
      streamRecord('INSERT', {
        tableName: suite.table.tableName,
        item: { pk: 'PERSON#1', sk: 'AUDIT#0000000001', type: 'ChangeHistory', id: 'not a number' },
      }),
    ],
  });

  it('names its Lambda request id on the consumer’s own line, and keeps no id of the invocation before', async () => {
    const consumer = batchHandler(appendEvents(suite.table, { publish: async () => undefined }));
    const http = buildCreate({ persons: testRepository(suite.table) });

    const lines = await linesOf(async () => {
      await invoke(
        http,
        httpEvent({ method: 'POST', route: '/Person', requester: 0, body: { Names: 'not a set' } }),
        contextWithId('request-http'),
      );
      await consumer(poisonBatch(), contextWithId('request-stream-1'));
      await consumer(poisonBatch(), contextWithId('request-stream-2'));
    });

    const refused = lines.filter(({ message }) => message.startsWith('feed: a stream record'));
    expect(refused.map((line) => line.function_request_id)).toEqual(['request-stream-1', 'request-stream-2']);
    for (const line of refused) {
      expect(line.level).toBe('ERROR');
      // The HTTP invocation's API Gateway id was dropped when it ended.
      expect(line).not.toHaveProperty('correlation_id');
    }
    expect(lines.find(({ message }) => message === 'request')).toMatchObject({
      function_request_id: 'request-http',
      status: 400,
    });
  });
});
