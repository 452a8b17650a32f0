/**
 * The service's own metrics (lib/api/metrics.ts names them), on Powertools Metrics: one instance per
 * container, as the logger is, written as CloudWatch's embedded metric format (one JSON line on stdout
 * per invocation that counted something; none when it counted nothing). `metricsFlush` is the
 * middleware that writes them when an invocation ends. A metric is added by its catalogue name only,
 * so its unit is the catalogue's and the dashboard reads what the functions write.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { LOCAL_METRICS_NAMESPACE, METRICS, type MetricName } from './api/metrics';
import { logger, SERVICE_NAME } from './logger';

/** The catalogue's metrics that carry a dimension of their own, and the others. */
type DimensionedMetric = {
  [K in MetricName]: (typeof METRICS)[K] extends { dimension: unknown } ? K : never;
}[MetricName];
export type PlainMetric = Exclude<MetricName, DimensionedMetric>;
type DimensionValue<K extends DimensionedMetric> = (typeof METRICS)[K]['dimension']['values'][number];

/** Powertools' notice when an invocation counted nothing: routine here (most requests count nothing). */
const NOTHING_COUNTED = 'No application metrics to publish';

/**
 * Metrics' own notices go to the service's log; the one an invocation that counted nothing gives is
 * kept at debug, not a warning on most requests.
 */
const notices = {
  debug: (message: string) => logger.debug(message),
  info: (message: string) => logger.info(message),
  warn: (message: string) =>
    message.startsWith(NOTHING_COUNTED) ? logger.debug(message) : logger.warn(message),
  error: (message: string) => logger.error(message),
};

/**
 * The container's metrics: the stack's namespace from POWERTOOLS_METRICS_NAMESPACE, `npm start`'s
 * otherwise; `POWERTOOLS_METRICS_DISABLED` silences them (the tests' setting).
 */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || LOCAL_METRICS_NAMESPACE,
  serviceName: SERVICE_NAME,
  logger: notices,
});

/** Adds to a metric of the catalogue, in its unit; written when the invocation ends (`metricsFlush`). */
export const addMetric = (name: PlainMetric, value = 1) => {
  metrics.addMetric(name, METRICS[name].unit, value);
};

/**
 * Adds to a metric with a dimension of its own (UniquenessConflicts by `field`), on a line of its own
 * written at once: on the invocation's line its dimension would apply to every metric there.
 */
export const addDimensionedMetric = <K extends DimensionedMetric>(
  name: K,
  dimension: DimensionValue<K>,
  value = 1,
) => {
  const single = metrics.singleMetric();
  single.addDimension(METRICS[name].dimension.name, dimension);
  single.addMetric(name, METRICS[name].unit, value);
};

/**
 * Writes what an invocation counted when it ends, however it ends (Powertools' middy middleware).
 * Without a ColdStart metric: it is not the service's (Lambda's own report gives init durations),
 * and it would be one more line per container.
 */
export const metricsFlush = () => logMetrics(metrics);
