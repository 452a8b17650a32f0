/**
 * `npm start`'s event bus: what the stack's EventBridge bus, a rule per consumer and its SQS queue
 * are deployed, in process (lib/api/bus-subscriptions.ts lists the consumers). Each consumer has its
 * own queue: the events of its types, as messages whose bodies are what EventBridge delivers
 * (lib/bus/envelope.ts), handed to its function `batchSize` at a time as an `SQSEvent`, one batch at
 * a time. A message the function reports failed (all of the batch, when it throws) comes again after
 * a backoff, as SQS's visibility timeout makes it, until it has been received `maxReceiveCount`
 * times; then it goes to the queue's dead-letter list, and a line says so. A consumer that fails
 * delays no other: each drains its own queue.
 */
import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { BusSubscription } from '../api/bus-subscriptions';
import { deliveredEventOf } from '../bus/envelope';
import type { EventPublisher } from '../domain/ports/feed';

/** A queue consumer's handler; it may answer with the messages that failed (`ReportBatchItemFailures`). */
export type QueueFunction = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

export interface LocalBusConsumer
  extends Pick<BusSubscription, 'eventTypes' | 'batchSize' | 'maxReceiveCount'> {
  name: string;
  handler: QueueFunction;
}

export interface LocalBusOptions {
  /** The events' `source` and the root of their links: the local server's URL, or `PUBLIC_BASE_URL`. */
  baseUrl: string;
  consumers: readonly LocalBusConsumer[];
  /** The wait before a failed message's second receive; each later one waits twice the one before. */
  retryDelayMs?: number;
  log?: (message: string, details?: unknown) => void;
}

export interface Message {
  messageId: string;
  body: string;
  /** The feed's event id, for the log lines. */
  eventId: string;
  sentAt: number;
  receives: number;
}

interface Queue {
  consumer: LocalBusConsumer;
  ready: Message[];
  deadLetters: Message[];
  /** The batch being handled, when one is. */
  draining?: Promise<void>;
  /** Messages waiting out their backoff. */
  waiting: Set<ReturnType<typeof setTimeout>>;
}

/** A message as Lambda's SQS event source hands it over. */
export const sqsRecordOf = (queue: string, message: Message): SQSRecord => ({
  messageId: message.messageId,
  receiptHandle: `${message.messageId}#${message.receives}`,
  body: message.body,
  attributes: {
    ApproximateReceiveCount: String(message.receives),
    SentTimestamp: String(message.sentAt),
    SenderId: 'events.amazonaws.com',
    ApproximateFirstReceiveTimestamp: String(message.sentAt),
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: `arn:aws:sqs:local:000000000000:${queue}`,
  awsRegion: 'local',
});

/** The messages of a batch that failed: those reported, or all of them when the handler threw. */
const failedOf = async (consumer: LocalBusConsumer, batch: Message[], log: LocalBusOptions['log']) => {
  try {
    const response = await consumer.handler({
      Records: batch.map((message) => sqsRecordOf(consumer.name, message)),
    });
    const failed = new Set((response?.batchItemFailures ?? []).map(({ itemIdentifier }) => itemIdentifier));
    return batch.filter(({ messageId }) => failed.has(messageId));
  } catch (error) {
    log?.(`bus consumer ${consumer.name} failed`, error);
    return batch;
  }
};

export const startLocalBus = ({ baseUrl, consumers, retryDelayMs = 200, log }: LocalBusOptions) => {
  const queues = consumers.map(
    (consumer): Queue => ({ consumer, ready: [], deadLetters: [], waiting: new Set() }),
  );
  let running = true;

  const retryLater = (queue: Queue, message: Message) => {
    const timer = setTimeout(
      () => {
        queue.waiting.delete(timer);
        queue.ready.push(message);
        drain(queue);
      },
      retryDelayMs * 2 ** (message.receives - 1),
    );
    queue.waiting.add(timer);
  };

  const handleBatch = async (queue: Queue) => {
    const { consumer } = queue;
    // The events put in the same turn (an appender's batch) go in one batch, as Lambda gathers them.
    await new Promise((turn) => setImmediate(turn));
    while (running && queue.ready.length > 0) {
      const batch = queue.ready.splice(0, consumer.batchSize);
      for (const message of batch) message.receives += 1;
      for (const message of await failedOf(consumer, batch, log)) {
        if (message.receives < consumer.maxReceiveCount) retryLater(queue, message);
        else {
          queue.deadLetters.push(message);
          log?.(
            `bus consumer ${consumer.name} gave up on event ${message.eventId} after ${message.receives} receives: it is in the consumer's dead-letter list`,
          );
        }
      }
    }
  };

  const drain = (queue: Queue) => {
    if (queue.draining || !running) return;
    queue.draining = handleBatch(queue).finally(() => {
      queue.draining = undefined;
      // A message put while the last batch was finishing.
      if (queue.ready.length > 0) drain(queue);
    });
  };

  const publish: EventPublisher = async (events) => {
    for (const event of events) {
      const delivered = deliveredEventOf(event, baseUrl);
      const body = JSON.stringify(delivered);
      for (const queue of queues) {
        if (!queue.consumer.eventTypes.includes(event.type)) continue;
        queue.ready.push({
          messageId: randomUUID(),
          body,
          eventId: delivered.detail.id,
          sentAt: Date.now(),
          receives: 0,
        });
        drain(queue);
      }
    }
  };

  return {
    publish,
    /** The messages a consumer gave up on, by consumer name (the queue's dead-letter list). */
    deadLetters: (name: string): SQSRecord[] =>
      queues
        .filter(({ consumer }) => consumer.name === name)
        .flatMap(({ consumer, deadLetters }) =>
          deadLetters.map((message) => sqsRecordOf(consumer.name, message)),
        ),
    /** Stops taking events, drops the retries waiting and waits for the batches being handled. */
    async stop() {
      running = false;
      for (const queue of queues) for (const timer of queue.waiting) clearTimeout(timer);
      await Promise.all(queues.map(({ draining }) => draining));
    },
  };
};

export type LocalBus = ReturnType<typeof startLocalBus>;
