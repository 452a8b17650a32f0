/**
 * The route table: every HTTP route of the API and the function (a file in functions/) that serves
 * it, as data. The local server and the CDK stack both route from this table (lib/http/routes.ts
 * matches requests against it), and the OpenAPI document describes it, so none of them can drift.
 */

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

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
  /**
   * A route of the Reconciliation API (API.md 12): read-only, it answers CORS for any origin whatever
   * `CORS_ORIGINS` says (the function sets it; the local CORS layer leaves it alone), and the deploy's
   * public-read option opens it, and only it, to callers without credentials (OpenRefine sends none).
   */
  reconciliation?: boolean;
}

const ROUTE_TABLE = [
  { method: 'GET', path: '/Person', handler: 'list-persons', operation: 'listPersons' },
  { method: 'POST', path: '/Person', handler: 'create-person', operation: 'createPerson' },
  // A literal segment beside `/Person/{id}`: matched first (lib/http/routes.ts), as API Gateway does.
  { method: 'GET', path: '/Person/export', handler: 'export-persons', operation: 'exportPersons' },
  { method: 'GET', path: '/Person/me', handler: 'get-own-person', operation: 'getOwnPerson' },
  { method: 'GET', path: '/Person/{id}', handler: 'get-person', operation: 'getPerson' },
  { method: 'PATCH', path: '/Person/{id}', handler: 'update-person', operation: 'updatePerson' },
  { method: 'DELETE', path: '/Person/{id}', handler: 'erase-person', operation: 'erasePerson' },
  { method: 'POST', path: '/Person/{id}/merge', handler: 'merge-person', operation: 'mergePersons' },
  { method: 'POST', path: '/Person/{id}/unmerge', handler: 'unmerge-person', operation: 'unmergePersons' },
  { method: 'PUT', path: '/Person/{id}/principal', handler: 'bind-principal', operation: 'bindPrincipal' },
  {
    method: 'DELETE',
    path: '/Person/{id}/principal',
    handler: 'unbind-principal',
    operation: 'unbindPrincipal',
  },
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
  { method: 'GET', path: '/events', handler: 'list-events', operation: 'listEvents' },
  // Duplicates under review (API.md 12.1).
  { method: 'GET', path: '/duplicates', handler: 'list-duplicates', operation: 'listDuplicates' },
  { method: 'GET', path: '/duplicates/{pairId}', handler: 'get-duplicate', operation: 'getDuplicate' },
  {
    method: 'POST',
    path: '/duplicates/{pairId}/decision',
    handler: 'decide-duplicate',
    operation: 'decideDuplicate',
  },
  // Webhook subscriptions (API.md 16).
  { method: 'GET', path: '/Subscription', handler: 'list-subscriptions', operation: 'listSubscriptions' },
  { method: 'POST', path: '/Subscription', handler: 'create-subscription', operation: 'createSubscription' },
  { method: 'GET', path: '/Subscription/{id}', handler: 'get-subscription', operation: 'getSubscription' },
  {
    method: 'PATCH',
    path: '/Subscription/{id}',
    handler: 'update-subscription',
    operation: 'updateSubscription',
  },
  {
    method: 'DELETE',
    path: '/Subscription/{id}',
    handler: 'delete-subscription',
    operation: 'deleteSubscription',
  },
  {
    method: 'GET',
    path: '/Subscription/{id}/deliveries',
    handler: 'list-deliveries',
    operation: 'listDeliveries',
  },
  {
    method: 'POST',
    path: '/Subscription/{id}/replay',
    handler: 'replay-subscription',
    operation: 'replaySubscription',
  },
  {
    method: 'POST',
    path: '/Subscription/{id}/rotate',
    handler: 'rotate-subscription-secret',
    operation: 'rotateSubscriptionSecret',
  },
  // The Reconciliation API 0.2 (API.md 12): the literal paths before `/reconcile/suggest/{kind}`.
  {
    method: 'GET',
    path: '/reconcile',
    handler: 'reconcile-persons',
    operation: 'reconcile',
    reconciliation: true,
  },
  {
    method: 'POST',
    path: '/reconcile',
    handler: 'reconcile-persons',
    operation: 'reconcileBatch',
    reconciliation: true,
  },
  {
    method: 'GET',
    path: '/reconcile/suggest/{kind}',
    handler: 'suggest-persons',
    operation: 'suggestReconcile',
    reconciliation: true,
  },
  {
    method: 'GET',
    path: '/reconcile/properties',
    handler: 'suggest-persons',
    operation: 'proposeProperties',
    reconciliation: true,
  },
  {
    method: 'GET',
    path: '/reconcile/preview',
    handler: 'preview-person',
    operation: 'previewPerson',
    reconciliation: true,
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
  { method: 'GET', path: '/problems', handler: 'get-problem', operation: 'listProblems', public: true },
  { method: 'GET', path: '/problems/{name}', handler: 'get-problem', operation: 'getProblem', public: true },
] as const satisfies readonly Route[];

export const ROUTES: readonly Route[] = ROUTE_TABLE;

/** The operationIds of the route table. */
export type OperationId = (typeof ROUTE_TABLE)[number]['operation'];

/** Serves every request no route matches (API Gateway's `$default` route): 404, or 405 with `Allow`. */
export const FALLBACK_HANDLER = 'route-not-found';

/** The methods a route answers: HEAD wherever GET, with the same handler, authorizer and answer. */
export const servedMethods = (route: Route): ServedMethod[] =>
  route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];
