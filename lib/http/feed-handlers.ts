/** The change feed (API.md 14): `GET /events`, a page of CloudEvents oldest first, and its cursor. */
import { cloudEventOf, encodeFeedCursor, eventPage, type FeedCursorKey } from '../domain/feed';
import { feedRequest, listEventsQuery } from '../domain/listing';
import type { FeedLog } from '../domain/ports/feed';
import { feedCursorKeyFromEnv } from '../secrets';
import type { HttpConfig } from './config';
import { readHandler } from './handler';
import { queryOf } from './request';
import { ok } from './responses';

interface FeedDeps {
  feed: Pick<FeedLog, 'page'>;
  /** The key the cursors are signed with (read on the first request, then kept); the environment's by default. */
  cursorKey?: () => Promise<FeedCursorKey>;
  /** The container's settings (its public base URL, the events' `source`); the environment's by default. */
  config?: HttpConfig;
}

/**
 * GET /events: up to `limit` events after the position `after` holds (the first event kept without
 * it; a cursor not signed with this feed's key is 400), each as CloudEvents JSON with the request's
 * base URL as `source`, and `next`, the position after them (the one sent when there is nothing new),
 * signed.
 */
export const listEventsHandler = ({ feed, cursorKey = feedCursorKeyFromEnv(), config }: FeedDeps) =>
  readHandler({ config }).handler(async ({ event, links }) => {
    const key = await cursorKey();
    const { position, limit } = feedRequest(queryOf(event, listEventsQuery(key)));
    const page = await feed.page(position, limit);
    return ok(
      eventPage(
        links.contextUrl,
        page.events.map((placed) => cloudEventOf(placed, links.baseUrl)),
        encodeFeedCursor(page.next, key),
      ),
    );
  });
