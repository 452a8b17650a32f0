import { feedLogFromEnv } from '../lib/db/from-env';
import { listEventsHandler } from '../lib/http/feed-handlers';
import { feedCursorKeyFromEnv } from '../lib/secrets';

/** GET /events: the change feed, a page at a time, its cursors signed with the stack's secret key */
export const buildHandler = listEventsHandler;

export const handler = buildHandler({ feed: feedLogFromEnv(), cursorKey: feedCursorKeyFromEnv() });
