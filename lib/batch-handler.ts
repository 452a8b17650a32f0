/**
 * The middy stack every consumer of a batch shares (the table's stream, a queue of the bus), as
 * lib/http/handler.ts is the HTTP functions': the invocation's Lambda context on every line it logs
 * first (`function_request_id`, lib/logger.ts), then its X-Ray subsegment (it times the rest), then its
 * metrics, written once it ends, however it ends.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logContext } from './logger';
import { metricsFlush } from './metrics';
import { type BatchEvent, batchTracing } from './tracer';

export const batchHandler = <E extends BatchEvent, R>(handle: (event: E, context: Context) => Promise<R>) =>
  middy<E, R, Error, Context>()
    .use(logContext<E, R>())
    .use(batchTracing<E>())
    .use(metricsFlush())
    .handler(handle);
