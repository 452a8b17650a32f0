import { publishEvents } from '../lib/db/feed/event-publisher';
import { traceStream } from '../lib/tracer';

/** DynamoDB Streams: puts each event the change feed took on the stack's EventBridge bus (API.md 14). */
export const handler = traceStream(
  publishEvents({
    busName: process.env.EVENT_BUS_NAME ?? '',
    baseUrl: process.env.PUBLIC_BASE_URL ?? '',
  }),
);
