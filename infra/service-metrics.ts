/**
 * The service's own metrics (lib/api/metrics.ts) as CloudWatch metrics of the stack, read exactly as
 * the functions emit them: the stack's namespace, the dimension `service`, and a metric's own
 * dimension where it has one. The dashboard and the alarms both build them here.
 */
import { Stack } from 'aws-cdk-lib';
import { Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import type { IConstruct } from 'constructs';
import { METRICS, type MetricDefinition, type MetricName, metricsNamespaceOf } from '../lib/api/metrics';
import { SERVICE_NAME } from './bundling';

/** The environment variable Powertools Metrics reads its namespace from. */
export const METRICS_NAMESPACE_ENV = 'POWERTOOLS_METRICS_NAMESPACE';

/** The namespace of the stack `scope` is in. */
export const serviceNamespaceOf = (scope: IConstruct) => metricsNamespaceOf(Stack.of(scope).stackName);

/** One series of a metric: with `value`, the series of that value of the metric's own dimension. */
export const serviceMetric = (
  scope: IConstruct,
  name: MetricName,
  options: MetricOptions,
  value?: string,
) => {
  const dimension = (METRICS[name] as MetricDefinition).dimension;
  return new Metric({
    namespace: serviceNamespaceOf(scope),
    metricName: name,
    ...options,
    dimensionsMap: {
      service: SERVICE_NAME,
      ...(dimension && value !== undefined ? { [dimension.name]: value } : {}),
    },
  });
};

/** Every series of a metric: one per value of its own dimension (its label then names the value), else the one. */
export const seriesOf = (scope: IConstruct, name: MetricName, options: MetricOptions): Metric[] => {
  const dimension = (METRICS[name] as MetricDefinition).dimension;
  return dimension
    ? dimension.values.map((value) =>
        serviceMetric(
          scope,
          name,
          { ...options, label: `${options.label ?? name} ${dimension.name}=${value}` },
          value,
        ),
      )
    : [serviceMetric(scope, name, options)];
};
