/**
 * HTTP as clients expect it (API.md 2.1), over real HTTP against the real local server (`npm start`'s
 * entry): HEAD wherever GET is served, OPTIONS, CORS (off by default, on with CORS_ORIGINS), and
 * problem types that resolve to a page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORS_ALLOWED_HEADERS } from '../../lib/http/cors';
import { personBody, uniqueEmail } from '../support/api';
import { request } from '../support/http';
import { type ServerProcess, startServer } from '../support/server';
import { serverSuite } from '../support/server-suite';

/** Headers that belong to the connection or the moment, not to the resource's answer. */
const PER_MESSAGE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

const resourceHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => !PER_MESSAGE.has(name)));

const server = serverSuite({ env: { ENRICHMENT: 'off' } });
let personPath: string;

const post = (path: string, body: object, requester = '0') =>
  request(server, 'POST', path, { body, requester });

beforeAll(async () => {
  const created = await post('/Person', personBody('Head', 'Request', uniqueEmail('head')));
  expect(created.status).toBe(201);
  personPath = new URL(created.headers.get('location') as string).pathname;
});

describe('HEAD', () => {
  it.each([
    ['/Person', () => '/Person'],
    ['/Person/{id}', () => personPath],
    ['/openapi.json', () => '/openapi.json'],
    ['/Person/{id} not found', () => '/Person/999999999'],
    ['/Person/export', () => '/Person/export?limit=1'],
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

describe('GET /Person/export', () => {
  it('answers 200 with a page of full persons and the link to the next, which leads to the end', async () => {
    const first = await fetch(`${server.url}/Person/export`);
    const page = (await first.json()) as { '@type': string; '@set': { id: number }[]; next: string | null };

    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(page['@type']).toBe('PersonExport');
    expect(Array.isArray(page['@set'])).toBe(true);
    expect(page).toHaveProperty('next');
    const ids = page['@set'].map(({ id }) => id);
    for (let next = page.next; next !== null; ) {
      expect(next.startsWith(`${server.url}/Person/export?limit=100&cursor=`)).toBe(true);
      const following = (await (await fetch(next)).json()) as typeof page;
      ids.push(...following['@set'].map(({ id }) => id));
      next = following.next;
    }
    expect(ids).toContain(Number(personPath.split('/').pop()));
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

const APP = 'https://app.example.org';
const OTHER = 'https://other.example';

const corsHeaders = (response: Response) =>
  [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));

const preflight = (url: string, path: string, origin: string, method: string) =>
  fetch(`${url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type,x-requester-person',
    },
  });

describe('OPTIONS and CORS, off by default', () => {
  it('answers OPTIONS on a path with 204 and its methods in Allow', async () => {
    const response = await fetch(`${server.url}/Person`, { method: 'OPTIONS' });

    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(await response.text()).toBe('');
  });

  it('answers OPTIONS on a path no route has with 404', async () => {
    expect((await fetch(`${server.url}/Nowhere`, { method: 'OPTIONS' })).status).toBe(404);
  });

  it('sends no CORS header to a preflight or a request from another origin', async () => {
    const answers = [
      await preflight(server.url, '/Person', APP, 'POST'),
      await fetch(`${server.url}/Person`, { headers: { origin: APP } }),
      await fetch(`${server.url}${personPath}`, { headers: { origin: APP } }),
    ];

    expect(answers.map(({ status }) => status)).toEqual([204, 200, 200]);
    for (const answer of answers) expect(corsHeaders(answer)).toEqual([]);
  });
});

describe('CORS with CORS_ORIGINS', () => {
  let cors: ServerProcess;
  beforeAll(async () => {
    cors = await startServer({ env: { ENRICHMENT: 'off', CORS_ORIGINS: `${APP}, http://localhost:5173` } });
  }, 90_000);
  afterAll(async () => {
    await cors?.stop();
  });

  it('answers a preflight from a listed origin with 204, that origin, the path’s methods and the headers', async () => {
    const response = await preflight(cors.url, '/Person', APP, 'POST');

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,HEAD,POST');
    expect(response.headers.get('access-control-allow-headers')?.split(',')).toEqual([
      ...CORS_ALLOWED_HEADERS,
    ]);
    expect(response.headers.get('access-control-max-age')).toBe('3600');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('vary')).toContain('Origin');
    expect(await response.text()).toBe('');
  });

  it('names the methods of the path it is asked about', async () => {
    const response = await preflight(cors.url, personPath, 'http://localhost:5173', 'PATCH');

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PATCH,DELETE');
  });

  it('sends no CORS header to a preflight from an origin not listed', async () => {
    const response = await preflight(cors.url, '/Person', OTHER, 'POST');

    expect(corsHeaders(response)).toEqual([]);
  });

  it('lets a listed origin read the answers: Allow-Origin, ETag and Location exposed, Vary: Origin', async () => {
    const created = await fetch(`${cors.url}/Person`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'application/json', 'x-requester-person': '0' },
      body: JSON.stringify(personBody('Cross', 'Origin', uniqueEmail('cors'))),
    });
    const location = created.headers.get('location') as string;
    const answers = [
      created,
      await fetch(location, { headers: { origin: APP } }),
      await fetch(`${cors.url}/Person`, { headers: { origin: APP } }),
      await fetch(`${cors.url}/Person/999999999`, { headers: { origin: APP } }),
      await fetch(`${cors.url}/openapi.json`, { headers: { origin: APP } }),
    ];

    expect(answers.map(({ status }) => status)).toEqual([201, 200, 200, 404, 200]);
    for (const answer of answers) {
      expect(answer.headers.get('access-control-allow-origin'), answer.url).toBe(APP);
      expect(answer.headers.get('access-control-expose-headers'), answer.url).toBe('ETag,Location');
      expect(answer.headers.get('vary'), answer.url).toContain('Origin');
    }
    expect(answers[1]?.headers.get('vary')).toBe('Origin, Accept');
  });

  it('sends no CORS header to a request from an origin not listed, the public documents’ * included', async () => {
    const answers = [
      await fetch(`${cors.url}/Person`, { headers: { origin: OTHER } }),
      await fetch(`${cors.url}/openapi.json`, { headers: { origin: OTHER } }),
      await fetch(`${cors.url}/problems/not-found`, { headers: { origin: OTHER } }),
    ];

    expect(answers.map(({ status }) => status)).toEqual([200, 200, 200]);
    for (const answer of answers) expect(corsHeaders(answer), answer.url).toEqual([]);
  });

  it('opens the Reconciliation API to any origin, listed or not, with CORS off or on (API.md 12)', async () => {
    const queries = JSON.stringify({ q0: { query: 'Cross Origin' }, q1: { query: 'Cross Origin' } });
    const answers = [];
    for (const url of [server.url, cors.url])
      for (const origin of [APP, OTHER])
        answers.push(
          await fetch(`${url}/reconcile?_=1700000000000`, { headers: { origin } }),
          await fetch(`${url}/reconcile`, {
            method: 'POST',
            headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ queries }),
          }),
        );

    for (const answer of answers) {
      expect(answer.status, answer.url).toBe(200);
      expect(answer.headers.get('access-control-allow-origin'), answer.url).toBe('*');
      expect(answer.headers.get('access-control-allow-credentials'), answer.url).toBeNull();
    }
    const batch = (await answers[5]?.json()) as Record<
      string,
      { result: { name: string; type: unknown[] }[] }
    >;
    expect(batch.q0?.result[0]).toMatchObject({
      name: 'Cross Origin',
      type: [{ id: 'Person', name: 'Person' }],
    });
    expect(batch.q1).toEqual(batch.q0);
    const jsonp = await fetch(`${cors.url}/reconcile?callback=jQuery1_2&_=3`, { headers: { origin: OTHER } });
    expect(jsonp.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await jsonp.text()).toMatch(/^\/\*\*\/ jQuery1_2\(\{"versions":\["0\.2"\]/);
  });

  it('sends an OPTIONS that is no preflight on to the router: 204 with Allow', async () => {
    const response = await fetch(`${cors.url}/Person`, { method: 'OPTIONS', headers: { origin: APP } });

    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(corsHeaders(response)).toEqual([]);
  });
});
