/**
 * The deployed webhook delivery (API.md 16), through its two function modules as Lambda runs them:
 * wake-webhooks, given its queue's messages (the bus's events, the schedule's sweep), starts each lane
 * by an asynchronous Invoke of deliver-webhooks, sent by the AWS SDK to a Lambda endpoint on loopback
 * that answers 202 and runs the invoked handler as Lambda would; deliver-webhooks delivers the lane
 * against DynamoDB Local to receivers on loopback, signed, and counts the pauses it makes.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context, SQSEvent } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { feedLog } from '../../lib/db/feed/feed-log';
import { subscriptionStore } from '../../lib/db/webhooks/subscription-store';
import { NO_ORIGIN } from '../../lib/domain/change-history';
import { type FeedEvent, feedEventOf } from '../../lib/domain/feed';
import { CreatePersonBody } from '../../lib/domain/schemas';
import { newSecret, newSubscription } from '../../lib/domain/subscriptions';
import { useLocalTable } from '../../lib/local/dynamo-local';
import { lambdaContext } from '../../lib/local/lambda-context';
import { localSecretBox } from '../../lib/webhooks/secret-box';
import { SWEEP_DETAIL_TYPE } from '../../lib/webhooks/wake-lanes';
import { createTestTable, type TestTable, testRepository } from '../support/dynamo';
import { queueRecord } from '../support/events';
import { metricsReader, total } from '../support/metrics';

const KEY = vi.hoisted(() => {
  const key = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  Object.assign(process.env, {
    POWERTOOLS_METRICS_DISABLED: 'false',
    WEBHOOK_SECRET_KEY: key,
    WEBHOOKS_ALLOW_LOOPBACK: 'on',
    PUBLIC_BASE_URL: 'https://persons.example.org',
    WEBHOOK_DELIVER_FUNCTION: 'deliver-webhooks',
  });
  return key;
});
const BASE_URL = 'https://persons.example.org';
const box = localSecretBox(KEY);
const readMetrics = metricsReader();

type Handler = (event: unknown, context: Context) => Promise<unknown>;
let table: TestTable;
let requester: number;
let wake: Handler;
const servers: Server[] = [];
/** Every invocation the Lambda endpoint took: its function, payload and what the handler returned. */
const invocations: { functionName: string; type: unknown; payload: unknown; done: Promise<unknown> }[] = [];

const listen = async (server: Server) => {
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/**
 * Lambda's Invoke API on loopback (`POST /2015-03-31/functions/<name>/invocations`): an asynchronous
 * invocation is answered 202 at once, and its handler runs afterwards, as Lambda queues it.
 */
const lambdaEndpoint = () =>
  listen(
    createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', async () => {
        const functionName = decodeURIComponent(request.url?.split('/')[3] ?? '');
        const payload = JSON.parse(body);
        const { handler } = (await import(`../../functions/${functionName}.ts`)) as { handler: Handler };
        response.writeHead(202).end();
        invocations.push({
          functionName,
          type: request.headers['x-amz-invocation-type'],
          payload,
          done: handler(payload, lambdaContext(functionName)).catch((error: Error) => error),
        });
      });
    }),
  );

beforeAll(async () => {
  table = await createTestTable();
  // Before any handler module loads: each reads its table from the environment once.
  useLocalTable(inject('dynamoEndpoint'), table.tableName);
  vi.stubEnv('AWS_ENDPOINT_URL_LAMBDA', await lambdaEndpoint());
  const person = await testRepository(table).create(
    CreatePersonBody.parse({
      Names: { '@set': [{ first_name: 'Wake', last_name: `Tester ${randomUUID()}` }] },
    }),
    0,
  );
  requester = person.person.id;
  wake = ((await import('../../functions/wake-webhooks')) as { handler: Handler }).handler;
});
afterAll(() => {
  for (const server of servers) server.close();
  vi.unstubAllEnvs();
});

/** A receiver on loopback answering `status`, recording what it is sent. */
const receiver = async (status: number) => {
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  const url = await listen(
    createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(status).end();
      });
    }),
  );
  return { url: `${url}/hook`, received };
};

const subscribe = async (url: string, types: string[]) => {
  const id = randomUUID();
  const secret = newSecret();
  await subscriptionStore(table).create(
    newSubscription(id, { url, types }, await box.seal(secret, id), { requester, now: new Date() }),
  );
  return { id, secret };
};

let nextId = 3_000_000 + Math.floor(Math.random() * 1_000_000);
const change = (objectId: number, action: 'create' | 'update'): FeedEvent =>
  feedEventOf({
    id: nextId++,
    endpoint: 'Person',
    object_id: objectId,
    version: action === 'create' ? 1 : 2,
    action,
    requester: objectId,
    at: new Date().toISOString(),
    changed: ['/Emails'],
    provider_data: NO_ORIGIN,
  });

