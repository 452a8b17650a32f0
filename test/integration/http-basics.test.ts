/**
 * HTTP as clients expect it (API.md 2.1), over real HTTP against the real local server (`npm start`'s
 * entry): HEAD wherever GET is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personBody, uniqueEmail } from '../support/api';
import { type ServerProcess, startServer } from '../support/server';

/** Headers that belong to the connection or the moment, not to the resource's answer. */
const PER_MESSAGE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

const resourceHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => !PER_MESSAGE.has(name)));

let server: ServerProcess;
let personPath: string;

beforeAll(async () => {
  server = await startServer({ env: { ENRICHMENT: 'off' } });
  const created = await fetch(`${server.url}/Person`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requester-person': '0' },
    body: JSON.stringify(personBody('Head', 'Request', uniqueEmail('head'))),
  });
  expect(created.status).toBe(201);
  personPath = new URL(created.headers.get('location') as string).pathname;
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

describe('HEAD', () => {
  it.each([
    ['/Person', () => '/Person'],
    ['/Person/{id}', () => personPath],
    ['/openapi.json', () => '/openapi.json'],
    ['/Person/{id} not found', () => '/Person/999999999'],
  ])('%s: the status and headers of GET, and no body', async (_, path) => {
    const got = await fetch(`${server.url}${path()}`);
    const headed = await fetch(`${server.url}${path()}`, { method: 'HEAD' });

    expect(await got.text()).not.toBe('');
    expect(headed.status).toBe(got.status);
    expect(resourceHeaders(headed)).toEqual(resourceHeaders(got));
    expect(headed.headers.get('content-type')).toBe(got.headers.get('content-type'));
    expect(await headed.text()).toBe('');
  });

  it('answers a person’s HEAD with its ETag, and 304 to If-None-Match as GET does', async () => {
    const headed = await fetch(`${server.url}${personPath}`, { method: 'HEAD' });
    const etag = headed.headers.get('etag') as string;

    const again = await fetch(`${server.url}${personPath}`, {
      method: 'HEAD',
      headers: { 'if-none-match': etag },
    });

    expect(etag).toBe('"1"');
    expect(again.status).toBe(304);
  });

  it('names HEAD in the Allow of a 405 wherever GET is allowed', async () => {
    const response = await fetch(`${server.url}/Person`, { method: 'DELETE' });

    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});
