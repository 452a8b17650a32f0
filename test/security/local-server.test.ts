/**
 * Limits and CORS on the real local server (`npm start`'s entry): oversized headers and requests
 * Node cannot parse are refused before any handler runs, oversized bodies by the handler (or, past
 * API Gateway's 10 MB, by the server), every refusal in problem+json, and the server keeps serving
 * afterwards. No response allows credentials or echoes an arbitrary Origin.
 */
import { Agent, type ClientRequest, request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalServer } from '../../lib/local/server';
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

const sendInParts = async (call: ClientRequest, [first, ...rest]: Buffer[]) => {
  call.write(first ?? '');
  for (const part of rest) {
    await new Promise((wait) => setTimeout(wait, 300));
    call.write(part);
  }
  call.end();
};

/**
 * A raw HTTP request (fetch refuses some of what these tests send); resolves with status, headers and
 * whether it went over a connection an earlier request used. A fresh connection unless `agent`. A body
 * in parts is sent with a pause before each further part, so the server reads the first alone.
 */
const raw = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer | Buffer[],
  { agent = false, url = server.url }: { agent?: Agent | false; url?: string } = {},
) =>
  new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    text: string;
    reusedSocket: boolean;
  }>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const call = request({ hostname, port, method, path, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
          reusedSocket: call.reusedSocket,
        }),
      );
    });
    call.on('error', reject);
    if (Array.isArray(body)) void sendInParts(call, body);
    else call.end(body);
  });

/** Bytes written on a socket of their own, and everything the server answers until it closes. */
const rawSocket = (bytes: string) =>
  new Promise<string>((resolve, reject) => {
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });

const expectProblem = (
  response: { status: number; headers: Record<string, string | string[] | undefined>; text: string },
  status: number,
  type: string,
) => {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/problem+json');
  expect(JSON.parse(response.text)).toMatchObject({ type: `/problems/${type}`, status });
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
  it('refuses a 64 KiB header with 431 problem+json, closes the connection and keeps serving', async () => {
    const response = await raw('GET', '/Person', { 'x-padding': 'a'.repeat(64 * 1024) });

    expectProblem(response, 431, 'headers-too-large');
    expect(response.headers.connection).toBe('close');
    await stillServing();
  });

  it('refuses many headers that together pass the header limit with 431 problem+json and keeps serving', async () => {
    const headers = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`x-h${i}`, 'v'.repeat(100)]));

    const response = await raw('GET', '/Person', headers);

    expectProblem(response, 431, 'headers-too-large');
    await stillServing();
  });

  it('refuses a 70 KB query string with 431 problem+json and keeps serving', async () => {
    const response = await raw('GET', `/Person?q=${'a'.repeat(70 * 1000)}`, {});

    expectProblem(response, 431, 'headers-too-large');
    expect(response.headers.connection).toBe('close');
    await stillServing();
  });

  it('refuses a 300 KiB body with 413 problem+json, stores nothing and keeps serving', async () => {
    const before = await personCount();
    const body = JSON.stringify({
      ...personBody('Big', 'Body', uniqueEmail('big')),
      local_reference_id: 'x'.repeat(300 * 1024),
    });

    const response = await raw('POST', '/Person', writeHeaders, body);

    expectProblem(response, 413, 'payload-too-large');
    expect(await personCount()).toBe(before);
    await stillServing();
  });

  /** Two requests over one kept-alive connection: the refused one and a GET after it. */
  const refusedThenNext = async (body: Buffer | Buffer[]) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refusal = await raw('POST', '/Person', writeHeaders, body, { agent });
      const next = await raw('GET', '/Prefix', {}, undefined, { agent });
      return { refusal, next };
    } finally {
      agent.destroy();
    }
  };

  it('refuses a body of 10 MB and a byte (API Gateway refuses those before any function) with 413 problem+json', async () => {
    const before = await personCount();

    const { refusal, next } = await refusedThenNext(Buffer.alloc(10 * 1024 * 1024 + 1, ' '));

    expectProblem(refusal, 413, 'payload-too-large');
    expect(next.status).toBe(200);
    expect(next.reusedSocket).toBe(true);
    expect(await personCount()).toBe(before);
  });

  it('reads a body past 10 MB to its end before refusing it, so the kept-alive connection serves the next request', async () => {
    const mib = 1024 * 1024;
    // The server is past the limit while the last 2 MiB are still on their way.
    const body = [Buffer.alloc(10 * mib + 1, ' '), Buffer.alloc(2 * mib, ' ')];

    const { refusal, next } = await refusedThenNext(body);

    expectProblem(refusal, 413, 'payload-too-large');
    expect(next.status).toBe(200);
    expect(next.reusedSocket).toBe(true);
  });
});

describe('requests Node cannot parse', { timeout: 60_000 }, () => {
  it.each([
    ['a malformed request line', 'GET /Person HTTP/1.1 extra\r\nHost: x\r\n\r\n'],
    ['an unknown method', 'BREW /Person HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a header line without a colon', 'GET /Person HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'],
  ])('answers %s with 400 problem+json and closes the connection', async (_, bytes) => {
    const answer = await rawSocket(bytes);

    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head.toLowerCase()).toContain('content-type: application/problem+json');
    expect(head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body)).toMatchObject({ type: '/problems/validation-error', status: 400 });
    await stillServing();
  });

  it.each([
    ['query', 'GET /Person?first_name=José HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['path', 'GET /Persön HTTP/1.1\r\nHost: x\r\n\r\n'],
  ])('answers an unencoded non-ASCII %s with a 400 that says to percent-encode', async (_, line) => {
    const answer = await rawSocket(line); // written as UTF-8, as curl sends what was typed

    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(body)).toMatchObject({ type: '/problems/validation-error', status: 400 });
    expect(JSON.parse(body).detail).toMatch(/percent-encode it, e\.g\. José as Jos%C3%A9/);
    await stillServing();
  });
});

describe('a function that throws', () => {
  it('is answered with 500 problem+json that says nothing of the error', async () => {
    const local = createLocalServer({
      load: async () => async () => {
        throw new Error('secret detail');
      },
      onError: () => undefined,
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;

      const response = await raw('GET', '/Person', {}, undefined, { url });

      expectProblem(response, 500, 'internal-error');
      expect(response.text).not.toContain('secret');
    } finally {
      local.close();
    }
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
