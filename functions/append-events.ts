import { feedAppenderFromEnv } from '../lib/db/from-env';
import { withMetrics } from '../lib/metrics';
import { traceStream } from '../lib/tracer';

/** DynamoDB Streams: appends each ChangeHistory entry's event to the change feed (API.md 14). */
export const handler = traceStream(withMetrics(feedAppenderFromEnv()));
