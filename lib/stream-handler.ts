/**
 * The middy stack every stream consumer shares, as lib/http/handler.ts is the HTTP functions': the
 * invocation's Lambda context on every line it logs first (`function_request_id`, lib/logger.ts), then
 * its X-Ray subsegment (it times the rest), then its metrics, written once it ends, however it ends.
 */
import middy from '@middy/core';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { logContext } from './logger';
import { metricsFlush } from './metrics';
import { streamTracing } from './tracer';

export const streamHandler = <R>(handle: (event: DynamoDBStreamEvent, context: Context) => Promise<R>) =>
  middy<DynamoDBStreamEvent, R, Error, Context>()
    .use(logContext<DynamoDBStreamEvent, R>())
    .use(streamTracing())
    .use(metricsFlush())
    .handler(handle);
