import { publishEvents } from '../lib/db/feed/event-publisher';
import { streamHandler } from '../lib/stream-handler';

/** DynamoDB Streams: puts each event the change feed took on the stack's EventBridge bus (API.md 14). */
export const handler = streamHandler(
  publishEvents({
    busName: process.env.EVENT_BUS_NAME ?? '',
    baseUrl: process.env.PUBLIC_BASE_URL ?? '',
  }),
);
