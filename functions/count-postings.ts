import { postingCounterFromEnv } from '../lib/db/from-env';
import { streamHandler } from '../lib/stream-handler';

/** DynamoDB Streams: keeps each gram's count of postings, which a filtered list compares (issue #36). */
export const handler = streamHandler(postingCounterFromEnv());
