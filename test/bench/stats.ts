/** Order statistics of latency samples, in milliseconds. */

export interface Summary {
  n: number;
  median: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

/** The nearest-rank quantile of sorted samples (q in 0..1). */
export const quantile = (sorted: readonly number[], q: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
};

export const summarise = (samples: readonly number[]): Summary => {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    p99: quantile(sorted, 0.99),
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
  };
};

export const median = (samples: readonly number[]) => summarise(samples).median;

/** Milliseconds taken by `run`. */
export const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

/** Rounds for the report: 2 decimals below 10, 1 below 100, none above. */
export const round = (value: number): number => {
  if (!Number.isFinite(value)) return value;
  const digits = Math.abs(value) < 10 ? 2 : Math.abs(value) < 100 ? 1 : 0;
  return Number(value.toFixed(digits));
};

export const ratio = (numerator: number, denominator: number) => Number((numerator / denominator).toFixed(2));
