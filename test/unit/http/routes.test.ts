/**
 * The route table's matching: HEAD wherever GET (RFC 9110 9.3.2), `Allow` naming HEAD beside GET, and
 * OPTIONS on a path that has routes answered with its methods rather than refused (RFC 9110 9.3.7).
 */
import { describe, expect, it } from 'vitest';
import { ROUTES, type Route, servedMethods } from '../../../lib/api/routes';
import { matchRoute } from '../../../lib/http/routes';

const concrete = (path: string) => path.replace(/\{\w+\}/g, '12');

const TABLE: Route[] = [
  { method: 'GET', path: '/Thing', handler: 'list-things', operation: 'listThings' },
  { method: 'POST', path: '/Thing', handler: 'create-thing', operation: 'createThing' },
  { method: 'POST', path: '/Thing/{id}/merge', handler: 'merge-thing', operation: 'mergeThing' },
];

describe('matchRoute', () => {
  it.each(ROUTES.filter((route) => route.method === 'GET'))(
    'serves HEAD $path with the handler of GET $path, under the route key HEAD $path',
    (route) => {
      const match = matchRoute('HEAD', concrete(route.path));

      expect(match).toMatchObject({ kind: 'found', route: { handler: route.handler, method: 'GET' } });
      expect(match.kind === 'found' && match.routeKey).toBe(`HEAD ${route.path}`);
    },
  );

  it('matches HEAD whatever its case, and with one trailing slash, as GET is', () => {
    expect(matchRoute('head', '/Person/')).toMatchObject({
      kind: 'found',
      route: { handler: 'list-persons' },
    });
  });

  it('names the route key of the route itself for the other methods', () => {
    const match = matchRoute('GET', '/Person/12');
    expect(match.kind === 'found' && match.routeKey).toBe('GET /Person/{id}');
  });

  it('matches /Person/export to its own route, never to /Person/{id} with the id "export"', () => {
    expect(matchRoute('GET', '/Person/export')).toMatchObject({
      kind: 'found',
      route: { handler: 'export-persons' },
      routeKey: 'GET /Person/export',
      pathParameters: {},
    });
    expect(matchRoute('HEAD', '/Person/export/')).toMatchObject({ routeKey: 'HEAD /Person/export' });
  });

  it('picks the literal route whatever the order of the table, and lists each method once', () => {
    const table: Route[] = [
      { method: 'GET', path: '/Thing/{id}', handler: 'get-thing', operation: 'getThing' },
      { method: 'GET', path: '/Thing/all', handler: 'all-things', operation: 'allThings' },
    ];

    expect(matchRoute('GET', '/Thing/all', table)).toMatchObject({ route: { handler: 'all-things' } });
    expect(matchRoute('GET', '/Thing/12', table)).toMatchObject({ route: { handler: 'get-thing' } });
    expect(matchRoute('OPTIONS', '/Thing/all', table)).toEqual({ kind: 'options', allow: ['GET', 'HEAD'] });
  });

  it('never serves HEAD from a route that is not GET', () => {
    expect(matchRoute('HEAD', '/Thing/3/merge', TABLE)).toEqual({
      kind: 'method-not-allowed',
      allow: ['POST'],
    });
  });

  it('lists HEAD right after GET in the methods a 405 allows', () => {
    expect(matchRoute('DELETE', '/Person')).toEqual({
      kind: 'method-not-allowed',
      allow: ['GET', 'HEAD', 'POST'],
    });
    expect(matchRoute('PUT', '/Person/12')).toEqual({
      kind: 'method-not-allowed',
      allow: ['GET', 'HEAD', 'PATCH', 'DELETE'],
    });
  });

  it('answers OPTIONS on a path that has routes with its methods, not a 405', () => {
    expect(matchRoute('OPTIONS', '/Thing', TABLE)).toEqual({
      kind: 'options',
      allow: ['GET', 'HEAD', 'POST'],
    });
    expect(matchRoute('options', '/Person/12/')).toEqual({
      kind: 'options',
      allow: ['GET', 'HEAD', 'PATCH', 'DELETE'],
    });
  });

  it('finds nothing for OPTIONS on a path no route has', () => {
    expect(matchRoute('OPTIONS', '/Nowhere')).toEqual({ kind: 'not-found' });
  });
});

describe('servedMethods', () => {
  it('adds HEAD to GET, and to nothing else', () => {
    expect(ROUTES.map((route) => [route.method, servedMethods(route)])).toEqual(
      ROUTES.map((route) => [route.method, route.method === 'GET' ? ['GET', 'HEAD'] : [route.method]]),
    );
  });
});
