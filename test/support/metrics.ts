/**
 * The metrics a function wrote, read back as CloudWatch would read them: each line of the embedded
 * metric format on stdout taken apart into its data points. The test run turns metrics off
 * (vitest.config.ts); a file that reads them turns them on before anything loads lib/metrics.ts:
 *
 *     vi.hoisted(() => {
 *       process.env.POWERTOOLS_METRICS_DISABLED = 'false';
 *     });
 */
import { afterAll, beforeAll, vi } from 'vitest';
import { metrics } from '../../lib/metrics';

export interface MetricPoint {
  namespace: string;
  name: string;
  unit: string;
  /** Every value of the line (one per time it was added). */
  values: number[];
  /** Its dimensions, `service` included. */
  dimensions: Record<string, string>;
}

interface EmfLine {
  _aws: {
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [key: string]: unknown;
}

const isEmf = (value: unknown): value is EmfLine =>
  typeof value === 'object' && value !== null && '_aws' in value;

/** The data points of EMF lines among JSON lines (anything else, a log line say, is passed over). */
export const metricPointsOf = (text: string): MetricPoint[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as unknown)
    .filter(isEmf)
    .flatMap((line) =>
      line._aws.CloudWatchMetrics.flatMap(({ Namespace, Dimensions, Metrics }) =>
        Metrics.map(({ Name, Unit }) => {
          const value = line[Name] as number | number[];
          return {
            namespace: Namespace,
            name: Name,
            unit: Unit,
            values: Array.isArray(value) ? value : [value],
            dimensions: Object.fromEntries(Dimensions.flat().map((key) => [key, String(line[key])])),
          };
        }),
      ),
    );

/**
 * For this file's tests: stdout is taken over while they run (what the handlers write there is not
 * printed), and the function answered runs `act` and reads the metric points written meanwhile. What
 * was counted before it, outside an invocation (a table seeded through the repository), is dropped
 * first, so it is not read as `act`'s.
 */
export const metricsReader = () => {
  let written = '';
  let stdout: { mockRestore(): void } | undefined;
  beforeAll(() => {
    stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written += String(chunk);
      return true;
    });
  });
  afterAll(() => stdout?.mockRestore());
  return async (act: () => Promise<unknown>): Promise<MetricPoint[]> => {
    metrics.clearMetrics();
    const from = written.length;
    await act();
    return metricPointsOf(written.slice(from));
  };
};

/** The sum of a metric's values over the points, those with `dimensions` only when given. */
export const total = (points: MetricPoint[], name: string, dimensions: Record<string, string> = {}) =>
  points
    .filter(
      (point) =>
        point.name === name &&
        Object.entries(dimensions).every(([key, value]) => point.dimensions[key] === value),
    )
    .flatMap(({ values }) => values)
    .reduce((sum, value) => sum + value, 0);
