/**
 * Limits and CORS on the real local server (`npm start`'s entry): oversized headers are refused by
 * Node before any handler runs, oversized bodies by the handler (or, past API Gateway's 10 MB, by the
 * server), and the server keeps serving afterwards. No response allows credentials or echoes an
 * arbitrary Origin.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personBody, uniqueEmail } from '../support/api';
import { type ServerProcess, startServer } from '../support/server';

let server: ServerProcess;

beforeAll(async () => {
  server = await startServer({ env: { ENRICHMENT: 'off' } });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const EVIL = 'https://evil.example';

/** A raw HTTP request (fetch refuses some of what these tests send); resolves with status and headers. */
const raw = (method: string, path: string, headers: Record<string, string>, body?: string | Buffer) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>(
    (resolve, reject) => {
      const { hostname, port } = new URL(server.url);
      const call = request({ hostname, port, method, path, headers, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      call.on('error', reject);
      call.end(body);
    },
  );

/**
 * The status of a request Node must refuse. Node answers 431 and closes the connection at once, so a
 * client still writing its headers may see the reset before the answer: that is a refusal too.
 */
const refused = async (sent: ReturnType<typeof raw>) => {
  try {
    return (await sent).status;
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toMatch(/^(ECONNRESET|EPIPE)$/);
    return 'connection reset';
  }
};

/** How many persons the server's list counts: a refused write must not change it. */
const personCount = async () => {
  const response = await fetch(`${server.url}/Person?limit=0`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { Pagination: { count: number } }).Pagination.count;
};

const stillServing = async () => {
  const response = await fetch(`${server.url}/Prefix`);
  expect(response.status).toBe(200);
};

const writeHeaders = { 'content-type': 'application/json', 'x-requester-person': '0' };

describe('oversized requests against the local server', { timeout: 60_000 }, () => {
  it('refuses a 64 KiB header with 431 and keeps serving', async () => {
    const outcome = await refused(raw('GET', '/Person', { 'x-padding': 'a'.repeat(64 * 1024) }));

    expect([431, 'connection reset']).toContain(outcome);
    await stillServing();
  });

  it('refuses many headers that together pass the header limit with 431 and keeps serving', async () => {
    const headers = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`x-h${i}`, 'v'.repeat(100)]));

    const outcome = await refused(raw('GET', '/Person', headers));

    expect([431, 'connection reset']).toContain(outcome);
    await stillServing();
  });

  it('refuses a 300 KiB body with 413 problem+json, stores nothing and keeps serving', async () => {
    const before = await personCount();
    const body = JSON.stringify({
      ...personBody('Big', 'Body', uniqueEmail('big')),
      local_reference_id: 'x'.repeat(300 * 1024),
    });

    const response = await raw('POST', '/Person', writeHeaders, body);

    expect(response.status).toBe(413);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(response.text)).toMatchObject({ type: '/problems/payload-too-large', status: 413 });
    expect(await personCount()).toBe(before);
    await stillServing();
  });

  it('refuses a body over 10 MB (API Gateway refuses those before any function) and keeps serving', async () => {
    const before = await personCount();
    const body = Buffer.alloc(11 * 1024 * 1024, ' ');

    const outcome = await raw('POST', '/Person', writeHeaders, body).catch((error: Error) => error);

    // Either the 413 arrives, or the server closes the connection on the rest of the upload.
    if (!(outcome instanceof Error)) expect(outcome.status).toBe(413);
    expect(await personCount()).toBe(before);
    await stillServing();
  });
});

describe('CORS on the local server', { timeout: 60_000 }, () => {
  const requests: [string, string, Record<string, string>, string?][] = [
    ['GET', '/Person', {}],
    ['GET', '/Person/1', {}],
    ['GET', '/Person/1/audit', {}],
    ['POST', '/Person', writeHeaders, JSON.stringify(personBody('Cors', 'Probe', uniqueEmail('cors')))],
    ['POST', '/Person', writeHeaders, '{not json'],
    ['PATCH', '/Person/1', { ...writeHeaders, 'x-requester-person': '1' }, '{}'],
    ['GET', '/Prefix', {}],
    ['GET', '/openapi.json', {}],
    ['GET', '/schema/Person', {}],
    ['GET', '/context.jsonld', {}],
    ['GET', '/docs', {}],
    ['GET', '/no/such/route', {}],
    [
      'OPTIONS',
      '/Person',
      {
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-requester-person',
      },
    ],
    ['OPTIONS', '/Person/1', { 'access-control-request-method': 'PATCH' }],
  ];

  it.each(requests)(
    '%s %s from another origin, with a cookie: no credentials allowed, the Origin never echoed',
    async (method, path, headers, body) => {
      const response = await raw(method, path, { ...headers, origin: EVIL, cookie: 'session=stolen' }, body);

      expect(response.status).toBeLessThan(500);
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      const allowOrigin = response.headers['access-control-allow-origin'];
      expect([undefined, '*']).toContain(allowOrigin);
      expect(JSON.stringify(response.headers)).not.toContain('evil.example');
    },
  );
});
