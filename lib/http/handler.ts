/**
 * The middy stack every HTTP handler shares: the request's ids on every line it logs, one log line per
 * request, its metrics written when it ends (lib/metrics.ts), problem+json for every error (the
 * refusals an operator counts counted there), content negotiation, HEAD answered as GET without the
 * body, an operation's own middlewares, and the request read at the boundary (links, requester, body)
 * before the handler's own code runs.
 */
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { PROBLEM_TYPES, type ProblemType } from '../api/problems';
import type { RequesterRule } from '../api/requester';
import { ServiceUnavailable } from '../domain/errors';
import type { WriteOptions } from '../domain/ports/writes';
import type { Principal } from '../domain/principal';
import type { Links } from '../domain/representation';
import { logger as defaultLogger, logContext } from '../logger';
import { addDimensionedMetric, addMetric, metricsFlush } from '../metrics';
import { retryDeadline } from '../timeouts';
import { type HttpConfig, httpConfigFromEnv } from './config';
import { type Problem, problemBody, problemOf } from './problems';
import { bodyOf, delegateOf, linksFor, originOf, requesterRulingOf } from './request';
import { type ApiResponse, negotiatedType, toHttpResult } from './responses';
import { traceRequests } from './tracing';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type Logger = Pick<typeof defaultLogger, 'info' | 'error'>;

export interface ReadRequest {
  event: Event;
  links: Links;
}

export interface WriteRequest<B> extends ReadRequest {
  body: B;
  requester: number;
  /** Where the request came from (for the ChangeHistory entry) and its retry budget. */
  write: Required<WriteOptions>;
}

export interface HttpHandlerOptions {
  config?: HttpConfig;
  logger?: Logger;
  /**
   * Middlewares of the operation's own (Powertools' idempotency, say), run inside the shared ones: after
   * the request log and the problem mapping have started, so an error they throw is answered as
   * problem+json and logged like any other, and a response they give instead of the handler's is the
   * answer (a HEAD still loses its body).
   */
  middlewares?: MiddlewareObj<Event, Result, Error, Context>[];
}

const defaultConfig = httpConfigFromEnv();

/** The refusals an operator counts (lib/api/metrics.ts), by problem type. */
const countProblem = (type: ProblemType) => {
  if (type === 'duplicate-email') addDimensionedMetric('UniquenessConflicts', 'email');
  else if (type === 'duplicate-name') addDimensionedMetric('UniquenessConflicts', 'name');
  else if (type === 'precondition-failed') addMetric('PreconditionFailures');
  else if (type === 'unavailable') addMetric('StorageUnavailable');
};

/**
 * The problem+json answer to a problem, counted here: every refusal is built once, by
 * `problemResponses` or (inside the idempotency layer) `answerOrRefusal`, and a replayed one is not
 * built again.
 */
const problemResult = (problem: Problem, event: Event, config: HttpConfig): Result => {
  countProblem(problem.type);
  return toHttpResult(
    {
      status: PROBLEM_TYPES[problem.type].status,
      body: problemBody(problem, event.rawPath ?? '/', linksFor(event, config).baseUrl),
      headers: problem.headers,
    },
    'application/problem+json',
  );
};

/** Maps any error to problem+json; a 500 is logged with the request id and says nothing more. */
const problemResponses = (config: HttpConfig, logger: Logger): MiddlewareObj<Event, Result> => ({
  onError: async (request) => {
    const problem = problemOf(request.error);
    if (problem.type === 'internal-error') {
      logger.error('Unhandled error', {
        requestId: request.event.requestContext?.requestId,
        error: request.error,
      });
    }
    request.response = problemResult(problem, request.event, config);
  },
});

/**
 * The answer, or the problem+json answer to what it threw when that is a refusal (4xx): what a keyed
 * write remembers (API.md 5.6 exempts only 5xx). A 5xx is thrown on, to be logged and answered by
 * `problemResponses` and never remembered.
 */
const answerOrRefusal = async (answer: () => Promise<Result>, event: Event, config: HttpConfig) => {
  try {
    return await answer();
  } catch (error) {
    const problem = problemOf(error);
    if (PROBLEM_TYPES[problem.type].status >= 500) throw error;
    return problemResult(problem, event, config);
  }
};

/**
 * A HEAD answer is the GET answer without its body (RFC 9110 9.3.2): status and headers, Content-Type
 * too, as they are; refusals included. The router serves HEAD with the GET route's handler.
 */
const headWithoutBody = (): MiddlewareObj<Event, Result> => {
  const dropBody = async (request: middy.Request<Event, Result>) => {
    const { event, response } = request;
    if (event.requestContext?.http?.method?.toUpperCase() !== 'HEAD' || !response) return;
    const { body: _body, isBase64Encoded: _encoded, ...rest } = response;
    request.response = rest;
  };
  return { after: dropBody, onError: dropBody };
};

