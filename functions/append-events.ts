import { feedAppenderFromEnv } from '../lib/db/from-env';

/** DynamoDB Streams: appends each ChangeHistory entry's event to the change feed (API.md 14). */
export const handler = feedAppenderFromEnv();
