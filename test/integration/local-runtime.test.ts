import type { AddressInfo } from 'node:net';
import type {
  APIGatewayProxyEventV2,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalServer, type HttpFunction } from '../../lib/local/server';

// This file must not import the handler modules (test/support/api.ts does): the local service
// imports them itself, after it has pointed the environment at its own DynamoDB Local.
import { type LocalService, startLocalService } from '../../lib/local/service';

const listen = async (load: (name: string) => Promise<HttpFunction>) => {
  const server = createLocalServer({ load, onError: () => undefined });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

const waitFor = async <T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((wait) => setTimeout(wait, 50));
  }
};

describe('the local server speaks API Gateway HTTP API payload 2.0', () => {
  it('turns a request into a faithful event', async () => {
    let received: APIGatewayProxyEventV2 | undefined;
    let loaded = '';
    const { server, url } = await listen(async (name) => {
      loaded = name;
      return async (event) => {
        received = event;
        return { statusCode: 204 };
      };
    });
    try {
      const bytes = Buffer.from([0, 1, 2, 250, 255]);
      await fetch(`${url}/Person/42?a=1&a=2&b=x%20y`, {
        method: 'PATCH',
        headers: {
          'X-Requester-Person': '7',
          Cookie: 'session=abc; theme=dark',
          'Content-Type': 'application/octet-stream',
        },
        body: bytes,
      });
      expect(loaded).toBe('update-person');
      expect(received).toMatchObject({
        version: '2.0',
        routeKey: 'PATCH /Person/{id}',
        rawPath: '/Person/42',
        rawQueryString: 'a=1&a=2&b=x%20y',
        queryStringParameters: { a: '1,2', b: 'x y' },
        pathParameters: { id: '42' },
        cookies: ['session=abc', 'theme=dark'],
        isBase64Encoded: true,
        requestContext: {
          http: { method: 'PATCH', path: '/Person/42', sourceIp: '127.0.0.1' },
          routeKey: 'PATCH /Person/{id}',
          stage: '$default',
        },
      });
      expect(received?.headers).toMatchObject({
        'x-requester-person': '7',
        'content-type': 'application/octet-stream',
        'x-forwarded-proto': 'http',
      });
      expect(received?.headers).not.toHaveProperty('cookie');
      expect(Object.keys(received?.headers ?? {}).every((name) => name === name.toLowerCase())).toBe(true);
      expect(received?.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(received?.requestContext.timeEpoch).toBeGreaterThan(Date.now() - 10_000);
      expect(Buffer.from(received?.body ?? '', 'base64')).toEqual(bytes);
    } finally {
      server.close();
    }
  });

  it('passes JSON bodies as text and routes unmatched requests to the fallback', async () => {
    const seen: { name: string; event: APIGatewayProxyEventV2 }[] = [];
    const { server, url } = await listen(async (name) => async (event) => {
      seen.push({ name, event });
      return { statusCode: 200, body: '{}' };
    });
    try {
      await fetch(`${url}/Person`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      await fetch(`${url}/Unknown`);
      expect(seen[0]).toMatchObject({
        name: 'create-person',
        event: { isBase64Encoded: false, body: '{"a":1}' },
      });
      expect(seen[1]).toMatchObject({
        name: 'route-not-found',
        event: { routeKey: '$default', rawPath: '/Unknown' },
      });
    } finally {
      server.close();
    }
  });

  it('writes a result back: status, headers, cookies and a base64 body decoded', async () => {
    const bytes = Buffer.from([137, 80, 78, 71, 0, 255]);
    const { server, url } = await listen(async () => async () => ({
      statusCode: 202,
      headers: { 'x-custom': 'yes', 'content-type': 'image/png' },
      cookies: ['a=1; Path=/', 'b=2; HttpOnly'],
      isBase64Encoded: true,
      body: bytes.toString('base64'),
    }));
    try {
      const response = await fetch(`${url}/Person`);
      expect(response.status).toBe(202);
      expect(response.headers.get('x-custom')).toBe('yes');
      expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; HttpOnly']);
      expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
    } finally {
      server.close();
    }
  });
});

describe('the local runtime feeds the table stream to stream handlers', () => {
  const batches: DynamoDBStreamEvent[] = [];
  const retried: DynamoDBStreamEvent[] = [];
  let failOnce = true;
  let service: LocalService;

  beforeAll(async () => {
    service = await startLocalService({
      port: 0,
      log: () => undefined,
      extraConsumers: [
        {
          name: 'watcher',
          handler: async (event) => {
            batches.push(event);
          },
        },
        {
          name: 'flaky',
          accepts: (record) =>
            record.eventName === 'INSERT' && record.dynamodb?.NewImage?.type?.S === 'Person',
          handler: async (event): Promise<DynamoDBBatchResponse> => {
            retried.push(event);
            const first = event.Records[0]?.dynamodb?.SequenceNumber ?? '';
            if (failOnce) {
              failOnce = false;
              return { batchItemFailures: [{ itemIdentifier: first }] };
            }
            return { batchItemFailures: [] };
          },
        },
      ],
    });
  }, 90_000);
  afterAll(async () => {
    await service?.stop();
  });

  const personRecords = (eventName: DynamoDBRecord['eventName'], id: number) =>
    batches
      .flatMap((batch) => batch.Records)
      .filter(
        (record) =>
          record.eventName === eventName &&
          record.dynamodb?.Keys?.pk?.S === `PERSON#${id}` &&
          record.dynamodb?.Keys?.sk?.S === 'PERSON',
      );

  it('delivers INSERT and MODIFY records of a Person with new and old images', async () => {
    const created = await fetch(`${service.url}/Person`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requester-person': '0' },
      body: JSON.stringify({ Names: { '@set': [{ first_name: 'Stream', last_name: 'Watched' }] } }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    await fetch(`${service.url}/Person/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-requester-person': String(id) },
      body: JSON.stringify({ local_reference_id: 'changed' }),
    });

    const [insert] = await waitFor(() =>
      personRecords('INSERT', id).length > 0 ? personRecords('INSERT', id) : undefined,
    );
    const [modify] = await waitFor(() =>
      personRecords('MODIFY', id).length > 0 ? personRecords('MODIFY', id) : undefined,
    );
    expect(insert).toMatchObject({
      eventSource: 'aws:dynamodb',
      eventSourceARN: expect.stringContaining(service.tableName),
      dynamodb: { StreamViewType: 'NEW_AND_OLD_IMAGES', NewImage: { id: { N: String(id) } } },
    });
    expect(insert?.dynamodb?.OldImage).toBeUndefined();
    expect(insert?.dynamodb?.SequenceNumber).toEqual(expect.any(String));
    expect(insert?.dynamodb?.ApproximateCreationDateTime).toEqual(expect.any(Number));
    expect(modify?.dynamodb?.OldImage?.local_reference_id).toEqual({ NULL: true });
    expect(modify?.dynamodb?.NewImage?.local_reference_id).toEqual({ S: 'changed' });
  });

  it('filters records per consumer and redelivers from the first failed record', async () => {
    const deliveries = await waitFor(() => (retried.length >= 2 ? retried : undefined));
    const [first, second] = deliveries;
    expect(first?.Records.every((record) => record.eventName === 'INSERT')).toBe(true);
    expect(second?.Records[0]?.dynamodb?.SequenceNumber).toBe(first?.Records[0]?.dynamodb?.SequenceNumber);
  });
});
