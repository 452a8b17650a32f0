/**
 * GET /problems/{name}: every problem `type` resolves to a page that says what it means and what to
 * do (API.md 2.1), HTML by default and JSON when `Accept` prefers it; an unknown name is 404.
 */
import { describe, expect, it } from 'vitest';
import { handler } from '../../../functions/get-problem';
import { PROBLEM_TYPES, type ProblemType } from '../../../lib/api/problems';
import { escapeHtml, problemTypeHtml } from '../../../lib/docs/problem-page';
import { httpEvent, lambdaContext } from '../../support/events';

const NAMES = Object.keys(PROBLEM_TYPES) as ProblemType[];

const problemPage = async (name: string, accept?: string, method = 'GET') => {
  const event = httpEvent({
    method,
    route: '/problems/{name}',
    path: `/problems/${encodeURIComponent(name)}`,
    pathParameters: { name },
  });
  if (accept === undefined) delete event.headers.accept;
  else event.headers.accept = accept;
  const result = await handler(event, lambdaContext());
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([key, value]) => [key.toLowerCase(), String(value)]),
  );
  return { status: result.statusCode, headers, body: result.body ?? '' };
};

describe('GET /problems/{name}', () => {
  it.each(NAMES)('answers /problems/%s with its title, status and description as HTML', async (name) => {
    const { title, status, description } = PROBLEM_TYPES[name];

    const page = await problemPage(name);

    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain(`<h1>${escapeHtml(title)}</h1>`);
    expect(page.body).toContain(`<code>/problems/${name}</code>`);
    expect(page.body).toContain(`<dd>${status}</dd>`);
    expect(page.body).toContain(escapeHtml(description.split('`')[0] as string));
  });

  it.each(NAMES)('describes %s in a few sentences, not in its title again', (name) => {
    const { title, description } = PROBLEM_TYPES[name];

    expect(description.length).toBeGreaterThan(60);
    expect(description).not.toBe(title);
  });

  it('answers HTML to a browser, which takes anything but prefers HTML', async () => {
    const page = await problemPage(
      'duplicate-email',
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    );

    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it.each(['application/json', 'application/problem+json', 'application/problem+json, text/html;q=0.5'])(
    'answers JSON { type, title, status, description } when Accept is %s',
    async (accept) => {
      const page = await problemPage('duplicate-email', accept);

      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(page.body)).toEqual({
        type: '/problems/duplicate-email',
        title: PROBLEM_TYPES['duplicate-email'].title,
        status: 409,
        description: PROBLEM_TYPES['duplicate-email'].description,
      });
    },
  );

  it('says caches may keep it and that it varies by Accept, unlike the rest of the API', async () => {
    for (const accept of ['text/html', 'application/json']) {
      const page = await problemPage('not-found', accept);

      expect(page.headers['cache-control']).toBe('public, max-age=3600');
      expect(page.headers.vary).toBe('Accept');
    }
  });

  it('lets the HTML page load nothing and run nothing', async () => {
    const page = await problemPage('not-found', 'text/html');

    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).not.toContain('<script');
  });

  it.each(['no-such-problem', 'constructor', '__proto__', 'toString', '<script>'])(
    'answers an unknown name (%s) with 404 problem+json',
    async (name) => {
      const page = await problemPage(name, 'text/html');

      expect(page.status).toBe(404);
      expect(page.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(page.body)).toMatchObject({ type: '/problems/not-found', status: 404 });
    },
  );

  it('answers HEAD with the headers of GET and no body', async () => {
    const got = await problemPage('unavailable', 'text/html');
    const headed = await problemPage('unavailable', 'text/html', 'HEAD');

    expect(headed.headers).toEqual(got.headers);
    expect(headed.body).toBe('');
  });
});

describe('the HTML page', () => {
  it('escapes what it prints: title, description and links', () => {
    const html = problemTypeHtml(
      {
        type: '/problems/x',
        title: '<img src=x onerror=alert(1)>',
        status: 400,
        description: 'Send `<b>` & "quotes"',
      },
      'https://api.example.test/"><script>',
    );

    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('Send <code>&lt;b&gt;</code> &amp; &quot;quotes&quot;');
    expect(html).toContain('href="https://api.example.test/&quot;&gt;&lt;script&gt;/docs"');
  });
});

describe('GET /problems: the index of every problem type (issue #53 step 3)', () => {
  const index = async (accept?: string, method = 'GET') => {
    const event = httpEvent({ method, route: '/problems', path: '/problems' });
    if (accept === undefined) delete event.headers.accept;
    else event.headers.accept = accept;
    const result = await handler(event, lambdaContext());
    const headers = Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([key, value]) => [key.toLowerCase(), String(value)]),
    );
    return { status: result.statusCode, headers, body: result.body ?? '' };
  };

  it('answers JSON on Accept: application/json, every type of the catalogue with its URL, title and status', async () => {
    const page = await index('application/json');

    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(page.body)).toEqual(
      NAMES.map((name) => ({
        type: `/problems/${name}`,
        title: PROBLEM_TYPES[name].title,
        status: PROBLEM_TYPES[name].status,
      })),
    );
  });

  it('answers HTML by default, each type linked to its page with its status and title', async () => {
    const page = await index();

    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const name of NAMES) {
      const { title, status } = PROBLEM_TYPES[name];
      expect(page.body).toContain(`/problems/${name}"><code>/problems/${name}</code></a>`);
      expect(page.body).toContain(`<dd>${status} ${escapeHtml(title)}</dd>`);
    }
  });

  it('answers HEAD with the same status and headers, no body', async () => {
    const [got, headed] = [await index('application/json'), await index('application/json', 'HEAD')];
    expect(headed.status).toBe(200);
    expect(headed.headers['content-type']).toBe(got.headers['content-type']);
    expect(headed.body).toBe('');
  });
});
