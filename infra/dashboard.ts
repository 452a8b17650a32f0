/**
 * The service's one CloudWatch dashboard (issue #42): a row each for the HTTP API, the functions, the
 * table, the service's own metrics (lib/api/metrics.ts, every one), the stream consumers, the bus
 * consumers' queues, and the alarms' state. docs/runbook.md names the rows an alarm sends the operator to.
 *
 * The Lambda row is one graph per metric with a line per function, not a graph per function: with
 * some forty functions, forty small graphs are a wall no one reads, while one graph shows at a glance
 * whether anything moved and its legend (or a hover) names the function.
 */
import { Aws, CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  type IWidget,
  LegendPosition,
  type MetricOptions,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS, type MetricName } from '../lib/api/metrics';
import type { BusConsumer } from './bus-consumer';
import { seriesOf } from './service-metrics';
import type { PersonTable } from './table';

/** A function fed by the table's stream, and the queue of the records it gave up on. */
export interface StreamConsumer {
  handler: string;
  fn: LambdaFunction;
  deadLetters: Queue;
}

export interface ServiceDashboardProps {
  stage: HttpStage;
  /** Every function of the service, by handler name. */
  functions: ReadonlyMap<string, LambdaFunction>;
  table: PersonTable;
  streams: readonly StreamConsumer[];
  /** The change feed's consumers on the bus, each with its queue and dead-letter queues. */
  consumers: readonly BusConsumer[];
  /** Other failure queues, graphed with the consumers' dead-letter queues: label → queue. */
  failureQueues: Readonly<Record<string, Queue>>;
  alarms: readonly Alarm[];
}

/** The period every graph aggregates over. */
const PERIOD = Duration.minutes(5);

/** Rows, each a heading and its graphs (wrapped to the dashboard's 24 columns). */
export const DASHBOARD_ROWS = [
  'API',
  'Lambda',
  'DynamoDB',
  'Service metrics',
  'Stream consumers',
  'Bus consumers',
  'Alarms',
] as const;

/** A graph; with a line per function its legend goes beside it, where forty names fit. */
const graph = (title: string, left: IMetric[], extra: { stacked?: boolean; width?: number } = {}) =>
  new GraphWidget({
    title,
    left,
    width: extra.width ?? 8,
    height: 6,
    stacked: extra.stacked ?? false,
    legendPosition: left.length > 6 ? LegendPosition.RIGHT : LegendPosition.BOTTOM,
  });

/** A counted metric as its sum per period, a timed one as its median and 99th percentile. */
const serviceGraph = (scope: Construct, name: MetricName) => {
  const { unit } = METRICS[name];
  const statistics = unit === 'Milliseconds' ? ['p50', 'p99'] : ['Sum'];
  const left = statistics.flatMap((statistic) =>
    seriesOf(scope, name, { statistic, period: PERIOD, label: statistics.length > 1 ? statistic : name }),
  );
  return new GraphWidget({ title: `${name} (${unit})`, left, width: 6, height: 6 });
};

