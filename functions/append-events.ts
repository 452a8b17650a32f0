import { batchHandler } from '../lib/batch-handler';
import { publisherFromEnv } from '../lib/bus/publisher';
import { feedAppenderFromEnv } from '../lib/db/from-env';

/**
 * DynamoDB Streams: appends each ChangeHistory entry's event to the change feed, then puts it on the
 * event bus (API.md 14).
 */
export const handler = batchHandler(feedAppenderFromEnv(publisherFromEnv()));
