import { postingCounterFromEnv } from '../lib/db/from-env';
import { traceStream } from '../lib/tracer';

/** DynamoDB Streams: keeps each gram's count of postings, which a filtered list compares (issue #36). */
export const handler = traceStream(postingCounterFromEnv());
