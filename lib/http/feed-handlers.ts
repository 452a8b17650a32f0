/** The change feed (API.md 14): `GET /events`, a page of CloudEvents oldest first, and its cursor. */
import type { FeedLog } from '../db/feed/feed-log';
import { cloudEventOf, encodeFeedCursor, eventPage } from '../domain/feed';
import { feedRequest, ListEventsQuery } from '../domain/listing';
import type { HttpConfig } from './config';
import { readHandler } from './handler';
import { queryOf } from './request';
import { ok } from './responses';

interface FeedDeps {
  feed: Pick<FeedLog, 'page'>;
  /** The container's settings (its public base URL, the events' `source`); the environment's by default. */
  config?: HttpConfig;
}

/**
 * GET /events: up to `limit` events after the position `after` holds (the first event kept without
 * it), each as CloudEvents JSON with the request's base URL as `source`, and `next`, the position after
 * them (the one sent when there is nothing new).
 */
export const listEventsHandler = ({ feed, config }: FeedDeps) =>
  readHandler({ config }).handler(async ({ event, links }) => {
    const { position, limit } = feedRequest(queryOf(event, ListEventsQuery));
    const page = await feed.page(position, limit);
    return ok(
      eventPage(
        links.contextUrl,
        page.events.map((placed) => cloudEventOf(placed, links.baseUrl)),
        encodeFeedCursor(page.next),
      ),
    );
  });
