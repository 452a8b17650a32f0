/**
 * A consumer of the bus's events (lib/api/bus-subscriptions.ts), as its function reads them from its
 * queue: each message's CloudEvent handed to `handle` in turn; a message that throws, or is no event
 * of the feed, is reported alone (`batchItemFailures`, by Powertools' batch processing) and comes
 * again after the queue's visibility timeout, until its receives run out and it goes to the
 * dead-letter queue. Deployed the queue is SQS; under `npm start`, lib/local/bus.ts's, which hands
 * over the same `SQSEvent`.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { CloudEvent } from '../domain/feed';
import type { logger as defaultLogger } from '../logger';
import { retryDeadline } from '../timeouts';
import { cloudEventOfMessage } from './envelope';

/** Handles one event; `deadline` is until when its writes may retry. Throws to have it delivered again. */
export type EventHandler = (event: CloudEvent, deadline: number) => Promise<void>;

export const queueConsumer =
  (handle: EventHandler, { logger }: { logger: Pick<typeof defaultLogger, 'error'> }) =>
  async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    // Writes retry within the invocation's time; a message that runs out is delivered again.
    const deadline = retryDeadline(context?.getRemainingTimeInMillis());
    const handleRecord = async (record: SQSRecord) => {
      let cloudEvent: CloudEvent;
      try {
        cloudEvent = cloudEventOfMessage(record);
      } catch (error) {
        logger.error('a queue message is not an event of the change feed', {
          messageId: record.messageId,
          error,
        });
        throw error;
      }
      await handle(cloudEvent, deadline);
    };
    return processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), {
      ...(context ? { context } : {}),
      processInParallel: false,
      throwOnFullBatchFailure: false,
    });
  };