/** Runs wake-webhooks on a batch, then waits for every invocation it started. */
const wakeWith = async (event: SQSEvent) => {
  const before = invocations.length;
  const answer = await wake(event, lambdaContext('wake-webhooks'));
  const started = invocations.slice(before);
  return { answer, started, results: await Promise.all(started.map(({ done }) => done)) };
};

/** The schedule's event on the waking queue, as EventBridge puts a scheduled rule's event on SQS. */
const sweepMessage = (): SQSEvent => ({
  Records: [
    {
      ...queueRecord(change(1, 'update')),
      body: JSON.stringify({
        version: '0',
        id: randomUUID(),
        'detail-type': SWEEP_DETAIL_TYPE,
        source: 'aws.events',
        time: new Date().toISOString(),
        resources: ['arn:aws:events:eu-west-1:123456789012:rule/WakeWebhooksSweep'],
        detail: {},
      }),
    },
  ],
});

describe('the deployed webhook functions', () => {
  const subscribed: Record<
    string,
    Awaited<ReturnType<typeof subscribe>> & Awaited<ReturnType<typeof receiver>>
  > = {};

  beforeAll(async () => {
    // Made before the first wake: a container trusts its list of subscriptions for 10 s.
    for (const [name, status, types] of [
      ['creates', 204, ['person.created']],
      ['updates', 200, ['person.updated']],
      ['gone', 410, ['person.updated']],
    ] as const) {
      const hook = await receiver(status);
      subscribed[name] = { ...hook, ...(await subscribe(hook.url, [...types])) };
    }
  });

  it('wakes the lanes of the subscriptions that take a batch’s types, one asynchronous invocation each, which deliver signed', async () => {
    const created = change(41, 'create');
    await feedLog(table).append([created]);
    const { answer, started, results } = await wakeWith({ Records: [queueRecord(created)] });

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(started.map(({ functionName, type, payload }) => ({ functionName, type, payload }))).toEqual([
      {
        functionName: 'deliver-webhooks',
        type: 'Event',
        payload: { subscriptionId: subscribed.creates?.id },
      },
    ]);
    expect(results).toEqual([{ kind: 'idle' }]);
    const [delivery] = subscribed.creates?.received ?? [];
    const event = new Webhook(subscribed.creates?.secret as string).verify(
      delivery?.body as string,
      delivery?.headers as Record<string, string>,
    );
    expect(event).toMatchObject({ type: 'person.created', id: String(created.id), source: BASE_URL });
  });

  it('starts every lane on the schedule’s sweep, and counts the pause a 410 makes', async () => {
    const updated = change(41, 'update');
    await feedLog(table).append([updated]);
    let run: Awaited<ReturnType<typeof wakeWith>> | undefined;
    const points = await readMetrics(async () => {
      run = await wakeWith(sweepMessage());
    });

    const ids = Object.values(subscribed).map(({ id }) => id);
    expect(
      run?.started.map(({ payload }) => (payload as { subscriptionId: string }).subscriptionId).sort(),
    ).toEqual(ids.sort());
    expect(subscribed.updates?.received.map(({ headers }) => headers['webhook-id'])).toEqual([
      String(updated.id),
    ]);
    expect(subscribed.gone?.received).toHaveLength(1);
    const gone = await subscriptionStore(table).get(subscribed.gone?.id as string);
    expect(gone).toMatchObject({ paused: true, paused_reason: expect.stringMatching(/410/) });
    expect(total(points, 'WebhookSubscriptionsPaused')).toBe(1);

    // Paused, it sends nothing more (started or not: a container trusts its list for 10 s).
    await feedLog(table).append([change(41, 'update')]);
    const again = await wakeWith(sweepMessage());
    const goneRuns = again.started
      .map(({ payload }, n) => ({ payload, result: again.results[n] }))
      .filter(
        ({ payload }) => (payload as { subscriptionId: string }).subscriptionId === subscribed.gone?.id,
      );
    for (const { result } of goneRuns) expect(result).toEqual({ kind: 'paused' });
    expect(subscribed.gone?.received).toHaveLength(1);
    expect(subscribed.updates?.received).toHaveLength(2);
  });

  it('fails an invocation that names no subscription, for its dead-letter queue', async () => {
    const { handler } = (await import('../../functions/deliver-webhooks')) as { handler: Handler };
    await expect(handler({}, lambdaContext('deliver-webhooks'))).rejects.toThrow(/no subscriptionId/);
  });
});
