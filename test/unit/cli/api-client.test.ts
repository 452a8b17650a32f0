import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiClient, retryAfterMs } from '../../../lib/cli/api-client';

type Reply = (request: IncomingMessage, response: ServerResponse) => void;

/** A loopback server answering each request with the next scripted reply (the last one repeats). */
let server: Server;
let api: string;
let replies: Reply[] = [];
let seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      const reply = replies[Math.min(seen.length, replies.length) - 1];
      reply?.(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  replies = [];
  seen = [];
});

const status =
  (code: number, headers: Record<string, string> = {}, body = ''): Reply =>
  (_, response) => {
    response.writeHead(code, headers);
    response.end(body);
  };
const created = status(201, { 'content-type': 'application/json' }, '{"id":7}');
const problem = (code: number, type: string, headers: Record<string, string> = {}) =>
  status(
    code,
    { 'content-type': 'application/problem+json', ...headers },
    JSON.stringify({ type: `/problems/${type}`, status: code }),
  );
/** Ends the connection without an answer, as a dropped connection or a crashed server does. */
const drop: Reply = (request) => request.socket.destroy();

/** A client that records its waits instead of sleeping them. */
const recording = (options: { patienceMs?: number } = {}) => {
  const waits: number[] = [];
  const client = apiClient({
    api,
    sleep: async (ms) => {
      waits.push(ms);
    },
    backoff: (attempt) => attempt * 10,
    ...options,
  });
  return { client, waits };
};

const keyedPost = {
  method: 'POST',
  path: '/Person',
  headers: { 'idempotency-key': 'k-1' },
  body: '{}',
} as const;

describe('the API client', () => {
  it('sends the method, path, JSON headers and body as given', async () => {
    replies = [created];
    const { client } = recording();

    const answer = await client.send({
      ...keyedPost,
      headers: { ...keyedPost.headers, 'x-requester-person': '0' },
    });

    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.text)).toEqual({ id: 7 });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/Person', body: '{}' });
    expect(seen[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json',
      'idempotency-key': 'k-1',
      'x-requester-person': '0',
    });
  });

  it.each([
    ['429 Too Many Requests', problem(429, 'too-many-requests', { 'retry-after': '2' })],
    ['503 with Retry-After', problem(503, 'unavailable', { 'retry-after': '2' })],
    ['409 request-in-progress of the same key', problem(409, 'request-in-progress', { 'retry-after': '2' })],
  ])('waits what Retry-After says after a %s, then sends the same request again', async (_, wait) => {
    replies = [wait, created];
    const { client, waits } = recording();

    const answer = await client.send(keyedPost);

    expect(answer.status).toBe(201);
    expect(waits).toEqual([2_000]);
    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual(['k-1', 'k-1']);
    expect(client.retries).toBe(1);
  });

  it('backs off on its own when a 503 says nothing of when', async () => {
    replies = [problem(503, 'unavailable'), problem(503, 'unavailable'), created];
    const { client, waits } = recording();

    expect((await client.send(keyedPost)).status).toBe(201);
    expect(waits).toEqual([10, 20]);
  });

  it('sends a keyed write again after a dropped connection: the key makes finding out safe', async () => {
    replies = [drop, created];
    const { client } = recording();

    expect((await client.send(keyedPost)).status).toBe(201);
    expect(seen).toHaveLength(2);
  });

  it('never repeats a write without an Idempotency-Key: a 503 is answered, a dropped connection thrown', async () => {
    const { client } = recording();
    const unkeyed = { method: 'POST', path: '/Person', body: '{}' } as const;

    replies = [problem(503, 'unavailable', { 'retry-after': '1' })];
    expect((await client.send(unkeyed)).status).toBe(503);
    replies = [drop];
    seen = [];
    await expect(client.send(unkeyed)).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });

  it('answers a refusal at once: a 409 duplicate, a 400 and a 422 are not told to wait', async () => {
    const { client } = recording();
    for (const [code, type] of [
      [409, 'duplicate-email'],
      [400, 'validation-error'],
      [422, 'idempotency-key-reused'],
    ] as const) {
      replies = [problem(code, type), created];
      seen = [];
      expect((await client.send(keyedPost)).status).toBe(code);
      expect(seen).toHaveLength(1);
    }
  });

  it('gives up when its patience is spent, with the last answer', async () => {
    replies = [problem(503, 'unavailable', { 'retry-after': '0' })];
    const { client } = recording({ patienceMs: 50 });

    const answer = await client.send(keyedPost);

    expect(answer.status).toBe(503);
    expect(seen.length).toBeGreaterThan(1);
  });

  it('sends a bearer token when given one', async () => {
    replies = [status(200, {}, '{}')];
    const client = apiClient({ api, token: 'eyJ.token' });

    await client.send({ method: 'GET', path: '/Person?limit=0' });

    expect(seen[0]?.headers.authorization).toBe('Bearer eyJ.token');
  });
});

describe('Retry-After', () => {
  it.each([
    ['2', 2_000],
    ['0', 0],
    ['Thu, 26 Nov 2026 10:00:05 GMT', 5_000],
    ['Thu, 26 Nov 2026 09:00:00 GMT', 0],
    ['soon', undefined],
    ['', undefined],
    [null, undefined],
  ])('reads %j as %j ms', (value, ms) => {
    expect(retryAfterMs(value, Date.parse('2026-11-26T10:00:00Z'))).toBe(ms);
  });
});
