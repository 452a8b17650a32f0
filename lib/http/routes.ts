/**
 * The route table: every HTTP route of the API and the function (a file in functions/) that serves
 * it. The local server and the CDK stack both route from this table, so they cannot drift.
 */

export type Method = 'GET' | 'POST' | 'PATCH';

export interface Route {
  method: Method;
  /** API Gateway path pattern: `{name}` is a path parameter that matches one segment. */
  path: string;
  /** The handler module: `functions/<handler>.ts`, exporting `handler`. */
  handler: string;
  /** Self-description routes stay public when deployed (API.md 9); the rest need authorization. */
  public?: boolean;
}

export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/Person', handler: 'list-persons' },
  { method: 'POST', path: '/Person', handler: 'create-person' },
  { method: 'GET', path: '/Person/{id}', handler: 'get-person' },
  { method: 'PATCH', path: '/Person/{id}', handler: 'update-person' },
  { method: 'GET', path: '/Person/{id}/audit', handler: 'list-person-audit' },
  { method: 'GET', path: '/Prefix', handler: 'list-prefixes' },
  { method: 'GET', path: '/Prefix/{id}', handler: 'get-prefix' },
  { method: 'GET', path: '/Suffix', handler: 'list-suffixes' },
  { method: 'GET', path: '/Suffix/{id}', handler: 'get-suffix' },
  { method: 'GET', path: '/NamePrefix', handler: 'list-name-prefixes' },
  { method: 'POST', path: '/NamePrefix', handler: 'create-name-prefix' },
  { method: 'GET', path: '/NamePrefix/{id}', handler: 'get-name-prefix' },
  { method: 'PATCH', path: '/NamePrefix/{id}', handler: 'update-name-prefix' },
  { method: 'GET', path: '/NameSuffix', handler: 'list-name-suffixes' },
  { method: 'POST', path: '/NameSuffix', handler: 'create-name-suffix' },
  { method: 'GET', path: '/NameSuffix/{id}', handler: 'get-name-suffix' },
  { method: 'PATCH', path: '/NameSuffix/{id}', handler: 'update-name-suffix' },
  { method: 'GET', path: '/ChangeHistory', handler: 'list-change-history' },
  { method: 'GET', path: '/ChangeHistory/{id}', handler: 'get-change-history' },
  { method: 'GET', path: '/openapi.json', handler: 'get-openapi', public: true },
  { method: 'GET', path: '/schema/Person', handler: 'get-person-schema', public: true },
  { method: 'GET', path: '/context.jsonld', handler: 'get-context', public: true },
  { method: 'GET', path: '/docs', handler: 'get-docs', public: true },
  { method: 'GET', path: '/docs/{asset}', handler: 'get-docs', public: true },
];

/** Serves every request no route matches (API Gateway's `$default` route): 404, or 405 with `Allow`. */
export const FALLBACK_HANDLER = 'route-not-found';

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
  | { kind: 'found'; route: Route; pathParameters: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: Method[] }
  | { kind: 'not-found' };

/** Finds the route of a request, or says why there is none. */
export const matchRoute = (method: string, path: string, routes: readonly Route[] = ROUTES): RouteMatch => {
  const matches = routes.flatMap((route) => {
    const pathParameters = matchPath(route.path, path);
    return pathParameters ? [{ route, pathParameters }] : [];
  });
  const found = matches.find(({ route }) => route.method === method.toUpperCase());
  if (found) return { kind: 'found', ...found };
  if (matches.length > 0)
    return { kind: 'method-not-allowed', allow: matches.map(({ route }) => route.method) };
  return { kind: 'not-found' };
};
