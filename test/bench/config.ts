/** How much each section does: the full run docs/performance.md quotes, and `--quick`, which a test runs. */
export interface BenchConfig {
  mode: 'full' | 'quick';
  overhead: {
    /** Persons seeded into the overhead table before it starts (creates add more as it runs). */
    persons: number;
    iterations: number;
    /** The filtered list reads the whole index each time: fewer iterations. */
    filteredIterations: number;
    warmup: number;
    /** Handler runs recorded in full per write operation, for capacity (5 for lists). */
    accountingRuns: number;
  };
  scale: {
    sizes: number[];
    deepOffset: number;
    /** Runs of each list query at each size (after one warm-up run); the median is reported. */
    runs: number;
    /** Runs at the largest size, where a common fragment reads 20 000 postings (half a second). */
    runsAtLargest: number;
    /**
     * Untimed passes over every list query before the first size's rows, so they do not measure the
     * JIT and DynamoDB Local warming up. The quick run's timings are checked by nothing (its test
     * checks counts and calls), so it warms up just enough to run the pass: 2, where 20 took 28 s.
     */
    warmUpPasses: number;
  };
  /** What an `Idempotency-Key` costs (keyed-writes.ts): each write unkeyed, keyed and replayed. */
  keyed: {
    iterations: number;
    warmup: number;
    /** Runs recorded in full per variant, for capacity. */
    accountingRuns: number;
  };
  /** Bulk import and export (bulk.ts): persons per run, the importer's concurrencies, export page size. */
  bulk: {
    persons: number;
    concurrencies: number[];
    exportLimit: number;
  };
  /** What a merge costs (merge.ts): a fresh pair a merge, small and large pairs alternated. */
  merge: {
    /** Measured merges of each pair. */
    iterations: number;
    warmup: number;
    /** Merges of each pair recorded in full, for capacity and the actions of each transaction. */
    accountingRuns: number;
  };
  /** The change feed (feed.ts): its lag at idle and under a burst of writes, and what a page costs. */
  feed: {
    /** Writes one after another (creates and PATCHes alternating), each awaited in the feed. */
    idleWrites: number;
    /** Creates of the burst, and how many are in flight at once. */
    burstWrites: number;
    burstConcurrency: number;
    /** Events the feed holds (at least) when its pages are read for their cost: more creates if need be. */
    pagedEvents: number;
    /** The `limit` of every read: the readers' of the lag, and each page read for its cost. */
    pageLimit: number;
  };
  cold: {
    /** Fresh processes per function, for the bundle and for bare node each. */
    runs: number;
  };
  throughput: {
    connections: number;
    seconds: number;
  };
  /** The labelled duplicates sets (duplicate-set.ts): base persons, and the share of each kind's pairs. */
  duplicates: { bases: number; share: number };
}

export const FULL: BenchConfig = {
  mode: 'full',
  overhead: { persons: 1_000, iterations: 300, filteredIterations: 150, warmup: 30, accountingRuns: 50 },
  scale: {
    sizes: [1_000, 10_000, 100_000],
    deepOffset: 5_000,
    runs: 21,
    runsAtLargest: 11,
    warmUpPasses: 20,
  },
  keyed: { iterations: 300, warmup: 30, accountingRuns: 50 },
  bulk: { persons: 1_000, concurrencies: [1, 4, 16], exportLimit: 100 },
  merge: { iterations: 200, warmup: 10, accountingRuns: 20 },
  feed: { idleWrites: 40, burstWrites: 300, burstConcurrency: 16, pagedEvents: 1_000, pageLimit: 100 },
  cold: { runs: 15 },
  throughput: { connections: 16, seconds: 10 },
  // Some 1 700 persons a set, 400 planted duplicates and 180 pairs alike.
  duplicates: { bases: 1_100, share: 1 },
};

export const QUICK: BenchConfig = {
  mode: 'quick',
  overhead: { persons: 60, iterations: 8, filteredIterations: 4, warmup: 2, accountingRuns: 4 },
  scale: { sizes: [1_000, 10_000], deepOffset: 200, runs: 11, runsAtLargest: 11, warmUpPasses: 2 },
  keyed: { iterations: 8, warmup: 2, accountingRuns: 4 },
  bulk: { persons: 30, concurrencies: [1, 4, 16], exportLimit: 25 },
  merge: { iterations: 4, warmup: 1, accountingRuns: 2 },
  // No fill: the feed's ~50 events read 25 a page.
  feed: { idleWrites: 10, burstWrites: 40, burstConcurrency: 16, pagedEvents: 0, pageLimit: 25 },
  cold: { runs: 1 },
  throughput: { connections: 16, seconds: 1 },
  // Some 160 persons a set, 4 duplicates and 3 pairs alike of each kind.
  duplicates: { bases: 100, share: 0.1 },
};
