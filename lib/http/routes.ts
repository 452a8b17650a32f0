/**
 * The route table: every HTTP route of the API and the function (a file in functions/) that serves
 * it. The local server and the CDK stack both route from this table, so they cannot drift.
 */

export type Method = 'GET' | 'POST' | 'PATCH';

/** A method a route answers: its own, and HEAD beside every GET (RFC 9110 9.3.2, API.md 2.1). */
export type ServedMethod = Method | 'HEAD';

export interface Route {
  method: Method;
  /** API Gateway path pattern: `{name}` is a path parameter that matches one segment. */
  path: string;
  /** The handler module: `functions/<handler>.ts`, exporting `handler`. */
  handler: string;
  /**
   * The OpenAPI operationId, which names the route's description in lib/docs/operations.ts: the
   * compiler holds that table to exactly one description per route.
   */
  operation: string;
  /** Self-description routes stay public when deployed (API.md 9); the rest need authorization. */
  public?: boolean;
}

const ROUTE_TABLE = [
  { method: 'GET', path: '/Person', handler: 'list-persons', operation: 'listPersons' },
  { method: 'POST', path: '/Person', handler: 'create-person', operation: 'createPerson' },
  { method: 'GET', path: '/Person/{id}', handler: 'get-person', operation: 'getPerson' },
  { method: 'PATCH', path: '/Person/{id}', handler: 'update-person', operation: 'updatePerson' },
  { method: 'GET', path: '/Person/{id}/audit', handler: 'list-person-audit', operation: 'listPersonAudit' },
  { method: 'GET', path: '/Prefix', handler: 'list-prefixes', operation: 'listPrefixes' },
  { method: 'GET', path: '/Prefix/{id}', handler: 'get-prefix', operation: 'getPrefix' },
  { method: 'GET', path: '/Suffix', handler: 'list-suffixes', operation: 'listSuffixes' },
  { method: 'GET', path: '/Suffix/{id}', handler: 'get-suffix', operation: 'getSuffix' },
  { method: 'GET', path: '/NamePrefix', handler: 'list-name-prefixes', operation: 'listNamePrefixes' },
  { method: 'POST', path: '/NamePrefix', handler: 'create-name-prefix', operation: 'createNamePrefix' },
  { method: 'GET', path: '/NamePrefix/{id}', handler: 'get-name-prefix', operation: 'getNamePrefix' },
  { method: 'PATCH', path: '/NamePrefix/{id}', handler: 'update-name-prefix', operation: 'updateNamePrefix' },
  { method: 'GET', path: '/NameSuffix', handler: 'list-name-suffixes', operation: 'listNameSuffixes' },
  { method: 'POST', path: '/NameSuffix', handler: 'create-name-suffix', operation: 'createNameSuffix' },
  { method: 'GET', path: '/NameSuffix/{id}', handler: 'get-name-suffix', operation: 'getNameSuffix' },
  { method: 'PATCH', path: '/NameSuffix/{id}', handler: 'update-name-suffix', operation: 'updateNameSuffix' },
  { method: 'GET', path: '/ChangeHistory', handler: 'list-change-history', operation: 'listChangeHistory' },
  {
    method: 'GET',
    path: '/ChangeHistory/{id}',
    handler: 'get-change-history',
    operation: 'getChangeHistory',
  },
  { method: 'GET', path: '/openapi.json', handler: 'get-openapi', operation: 'getOpenApi', public: true },
  {
    method: 'GET',
    path: '/schema/Person',
    handler: 'get-person-schema',
    operation: 'getPersonSchema',
    public: true,
  },
  { method: 'GET', path: '/context.jsonld', handler: 'get-context', operation: 'getContext', public: true },
  { method: 'GET', path: '/docs', handler: 'get-docs', operation: 'getDocs', public: true },
  { method: 'GET', path: '/docs/{asset}', handler: 'get-docs', operation: 'getDocsAsset', public: true },
  { method: 'GET', path: '/problems/{name}', handler: 'get-problem', operation: 'getProblem', public: true },
] as const satisfies readonly Route[];

export const ROUTES: readonly Route[] = ROUTE_TABLE;

/** The operationIds of the route table. */
export type OperationId = (typeof ROUTE_TABLE)[number]['operation'];

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

/** The methods a route answers: HEAD wherever GET, with the same handler, authorizer and answer. */
export const servedMethods = (route: Route): ServedMethod[] =>
  route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];

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
 * place that knows it; the handler stack drops the body of its answer.
 */
export const matchRoute = (method: string, path: string, routes: readonly Route[] = ROUTES): RouteMatch => {
  const requested = method.toUpperCase();
  const matches = routes.flatMap((route) => {
    const pathParameters = matchPath(route.path, path);
    return pathParameters ? [{ route, pathParameters }] : [];
  });
  const found = matches.find(({ route }) => servedMethods(route).includes(requested as ServedMethod));
  if (found) return { kind: 'found', ...found, routeKey: `${requested} ${found.route.path}` };
  if (matches.length === 0) return { kind: 'not-found' };
  const allow = matches.flatMap(({ route }) => servedMethods(route));
  return requested === 'OPTIONS' ? { kind: 'options', allow } : { kind: 'method-not-allowed', allow };
};
