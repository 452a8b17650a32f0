import { readHandler } from './handler';
import { HttpProblem } from './problems';
import { routePath } from './request';
import type { ApiResponse } from './responses';
import { matchRoute, withoutTrailingSlash } from './routes';

/**
 * API Gateway's `$default` route, and the local server's: 404, 405 with `Allow`, or for OPTIONS on a
 * path that has routes 204 with `Allow` (RFC 9110 9.3.7; API.md 7). A CORS preflight never gets here
 * when CORS is on: API Gateway, and the local server in its stead, answer it. A route path with one
 * trailing slash (`/Person/`) that reaches this function got past the router, which the local one
 * never lets happen; API Gateway's routes cannot end in `/`, so it is sent on with 308.
 */
export const routeNotFoundHandler = () =>
  readHandler().handler(async ({ event, links }): Promise<ApiResponse> => {
    const path = routePath(event);
    const match = matchRoute(event.requestContext.http.method, path);
    if (match.kind === 'found') {
      const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
      return { status: 308, headers: { Location: `${links.baseUrl}${withoutTrailingSlash(path)}${query}` } };
    }
    if (match.kind === 'options') return { status: 204, headers: { Allow: match.allow.join(', ') } };
    if (match.kind === 'method-not-allowed') {
      const allow = match.allow.join(', ');
      throw new HttpProblem('method-not-allowed', `This resource allows ${allow}`, [], { Allow: allow });
    }
    throw new HttpProblem('not-found', `No resource at ${path}`);
  });
