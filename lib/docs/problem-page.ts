/**
 * The page a problem's `type` resolves to (API.md 2.1): `GET /problems/<name>` says what the problem
 * means and what a client should do, from the one catalogue in lib/http/problems.ts. HTML for people
 * following the link, JSON for programs that ask for it.
 */
import Negotiator from 'negotiator';
import { NotFound } from '../domain/errors';
import { PROBLEM_TYPES, type ProblemType } from '../http/problems';
import { type ApiResponse, rawOk } from '../http/responses';
import { problemTypeUri } from './response-schemas';

/** What `GET /problems/{name}` answers in JSON. */
export interface ProblemTypePage {
  type: string;
  title: string;
  status: number;
  description: string;
}

/**
 * The same for everyone and changed only by a deploy: caches may keep it an hour. Public, and fetched
 * by tools on any origin, as the other self-description documents are.
 */
const PAGE_HEADERS = {
  'Cache-Control': 'public, max-age=3600',
  Vary: 'Accept',
  'Access-Control-Allow-Origin': '*',
  'X-Content-Type-Options': 'nosniff',
};

/** The page may style itself inline and load nothing: it has no script, image or form. */
const HTML_HEADERS = {
  ...PAGE_HEADERS,
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};

const isProblemType = (name: string): name is ProblemType => Object.hasOwn(PROBLEM_TYPES, name);

/** The problem type of this name, or NotFound (`constructor`, `__proto__` and the like included). */
export const problemTypePage = (name: string): ProblemTypePage => {
  if (!isProblemType(name)) throw new NotFound('problem type', name);
  const { title, status, description } = PROBLEM_TYPES[name];
  return { type: problemTypeUri(name), title, status, description };
};

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe to print in HTML content and in quoted attribute values. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? '');

/** Escaped text whose `code spans` are set as code. */
const prose = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#222}' +
  'code{font-family:ui-monospace,monospace;background:#f3f3f3;padding:0 .2em}' +
  'dt{font-weight:bold}dd{margin:0 0 .5rem}';

/** The HTML page of one problem type. `baseUrl` is printed in links, escaped like everything else. */
export const problemTypeHtml = (page: ProblemTypePage, baseUrl: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.status} ${escapeHtml(page.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<p>Problem type of the Authority Person Service</p>
<h1>${escapeHtml(page.title)}</h1>
<dl>
<dt>type</dt><dd><code>${escapeHtml(page.type)}</code></dd>
<dt>status</dt><dd>${page.status}</dd>
</dl>
<p>${prose(page.description)}</p>
<p>Errors are <a href="https://www.rfc-editor.org/rfc/rfc9457">RFC 9457</a> problem details:
<code>detail</code> says what went wrong with this request, <code>instance</code> where.
See the <a href="${escapeHtml(`${baseUrl}/docs`)}">API reference</a>.</p>
</body>
</html>
`;

const JSON_TYPES = ['application/json', 'application/problem+json'];

/** JSON when `Accept` prefers `application/json` or `application/problem+json` to HTML, else HTML. */
export const problemPageResponse = (
  name: string,
  accept: string | undefined,
  baseUrl: string,
): ApiResponse => {
  const page = problemTypePage(name);
  const preferred = accept
    ? new Negotiator({ headers: { accept } }).mediaType(['text/html', ...JSON_TYPES])
    : undefined;
  return preferred && JSON_TYPES.includes(preferred)
    ? rawOk({ contentType: 'application/json; charset=utf-8', content: JSON.stringify(page) }, PAGE_HEADERS)
    : rawOk(
        { contentType: 'text/html; charset=utf-8', content: problemTypeHtml(page, baseUrl) },
        HTML_HEADERS,
      );
};
