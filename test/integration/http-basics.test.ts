/**
 * HTTP as clients expect it (API.md 2.1), over real HTTP against the real local server (`npm start`'s
 * entry): HEAD wherever GET is served, and problem types that resolve to a page.
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

const post = (path: string, body: unknown, requester = '0') =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requester-person': requester },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  server = await startServer({ env: { ENRICHMENT: 'off' } });
  const created = await post('/Person', personBody('Head', 'Request', uniqueEmail('head')));
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

describe('problem types', () => {
  it('/problems/duplicate-email answers an HTML page by default, public and cacheable', async () => {
    const response = await fetch(`${server.url}/problems/duplicate-email`);
    const html = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(html).toContain('<h1>Email address already in use</h1>');
    expect(html).toContain('<code>/problems/duplicate-email</code>');
  });

  it('/problems/duplicate-email answers JSON when Accept prefers it', async () => {
    const response = await fetch(`${server.url}/problems/duplicate-email`, {
      headers: { accept: 'application/problem+json' },
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      type: '/problems/duplicate-email',
      title: 'Email address already in use',
      status: 409,
      description: expect.stringContaining('existing'),
    });
  });

  it('answers an unknown problem type with 404 problem+json', async () => {
    const response = await fetch(`${server.url}/problems/no-such-problem`);

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
  });

  it('resolves the type every real 409 names to the page of that type', async () => {
    const email = uniqueEmail('twice');
    const name = `Twice${Date.now()}`;
    await post('/Person', personBody('Email', 'Twice', email));
    await post('/Person', personBody(name, 'Nameless'));
    const requester = personPath.split('/').pop() as string;
    const conflicts = [
      await post('/Person', personBody('Email', 'Again', email)),
      await post('/Person', personBody(name, 'Nameless')),
      await post('/NamePrefix', { prefix: 'Doctor again', abbreviation: 'Dr.' }, requester),
    ];
    expect(conflicts.map(({ status }) => status)).toEqual([409, 409, 409]);
    const problems = (await Promise.all(conflicts.map((response) => response.json()))) as {
      type: string;
      title: string;
      status: number;
    }[];
    expect(problems.map(({ type }) => type)).toEqual([
      '/problems/duplicate-email',
      '/problems/duplicate-name',
      '/problems/duplicate-abbreviation',
    ]);

    for (const problem of problems) {
      const page = await fetch(new URL(problem.type, `${server.url}/Person`), {
        headers: { accept: 'application/json' },
      });
      expect(page.status, problem.type).toBe(200);
      expect(await page.json()).toMatchObject({
        type: problem.type,
        title: problem.title,
        status: problem.status,
      });
    }
  });
});