/** One structured line per request: method, route, status, duration, request ids. */
const requestLog = (logger: Logger): MiddlewareObj<Event, Result> => {
  const started = new WeakMap<object, number>();
  const log = async (request: middy.Request<Event, Result>) => {
    const { event, context, response } = request;
    logger.info('request', {
      method: event.requestContext?.http?.method,
      path: event.rawPath,
      routeKey: event.routeKey,
      status: response?.statusCode,
      durationMs: Math.round(performance.now() - (started.get(request) ?? performance.now())),
      requestId: event.requestContext?.requestId,
      awsRequestId: context?.awsRequestId,
    });
  };
  return {
    before: async (request) => {
      started.set(request, performance.now());
    },
    after: log,
    onError: log,
  };
};

const stack = (
  handle: (event: Event, config: HttpConfig, context: Context) => Promise<Result>,
  { config = defaultConfig, logger = defaultLogger, middlewares = [] }: HttpHandlerOptions,
) =>
  middy<Event, Result, Error, Context>({
    // A request still running when its invocation is about to end (a write retried through a storm, a
    // person's postings under a slow table) is a 503 to retry, not a 500: the client did nothing wrong.
    timeoutEarlyResponse: () => {
      throw new ServiceUnavailable('The request ran out of time');
    },
  })
    // First of all: every line logged from here on, by any middleware or module, names the Lambda
    // request id and API Gateway's (`correlation_id`), the one a client sees in the access log.
    .use(
      logContext<Event, Result>({
        correlationIdOf: (event) => event.requestContext?.requestId,
        loggers: logger instanceof PowertoolsLogger ? [logger] : [],
      }),
    )
    // Then the X-Ray subsegment: it times the rest of the stack and is annotated with the final answer.
    .use(traceRequests())
    // Then, so that its `after` and `onError` run after every step but the two above, on the answer
    // every other step has built.
    .use(headWithoutBody())
    // Before the problem mapping, so that it writes the metrics after a refusal was counted.
    .use(metricsFlush())
    .use(requestLog(logger))
    .use(problemResponses(config, logger))
    .use(middlewares)
    .handler(async (event, context) => handle(event, config, context));

/** A read handler: the handler gets the event and the links to build absolute URLs with. */
export const readHandler = (options: HttpHandlerOptions = {}) => ({
  handler: (handle: (request: ReadRequest) => Promise<ApiResponse>) =>
    stack(
      async (event, config) =>
        toHttpResult(await handle({ event, links: linksFor(event, config) }), negotiatedType(event)),
      options,
    ),
});

export interface DelegateRequest<B> extends ReadRequest {
  body: B;
  /** The delegate that asks (request.ts `delegateOf`). */
  delegate: Principal;
  /** Epoch ms until which storage may retry. */
  deadline: number;
}

/**
 * A handler for delegates only (API.md 9.1: binding and unbinding a principal): the caller is checked
 * (401, 403 `delegate-required`), then the body, when the operation takes one, before `handle` runs.
 */
export const delegateHandler = <S extends z.ZodType = z.ZodUndefined>(
  body?: S,
  options: HttpHandlerOptions = {},
) => ({
  handler: (handle: (request: DelegateRequest<z.output<S>>) => Promise<ApiResponse>) =>
    stack(async (event, config, context) => {
      const delegate = delegateOf(event, config);
      return toHttpResult(
        await handle({
          event,
          links: linksFor(event, config),
          delegate,
          body: (body ? bodyOf(event, body) : undefined) as z.output<S>,
          deadline: retryDeadline(context.getRemainingTimeInMillis()),
        }),
        negotiatedType(event),
      );
    }, options),
});

/**
 * Answers a request sent with an `Idempotency-Key` once (lib/http/idempotency.ts `idempotentWrites`):
 * `answer` is run at most once per key, and its result is what every retry gets.
 */
export type AnswerOnce = (
  event: Event,
  context: Context,
  requester: number,
  answer: () => Promise<Result>,
) => Promise<Result>;

export interface WriteHandlerOptions extends HttpHandlerOptions {
  /** Honour `Idempotency-Key` (API.md 5.6); without it, the header is not looked at. */
  once?: AnswerOnce;
}

/**
 * A write handler: the requester and the body, when the operation takes one (a DELETE takes none), are
 * read and validated before `handle` runs.
 */
export const writeHandler = <S extends z.ZodType = z.ZodUndefined>(
  body: S | undefined,
  requester: RequesterRule,
  { once, ...options }: WriteHandlerOptions = {},
) => ({
  handler: (handle: (request: WriteRequest<z.output<S>>) => Promise<ApiResponse>) =>
    stack(async (event, config, context) => {
      const { requester: requesterId, ruling } = requesterRulingOf(event, config, requester);
      const answer = async () =>
        toHttpResult(
          await handle({
            event,
            links: linksFor(event, config),
            requester: requesterId,
            body: (body ? bodyOf(event, body) : undefined) as z.output<S>,
            write: {
              origin: originOf(event),
              ruling,
              deadline: retryDeadline(context.getRemainingTimeInMillis()),
            },
          }),
          negotiatedType(event),
        );
      return once
        ? once(event, context, requesterId, () => answerOrRefusal(answer, event, config))
        : answer();
    }, options),
});
