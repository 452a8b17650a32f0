import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { SQSBatchResponse } from 'aws-lambda';
import type { Subsegment } from 'aws-xray-sdk-core';
import { SERVICE_NAME } from './logger';

/**
 * One X-Ray tracer per container, under the logger's service name. Powertools turns it off by itself
 * where there is no X-Ray: outside Lambda (no `AWS_EXECUTION_ENV`: `npm start`, tests, the bench),
 * under SAM local, or with `POWERTOOLS_TRACE_ENABLED=false`; off, every call below is a no-op.
 *
 * `captureHTTPsRequests` is off: Powertools would patch node:http(s) and subscribe to fetch's
 * diagnostics channel, which names a subsegment for the host, flags the provider's 404 (an unknown
 * person, a normal answer) as an error, keeps one "current" request for all of a container's fetches
 * and sends our trace header to the third party. The provider call is traced by `traceRemoteCall`
 * instead, and the AWS SDK clients by `traceClient`, so each call shows up once.
 */
export const tracer = new Tracer({
  serviceName: SERVICE_NAME,
  captureHTTPsRequests: false,
});

/** An AWS SDK v3 client whose every command is an X-Ray subsegment (DynamoDB, EventBridge, Secrets Manager). */
export const traceClient = <T>(client: T): T => tracer.captureAWSv3Client(client);

/**
 * Runs a call to a third party as a subsegment of its own, named for it (`clearbit`), in the `remote`
 * namespace so X-Ray draws it as a node of the service map; `outcome` names what came back. Nothing
 * of the request (the email asked about) is recorded.
 */
export const traceRemoteCall = async <R>(
  name: string,
  call: () => Promise<R>,
  outcomeOf: (result: R) => string,
): Promise<R> => {
  const parent = tracer.getSegment();
  if (!tracer.isTracingEnabled() || !parent) return call();
  return tracer.provider.captureAsyncFunc(name, async (subsegment?: Subsegment) => {
    subsegment?.addAttribute('namespace', 'remote');
    try {
      const result = await call();
      subsegment?.addAnnotation('outcome', outcomeOf(result));
      return result;
    } catch (error) {
      subsegment?.addError(error as Error, true);
      throw error;
    } finally {
      subsegment?.close();
    }
  }) as Promise<R>;
};

/** A batch of records: the table's stream's, or a queue's messages. */
export interface BatchEvent {
  Records: readonly unknown[];
}

/**
 * A batch consumer's invocation traced as the HTTP handlers' are (lib/batch-handler.ts uses it):
 * Powertools' handler subsegment (no response captured), annotated with how many records the batch
 * held and how many failed (all of them when it threw, since the whole batch comes again).
 */
export const batchTracing = <E extends BatchEvent>(): MiddlewareObj<E, unknown> => {
  const segment = captureLambdaHandler(tracer, { captureResponse: false });
  const annotate = (records: number, failed: number) => {
    if (!tracer.isTracingEnabled()) return;
    tracer.putAnnotation('records', records);
    tracer.putAnnotation('failed', failed);
  };
  return {
    before: segment.before,
    after: async (request) => {
      // A consumer that returns nothing fails whole or not at all.
      const failures = (request.response as Partial<SQSBatchResponse> | undefined)?.batchItemFailures;
      annotate(request.event.Records.length, failures?.length ?? 0);
      await segment.after?.(request);
    },
    onError: async (request) => {
      annotate(request.event.Records.length, request.event.Records.length);
      await segment.onError?.(request);
    },
  };
};
