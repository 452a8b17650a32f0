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

// biome-ignore lint/suspicious/noExplicitAny: events are read loosely; the tests assert what they need
type FeedEvent = Record<string, any>;

/**
 * The change feed's events about `subject` (`Person/<id>`), read from the first page on, polled until
 * one of `type` is among them or 10 s passed (API.md 14: a change is in the feed within 5 s).
 */
export const feedEventsOf = async (
  server: string | Pick<ServerProcess, 'url'>,
  subject: string,
  type: string,
): Promise<FeedEvent[]> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found: FeedEvent[] = [];
    let after: string | undefined;
    for (;;) {
      const path = `/events?limit=500${after ? `&after=${encodeURIComponent(after)}` : ''}`;
      const page = (await (await request(server, 'GET', path)).json()) as {
        events: FeedEvent[];
        next: string;
      };
      found.push(...page.events.filter((event) => event.subject === subject));
      if (page.events.length === 0) break;
      after = page.next;
    }
    if (found.some((event) => event.type === type) || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};
