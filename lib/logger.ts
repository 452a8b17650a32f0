import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { MiddlewareObj } from '@middy/core';

/** The service's name in its log lines and on its metrics (`service`). */
export const SERVICE_NAME = process.env.POWERTOOLS_SERVICE_NAME ?? 'person-service';

/** One structured JSON logger per container; level from `POWERTOOLS_LOG_LEVEL`. */
export const logger = new Logger({ serviceName: SERVICE_NAME });

export interface LogContextOptions<E> {
  /**
   * The id a caller of the function sees, put on each line as `correlation_id`: API Gateway's request
   * id for the HTTP functions. Read by a function rather than Powertools' `correlationIdPath`: the
   * path needs the JMESPath package (an optional peer of the logger), a property read needs nothing.
   */
  correlationIdOf?: (event: E) => string | undefined;
  /** Loggers besides the container's (a test's own): the container's is always one. */
  loggers?: Logger[];
}

/**
 * Every line an invocation logs, from any module (they all log through `logger`), carries the
 * invocation's Lambda context (Powertools' `injectLambdaContext`: `function_request_id`, `cold_start`,
 * `function_name`, `function_arn`, `function_memory_size`) and its correlation id. Nothing of one
 * invocation reaches the next: the keys appended while it ran are dropped when it ends however it
 * ends (`resetKeys`), and again when the next begins, in case the last one's end was skipped (a
 * middleware that answered early runs no `after`); the next invocation's context replaces the last's.
 * Used first in a middy stack, so that the lines the other middlewares write carry the ids too.
 */
export const logContext = <E, R>({
  correlationIdOf,
  loggers = [],
}: LogContextOptions<E> = {}): MiddlewareObj<E, R> => {
  const targets = [logger, ...loggers.filter((other) => other !== logger)];
  // `logEvent: false` whatever POWERTOOLS_LOGGER_LOG_EVENT says: an event holds a person's names and
  // emails (a request body, a stream record's images), which no log line carries.
  const inject = injectLambdaContext(targets, { resetKeys: true, logEvent: false });
  return {
    before: async (request) => {
      for (const target of targets) target.resetKeys();
      await inject.before?.(request as never);
      const correlationId = correlationIdOf?.(request.event);
      if (correlationId) for (const target of targets) target.setCorrelationId(correlationId);
    },
    after: async (request) => {
      await inject.after?.(request as never);
    },
    onError: async (request) => {
      await inject.onError?.(request as never);
    },
  };
};