export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(
    scope: Construct,
    id: string,
    { stage, functions, table, streams, consumers, failureQueues, alarms }: ServiceDashboardProps,
  ) {
    super(scope, id);
    const sum: MetricOptions = { statistic: 'Sum', period: PERIOD };
    const perFunction = (metricOf: (fn: LambdaFunction, handler: string) => IMetric) =>
      [...functions].map(([handler, fn]) => metricOf(fn, handler));
    const rows: Record<(typeof DASHBOARD_ROWS)[number], IWidget[]> = {
      API: [
        graph('Requests', [stage.metricCount({ ...sum, label: 'requests' })]),
        graph('4xx and 5xx', [
          stage.metricClientError({ ...sum, label: '4xx' }),
          stage.metricServerError({ ...sum, label: '5xx' }),
        ]),
        graph('Latency (ms)', [
          stage.metricLatency({ statistic: 'p50', period: PERIOD, label: 'p50' }),
          stage.metricLatency({ statistic: 'p99', period: PERIOD, label: 'p99' }),
          stage.metricIntegrationLatency({ statistic: 'p99', period: PERIOD, label: 'integration p99' }),
        ]),
      ],
      Lambda: [
        graph(
          'Errors',
          perFunction((fn, handler) => fn.metricErrors({ ...sum, label: handler })),
          {
            stacked: true,
            width: 12,
          },
        ),
        graph(
          'Throttles',
          perFunction((fn, handler) => fn.metricThrottles({ ...sum, label: handler })),
          {
            stacked: true,
            width: 12,
          },
        ),
        graph(
          'Duration p99 (ms)',
          perFunction((fn, handler) =>
            fn.metricDuration({ statistic: 'p99', period: PERIOD, label: handler }),
          ),
          { width: 12 },
        ),
        graph(
          'Concurrent executions (max)',
          perFunction((fn, handler) =>
            fn.metric('ConcurrentExecutions', { statistic: 'Maximum', period: PERIOD, label: handler }),
          ),
          { stacked: true, width: 12 },
        ),
      ],
      DynamoDB: [
        graph(
          'Consumed capacity units',
          [
            table.metricConsumedReadCapacityUnits({ ...sum, label: 'read' }),
            table.metricConsumedWriteCapacityUnits({ ...sum, label: 'write' }),
          ],
          { width: 6 },
        ),
        graph('Throttle events (table and indexes)', Object.values(table.metricThrottleEvents(sum)), {
          stacked: true,
          width: 6,
        }),
        graph(
          'Transaction conflicts',
          [table.metric('TransactionConflict', { ...sum, label: 'conflicts' })],
          {
            width: 6,
          },
        ),
        graph('System errors', [table.metricSystemErrorsForOperations({ ...sum, label: 'system errors' })], {
          width: 6,
        }),
      ],
      'Service metrics': (Object.keys(METRICS) as MetricName[]).map((name) => serviceGraph(this, name)),
      'Stream consumers': [
        graph(
          'Iterator age (max, ms)',
          streams.map(({ handler, fn }) =>
            fn.metric('IteratorAge', { statistic: 'Maximum', period: PERIOD, label: handler }),
          ),
          { width: 12 },
        ),
        graph(
          'Dead-letter queue depth (max)',
          streams.map(({ handler, deadLetters }) =>
            deadLetters.metricApproximateNumberOfMessagesVisible({
              statistic: 'Maximum',
              period: PERIOD,
              label: handler,
            }),
          ),
          { width: 12 },
        ),
      ],
      'Bus consumers': [
        graph(
          'Age of oldest message (max, s)',
          consumers.map(({ handler, queue }) =>
            queue.metricApproximateAgeOfOldestMessage({
              statistic: 'Maximum',
              period: PERIOD,
              label: handler,
            }),
          ),
        ),
        graph(
          'Messages waiting (max)',
          consumers.map(({ handler, queue }) =>
            queue.metricApproximateNumberOfMessagesVisible({
              statistic: 'Maximum',
              period: PERIOD,
              label: handler,
            }),
          ),
        ),
        graph(
          'Dead-letter queue depth (max)',
          consumers
            .flatMap(({ handler, deadLetters, undelivered }) => [
              deadLetters.metricApproximateNumberOfMessagesVisible({
                statistic: 'Maximum',
                period: PERIOD,
                label: `${handler} failed`,
              }),
              undelivered.metricApproximateNumberOfMessagesVisible({
                statistic: 'Maximum',
                period: PERIOD,
                label: `${handler} undelivered`,
              }),
            ])
            .concat(
              Object.entries(failureQueues).map(([label, queue]) =>
                queue.metricApproximateNumberOfMessagesVisible({
                  statistic: 'Maximum',
                  period: PERIOD,
                  label,
                }),
              ),
            ),
        ),
      ],
      Alarms: [new AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms], width: 24, height: 8 })],
    };

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-${Aws.REGION}`,
      defaultInterval: Duration.hours(3),
    });
    for (const row of DASHBOARD_ROWS)
      this.dashboard.addWidgets(
        new TextWidget({ markdown: `## ${row}`, width: 24, height: 1 }),
        ...rows[row],
      );

    new CfnOutput(scope, 'DashboardUrl', {
      value: `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards/dashboard/${this.dashboard.dashboardName}`,
      description: 'The CloudWatch dashboard of the service',
    });
  }
}
