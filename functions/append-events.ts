import { feedAppenderFromEnv } from '../lib/db/from-env';
import { streamHandler } from '../lib/stream-handler';

/** DynamoDB Streams: appends each ChangeHistory entry's event to the change feed (API.md 14). */
export const handler = streamHandler(feedAppenderFromEnv());
