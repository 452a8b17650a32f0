import { feedLogFromEnv } from '../lib/db/from-env';
import { listEventsHandler } from '../lib/http/feed-handlers';

/** GET /events: the change feed, a page at a time */
export const buildHandler = listEventsHandler;

export const handler = buildHandler({ feed: feedLogFromEnv() });
