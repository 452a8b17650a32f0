/**
 * The HTTP handlers' X-Ray subsegment: Powertools' `captureLambdaHandler`, annotated with what an
 * operator filters traces by, and with a refusal told apart from a failure.
 */
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { tracer as defaultTracer } from '../tracer';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type Request = middy.Request<Event, Result>;

/** Routes whose `{id}` is a person's: `/Person/{id}`, `/Person/{id}/merge`, ... */
const PERSON_PATH = /^\S+ \/Person\/\{id\}(\/|$)/;

/**
 * Annotations `route` (the route key, `GET /Person/{id}`), `personId` where the path names a person,
 * and `outcome`, the answer's status as a number: `annotation.outcome >= 500` finds the failures and
 * `annotation.outcome = 412` one kind of refusal, which a status class would lump together.
 *
 * The response is not captured (Powertools would record it as metadata): a Person answer holds names
 * and emails. A refusal (4xx, problem+json) gets X-Ray's error flag, as API Gateway's segment gives it;
 * only a 5xx is a fault, with its error (class, message, stack) recorded. Used first in the stack, so
 * its `after` and `onError` see the answer every other middleware has built.
 */
export const traceRequests = (tracer = defaultTracer): MiddlewareObj<Event, Result> => {
  const segment = captureLambdaHandler(tracer, { captureResponse: false });
  const finish = async (request: Request) => {
    const status = request.response?.statusCode;
    if (status !== undefined) tracer.putAnnotation('outcome', status);
    if (request.error && (status === undefined || status >= 500)) return segment.onError?.(request);
    if (tracer.isTracingEnabled() && status !== undefined && status >= 400) {
      const handlerSegment = tracer.getSegment();
      if (status >= 500) handlerSegment?.addFaultFlag();
      else handlerSegment?.addErrorFlag();
    }
    return segment.after?.(request);
  };
  return {
    before: async (request) => {
      await segment.before?.(request);
      const { routeKey, pathParameters } = request.event;
      if (!tracer.isTracingEnabled()) return;
      tracer.putAnnotation('route', routeKey);
      if (PERSON_PATH.test(routeKey) && pathParameters?.id)
        tracer.putAnnotation('personId', pathParameters.id);
    },
    after: finish,
    onError: finish,
  };
};
