import { batchHandler } from '../lib/batch-handler';
import { postingCounterFromEnv } from '../lib/db/from-env';

/** DynamoDB Streams: keeps each gram's count of postings, which a filtered list compares (issue #36). */
export const handler = batchHandler(postingCounterFromEnv());
