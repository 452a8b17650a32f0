import { readHandler } from '../lib/http/handler';
import { HttpProblem } from '../lib/http/problems';
import { routePath } from '../lib/http/request';
import { matchRoute } from '../lib/http/routes';

/** API Gateway's `$default` route, and the local server's: 404, or 405 with `Allow` (API.md 7). */
export const handler = readHandler().handler(async ({ event }) => {
  const path = routePath(event);
  const match = matchRoute(event.requestContext.http.method, path);
  if (match.kind === 'method-not-allowed') {
    const allow = match.allow.join(', ');
    throw new HttpProblem('method-not-allowed', `This resource allows ${allow}`, [], { Allow: allow });
  }
  throw new HttpProblem('not-found', `No resource at ${path}`);
});
