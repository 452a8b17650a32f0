/**
 * API Gateway's `$default` route: what no route matched. A route path with one trailing slash gets
 * there only in AWS (API Gateway's route keys cannot end in `/`); it is sent on to the route with 308,
 * which keeps the method and the body. OPTIONS on a path that has routes answers its methods.
 */
import { describe, expect, it } from 'vitest';
import { handler } from '../../../functions/route-not-found';
import { httpEvent, invoke } from '../../support/events';

const atDefault = (method: string, path: string, query?: Record<string, string>) =>
  httpEvent({ method, route: '$default', path, ...(query ? { query } : {}) });

describe('route-not-found', () => {
  it.each([
    ['GET', '/Person/', 'https://api.example.test/Person'],
    ['POST', '/Person/', 'https://api.example.test/Person'],
    ['PATCH', '/Person/12/', 'https://api.example.test/Person/12'],
    ['GET', '/ChangeHistory/', 'https://api.example.test/ChangeHistory'],
    ['HEAD', '/Person/12/', 'https://api.example.test/Person/12'],
  ])('sends %s %s on to the route without the slash with 308', async (method, path, location) => {
    const response = await invoke(handler, atDefault(method, path));

    expect(response.status).toBe(308);
    expect(response.headers.location).toBe(location);
  });

  it('keeps the query string on the redirect', async () => {
    const response = await invoke(handler, atDefault('GET', '/NamePrefix/', { search: 'doc', limit: '5' }));

    expect(response.status).toBe(308);
    expect(response.headers.location).toBe('https://api.example.test/NamePrefix?search=doc&limit=5');
  });

  it('answers a path no route has with 404 problem+json', async () => {
    const response = await invoke(handler, atDefault('GET', '/Nowhere/'));

    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ type: '/problems/not-found', status: 404 });
  });

  it('answers a method the path does not allow with 405 and Allow', async () => {
    const response = await invoke(handler, atDefault('DELETE', '/Person/'));

    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, POST');
  });

  it.each([
    ['/Person', 'GET, HEAD, POST'],
    ['/Person/12/', 'GET, HEAD, PATCH, DELETE'],
    ['/openapi.json', 'GET, HEAD'],
  ])('answers OPTIONS %s with 204 and the methods of the path in Allow', async (path, allow) => {
    const response = await invoke(handler, atDefault('OPTIONS', path));

    expect(response.status).toBe(204);
    expect(response.headers.allow).toBe(allow);
    expect(response.body).toBeUndefined();
  });

  it('answers OPTIONS on a path no route has with 404', async () => {
    const response = await invoke(handler, atDefault('OPTIONS', '/Nowhere'));

    expect(response.status).toBe(404);
  });
});
