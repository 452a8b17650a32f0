/**
 * One consumer of the change feed's events on the bus (issue #55), as lib/api/bus-subscriptions.ts
 * lists them: a rule on the bus matching the subscription's `detail-type`s, its own queue with a
 * dead-letter queue the operator redrives from, the function reading the queue with partial batch
 * responses, and its alarms. A new consumer is a line in BUS_SUBSCRIPTIONS and its handler module; the
 * stack builds this for each.
 *
 * Each consumer fails, retries, scales and is paused on its own: its queue holds what it has not done,
 * whatever the others do, and the table's stream keeps its two readers however many consumers there are.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { type IEventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { EventSourceMapping, type Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption, type QueueProps, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { BusSubscription } from '../lib/api/bus-subscriptions';
import { constructIdOf } from './construct-ids';
import { functionErrors } from './function-errors';
import type { AlarmOptions } from './monitoring';
import { acknowledge } from './nag';

/**
 * The queue's visibility timeout, in timeouts of its function: AWS advises six for a Lambda event
 * source ("Using Lambda with Amazon SQS"), so that a message the poller is still retrying a throttled
 * invocation with does not become visible again meanwhile.
 */
export const VISIBILITY_TIMEOUTS = 6;

/** How long a dead-letter queue keeps a message: SQS's most, time for the operator to redrive it. */
export const DEAD_LETTER_RETENTION = Duration.days(14);

/** What the stack passes for each consumer. */
export interface BusConsumerProps {
  bus: IEventBus;
  subscription: BusSubscription;
  /** Its function, made by the stack with its environment, grants and timeout (which must be set). */
  fn: LambdaFunction;
  removalPolicy: RemovalPolicy;
  /** The stack's alarm helper: each alarm notifies the stack's topic and names its runbook entry. */
  alarm: (id: string, metric: IMetric, options: AlarmOptions) => void;
}

/**
 * The rule, the queues, the event source mapping and the alarms of one consumer. Construct id
 * `<Handler>Consumer`; alarm ids `<Handler>QueueAge`, `<Handler>DeadLetterDepth`,
 * `<Handler>UndeliveredEvents` and `<Handler>Errors`.
 */
export class BusConsumer extends Construct {
  readonly handler: string;
  readonly fn: LambdaFunction;
  readonly rule: Rule;
  /** The queue the rule fills and the function reads. */
  readonly queue: Queue;
  /** Messages the function failed `maxReceiveCount` times: redriven to `queue` by the operator. */
  readonly deadLetters: Queue;
  /** Events EventBridge could not put on `queue` (after its retries, for up to 24 hours). */
  readonly undelivered: Queue;

  constructor(
    scope: Construct,
    id: string,
    { bus, subscription, fn, removalPolicy, alarm }: BusConsumerProps,
  ) {
    super(scope, id);
    const { handler } = subscription;
    this.handler = handler;
    this.fn = fn;
    if (!fn.timeout) throw new Error(`${handler}: a bus consumer's function needs its timeout set`);

    const deadLetterQueue = (queueId: string, props: QueueProps = {}) =>
      new Queue(this, queueId, {
        retentionPeriod: DEAD_LETTER_RETENTION,
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        removalPolicy,
        ...props,
      });
    this.deadLetters = deadLetterQueue('DeadLetters', {
      // Any queue of the account may name it its dead-letter queue: only the consumer's queue does, and
      // naming that one (byQueue) would make each queue's ARN depend on the other's, a cycle
      // CloudFormation refuses. `aws sqs start-message-move-task` moves its messages back to that queue.
      redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
    });
    this.undelivered = deadLetterQueue('Undelivered');
    acknowledge(this.undelivered, {
      'AwsSolutions-SQS3':
        "This queue is itself a dead-letter queue (the rule target's, for events EventBridge could not deliver): a dead-letter queue of its own would only move the same events again; its depth alarms instead",
      'Serverless-SQSRedrivePolicy':
        "This queue is itself a dead-letter queue (the rule target's, for events EventBridge could not deliver): a redrive policy would only move the same events again; its depth alarms instead",
    });
    // The consumer's dead-letter queue is one by SQS's own redrive (AwsSolutions-SQS3 sees that).
    acknowledge(this.deadLetters, {
      'Serverless-SQSRedrivePolicy':
        'This queue is itself the dead-letter queue of the consumer queue: a redrive policy of its own would only move the same messages again; its depth alarms, and the operator redrives it back with start-message-move-task',
    });

    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(VISIBILITY_TIMEOUTS * fn.timeout.toSeconds()),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: subscription.maxReceiveCount },
      removalPolicy,
    });

    this.rule = new Rule(this, 'Rule', {
      eventBus: bus,
      description: `${handler}: the change feed's ${subscription.eventTypes.join(', ')} events, to its queue`,
      eventPattern: { detailType: [...subscription.eventTypes] },
      targets: [new SqsQueue(this.queue, { deadLetterQueue: this.undelivered })],
    });

    fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: subscription.batchSize,
        reportBatchItemFailures: true,
      }),
    );
    const mapping = fn.node.children.find(
      (child) => child instanceof EventSourceMapping && child.node.id.startsWith('SqsEventSource'),
    ) as EventSourceMapping;
    acknowledge(mapping, {
      'Serverless-LambdaEventSourceMappingDestination':
        "An SQS event source mapping takes no on-failure destination (Lambda has them for streams and Kafka only): the queue's redrive policy moves a message its function failed maxReceiveCount times to the queue's dead-letter queue",
    });

    this.alarms(alarm, constructIdOf(handler), subscription);
  }

  private alarms(
    alarm: BusConsumerProps['alarm'],
    id: string,
    { handler, maxReceiveCount }: BusSubscription,
  ) {
    const period = Duration.minutes(5);
    const visibility = VISIBILITY_TIMEOUTS * (this.fn.timeout as Duration).toSeconds();
    alarm(`${id}QueueAge`, this.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period }), {
      // A message failed once is seen again one visibility timeout later: older than that in two
      // periods running is a backlog, a consumer failing again and again, or one paused.
      threshold: visibility,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `Events have waited over ${visibility / 60} minutes in ${handler}'s queue in 2 of 3 five-minute periods`,
      runbook: 'consumer-queue-age',
    });
    alarm(
      `${id}DeadLetterDepth`,
      this.deadLetters.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period }),
      {
        threshold: 1,
        description: `Events that ${handler} failed ${maxReceiveCount} times are waiting in its DLQ`,
        runbook: 'consumer-dead-letters',
      },
    );
    alarm(
      `${id}UndeliveredEvents`,
      this.undelivered.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period }),
      {
        threshold: 1,
        description: `Events EventBridge could not put on ${handler}'s queue are waiting in the rule's DLQ`,
        runbook: 'undelivered-events',
      },
    );
    alarm(`${id}Errors`, functionErrors(this, id, this.fn, handler), {
      threshold: 1,
      description: `${handler} failed or logged an error`,
      runbook: 'consumer-errors',
    });
  }
}
