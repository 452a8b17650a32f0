/**
 * The figures of a recorded run: requests by kind and answer class, conflicts refused, 503s, and
 * latency percentiles; printed as a Markdown table.
 */
import { type Exchange, percentile, type RequestKind } from './http';

export interface KindFigures {
  requests: number;
  ok: number;
  clientErrors: number;
  serverErrors: number;
  /** No answer at all (network failure or timeout). */
  unanswered: number;
  conflicts: number;
  p50: number;
  p99: number;
  max: number;
}

export interface RunFigures {
  requests: number;
  ok: number;
  clientErrors: number;
  serverErrors: number;
  unanswered: number;
  /** 409 duplicate-email or duplicate-name. */
  conflicts: number;
  /** 503: storage unavailable, or transaction conflicts still there after the service's retries. */
  unavailable: number;
  byKind: Partial<Record<RequestKind, KindFigures>>;
  statuses: Record<number, number>;
}

/** How many exchanges got each status (0: no answer). */
export const statusCounts = (exchanges: readonly Exchange[]): Record<number, number> => {
  const counts: Record<number, number> = {};
  for (const { status } of exchanges) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
};

const kindFigures = (exchanges: Exchange[]): KindFigures => {
  const latencies = exchanges.filter((e) => e.status > 0).map((e) => e.endedAt - e.startedAt);
  return {
    requests: exchanges.length,
    ok: exchanges.filter((e) => e.status >= 200 && e.status < 300).length,
    clientErrors: exchanges.filter((e) => e.status >= 400 && e.status < 500).length,
    serverErrors: exchanges.filter((e) => e.status >= 500).length,
    unanswered: exchanges.filter((e) => e.status === 0).length,
    conflicts: exchanges.filter((e) => e.status === 409).length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.length > 0 ? Math.max(...latencies) : Number.NaN,
  };
};

export const figuresOf = (exchanges: Exchange[]): RunFigures => {
  const byKind: Partial<Record<RequestKind, KindFigures>> = {};
  const kinds = [...new Set(exchanges.map((e) => e.kind))];
  for (const kind of kinds) byKind[kind] = kindFigures(exchanges.filter((e) => e.kind === kind));
  const statuses = statusCounts(exchanges);
  const all = kindFigures(exchanges);
  return {
    requests: all.requests,
    ok: all.ok,
    clientErrors: all.clientErrors,
    serverErrors: all.serverErrors,
    unanswered: all.unanswered,
    conflicts: all.conflicts,
    unavailable: statuses[503] ?? 0,
    byKind,
    statuses,
  };
};

const ms = (value: number) => (Number.isNaN(value) ? '-' : `${Math.round(value)}`);

/** A Markdown table of the figures per kind of request, with a total row. */
export const kindTable = (figures: RunFigures): string => {
  const rows = Object.entries(figures.byKind).map(
    ([kind, f]) =>
      `| ${kind} | ${f.requests} | ${f.ok} | ${f.clientErrors} | ${f.serverErrors} | ${f.unanswered} | ${f.conflicts} | ${ms(f.p50)} | ${ms(f.p99)} | ${ms(f.max)} |`,
  );
  return [
    '| request | count | 2xx | 4xx | 5xx | no answer | 409 | p50 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    `| **all** | ${figures.requests} | ${figures.ok} | ${figures.clientErrors} | ${figures.serverErrors} | ${figures.unanswered} | ${figures.conflicts} | | | |`,
  ].join('\n');
};
