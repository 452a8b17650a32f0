/** Requests over HTTP to a started server (test/support/server.ts), as a client of the API sends them. */
import type { ServerProcess } from './server';

export interface RequestOptions {
  /** Sent with `content-type: application/json`: a string as it is, anything else as JSON. */
  body?: unknown;
  /** The `x-requester-person` header; none when undefined. */
  requester?: number | string;
  /** A token sent as `authorization: Bearer …`. */
  bearer?: string;
  /** Headers beside those, sent last (they override). */
  headers?: Record<string, string>;
  /** fetch's default is to follow a redirect; `manual` answers the 3xx itself. */
  redirect?: RequestInit['redirect'];
}

/** One request to a server (or any base URL): fetch's Response, unread. */
export const request = (
  server: string | Pick<ServerProcess, 'url'>,
  method: string,
  path: string,
  { body, requester, bearer, headers = {}, redirect }: RequestOptions = {},
) =>
  fetch(`${typeof server === 'string' ? server : server.url}${path}`, {
    method,
    ...(redirect ? { redirect } : {}),
    headers: {
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(requester === undefined ? {} : { 'x-requester-person': String(requester) }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
