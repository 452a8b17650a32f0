/**
 * The page a problem's `type` resolves to (API.md 2.1): `GET /problems/<name>` says what the problem
 * means and what a client should do, from the one catalogue in lib/api/problems.ts: its JSON, and its
 * HTML for people following the link (lib/http/document-responses.ts answers either).
 */
import { PROBLEM_TYPE_NAMES, PROBLEM_TYPES, type ProblemType, problemTypeUri } from '../api/problems';
import { NotFound } from '../domain/errors';

/** What `GET /problems/{name}` answers in JSON. */
export interface ProblemTypePage {
  type: string;
  title: string;
  status: number;
  description: string;
}

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

/** One entry of `GET /problems`: a problem type's URL, title and status. */
export type ProblemIndexEntry = Omit<ProblemTypePage, 'description'>;

/** `GET /problems`: every problem type of the catalogue, in its order. */
export const problemIndex = (): ProblemIndexEntry[] =>
  PROBLEM_TYPE_NAMES.map((name) => {
    const { type, title, status } = problemTypePage(name);
    return { type, title, status };
  });

/** The HTML index of the problem types, each linked to its page. */
export const problemIndexHtml = (entries: readonly ProblemIndexEntry[], baseUrl: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Problem types</title>
<style>${STYLE}</style>
</head>
<body>
<p>Problem types of the Authority Person Service</p>
<h1>Problem types</h1>
<dl>
${entries
  .map(
    ({ type, title, status }) =>
      `<dt><a href="${escapeHtml(`${baseUrl}${type}`)}"><code>${escapeHtml(type)}</code></a></dt><dd>${status} ${escapeHtml(title)}</dd>`,
  )
  .join('\n')}
</dl>
<p>Errors are <a href="https://www.rfc-editor.org/rfc/rfc9457">RFC 9457</a> problem details. See the
<a href="${escapeHtml(`${baseUrl}/docs`)}">API reference</a>.</p>
</body>
</html>
`;
