import { readHandler } from './handler';
import { HttpProblem } from './problems';
import { routePath } from './request';
import { matchRoute, withoutTrailingSlash } from './routes';

/**
 * API Gateway's `$default` route, and the local server's: 404, or 405 with `Allow` (API.md 7). A route
 * path with one trailing slash (`/Person/`) that reaches this function got past the router, which the
 * local one never lets happen; API Gateway's routes cannot end in `/`, so it is sent on with 308.
 */
export const routeNotFoundHandler = () =>
  readHandler().handler(async ({ event, links }) => {
    const path = routePath(event);
    const match = matchRoute(event.requestContext.http.method, path);
    if (match.kind === 'found') {
      const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
      return { status: 308, headers: { Location: `${links.baseUrl}${withoutTrailingSlash(path)}${query}` } };
    }
    if (match.kind === 'method-not-allowed') {
      const allow = match.allow.join(', ');
      throw new HttpProblem('method-not-allowed', `This resource allows ${allow}`, [], { Allow: allow });
    }
    throw new HttpProblem('not-found', `No resource at ${path}`);
  });
