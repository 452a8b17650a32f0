/**
 * The errors of a function that reports failures per record or message (the stream readers and the
 * bus consumers): its failed invocations plus the ERROR lines it logged, as one metric. A function that
 * answers a batch with its failed items rarely fails the invocation itself, so the failed invocations
 * alone would miss most of its errors.
 */
import { Duration } from 'aws-cdk-lib';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { serviceNamespaceOf } from './service-metrics';

/** `failed + logged` over five minutes: the metric filter `<id>ErrorLogs` counts the logged ones. */
export const functionErrors = (scope: Construct, id: string, fn: LambdaFunction, handler: string) => {
  const period = Duration.minutes(5);
  const loggedErrors = new MetricFilter(scope, `${id}ErrorLogs`, {
    logGroup: fn.logGroup,
    filterPattern: FilterPattern.stringValue('$.level', '=', 'ERROR'),
    // Per stack, so a dev stack's errors never trip production's alarm in the same account.
    metricNamespace: serviceNamespaceOf(scope),
    metricName: `${id}ErrorLogs`,
    metricValue: '1',
  });
  return new MathExpression({
    expression: 'failed + logged',
    usingMetrics: {
      failed: fn.metricErrors({ statistic: 'Sum', period }),
      logged: loggedErrors.metric({ statistic: 'Sum', period }),
    },
    period,
    label: `${handler} errors`,
  });
};
