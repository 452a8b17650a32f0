/**
 * Matching a request against the route table of lib/api/routes.ts: which route serves it, or why none
 * does (404, 405 with the methods allowed, OPTIONS).
 */
import { ROUTES, type Route, type ServedMethod, servedMethods } from '../api/routes';

const segments = (path: string) => path.split('/').slice(1);

/** A path with its one trailing slash taken off: every route also answers `/Person/` (API.md 1). */
export const withoutTrailingSlash = (path: string) =>
  path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;

/** Path parameters when `path` (or it without one trailing slash) matches `pattern`, else undefined. */
export const matchPath = (pattern: string, path: string): Record<string, string> | undefined => {
  const expected = segments(pattern);
  const actual = segments(withoutTrailingSlash(path));
  if (expected.length !== actual.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [index, part] of expected.entries()) {
    const value = actual[index] as string;
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    if (value === '') return undefined; // an empty segment (`//`) matches nothing
    if (!name) {
      if (part !== value) return undefined;
      continue;
    }
    try {
      parameters[name] = decodeURIComponent(value);
    } catch {
      return undefined; // a malformed escape names nothing
    }
  }
  return parameters;
};

export type RouteMatch =
  | {
      kind: 'found';
      route: Route;
      pathParameters: Record<string, string>;
      /** `HEAD /Person` for a HEAD served by `GET /Person`'s route, as API Gateway names its HEAD route. */
      routeKey: string;
    }
  | { kind: 'method-not-allowed'; allow: ServedMethod[] }
  /** OPTIONS on a path that has routes: its methods, for `Allow` (RFC 9110 9.3.7). */
  | { kind: 'options'; allow: ServedMethod[] }
  | { kind: 'not-found' };

/**
 * Finds the route of a request, or says why there is none. HEAD is matched as GET here, the one
 * place that knows it; the handler stack drops the body of its answer. A path two routes match
 * (`/Person/export`, `/Person/{id}`) goes to the one with fewer path parameters that serves the method.
 */
export const matchRoute = (method: string, path: string, routes: readonly Route[] = ROUTES): RouteMatch => {
  const requested = method.toUpperCase();
  const matches = routes
    .flatMap((route) => {
      const pathParameters = matchPath(route.path, path);
      return pathParameters ? [{ route, pathParameters }] : [];
    })
    // The most specific route first, as API Gateway picks it: `/Person/export` before `/Person/{id}`,
    // whatever their order in the table.
    .sort((a, b) => Object.keys(a.pathParameters).length - Object.keys(b.pathParameters).length);
  const found = matches.find(({ route }) => servedMethods(route).includes(requested as ServedMethod));
  if (found) return { kind: 'found', ...found, routeKey: `${requested} ${found.route.path}` };
  if (matches.length === 0) return { kind: 'not-found' };
  const allow = [...new Set(matches.flatMap(({ route }) => servedMethods(route)))];
  return requested === 'OPTIONS' ? { kind: 'options', allow } : { kind: 'method-not-allowed', allow };
};
