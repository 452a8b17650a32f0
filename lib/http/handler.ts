/**
 * The middy stack every HTTP handler shares: one log line per request, problem+json for every error,
 * content negotiation, HEAD answered as GET without the body, an operation's own middlewares, and the
 * request read at the boundary (links, requester, body) before the handler's own code runs.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { PROBLEM_TYPES } from '../api/problems';
import type { RequesterRule } from '../api/requester';
import type { WriteOptions } from '../db/write/send';
import type { Links } from '../domain/representation';
import { logger as defaultLogger } from '../logger';
import { retryDeadline } from '../timeouts';
import { type HttpConfig, httpConfigFromEnv } from './config';
import { problemBody, problemOf } from './problems';
import { bodyOf, linksFor, originOf, requesterOf } from './request';
import { type ApiResponse, negotiatedType, toHttpResult } from './responses';

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
    const { baseUrl } = linksFor(request.event, config);
    request.response = toHttpResult(
      {
        status: PROBLEM_TYPES[problem.type].status,
        body: problemBody(problem, request.event.rawPath ?? '/', baseUrl),
        headers: problem.headers,
      },
      'application/problem+json',
    );
  },
});

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
  handle: (event: Event, links: Links, context: Context) => Promise<ApiResponse>,
  { config = defaultConfig, logger = defaultLogger, middlewares = [] }: HttpHandlerOptions,
) =>
  middy<Event, Result, Error, Context>()
    // First, so that its `after` and `onError` run last, on the answer every other step has built.
    .use(headWithoutBody())
    .use(requestLog(logger))
    .use(problemResponses(config, logger))
    .use(middlewares)
    .handler(async (event, context) =>
      toHttpResult(await handle(event, linksFor(event, config), context), negotiatedType(event)),
    );

/** A read handler: the handler gets the event and the links to build absolute URLs with. */
export const readHandler = (options: HttpHandlerOptions = {}) => ({
  handler: (handle: (request: ReadRequest) => Promise<ApiResponse>) =>
    stack((event, links) => handle({ event, links }), options),
});

/** A write handler: the requester and the body are read and validated before `handle` runs. */
export const writeHandler = <S extends z.ZodType>(
  body: S,
  requester: RequesterRule,
  options: HttpHandlerOptions = {},
) => ({
  handler: (handle: (request: WriteRequest<z.output<S>>) => Promise<ApiResponse>) =>
    stack(
      (event, links, context) =>
        handle({
          event,
          links,
          requester: requesterOf(event, requester),
          body: bodyOf(event, body),
          write: {
            origin: originOf(event),
            deadline: retryDeadline(context.getRemainingTimeInMillis()),
          },
        }),
      options,
    ),
});
