/**
 * Matching quality cannot regress unseen (issue #38 step 3): the fixed 100-query slice of the labelled
 * set (test/bench/match-set.ts) against its whole store of some 1 500 persons, through the
 * reconciliation handler as OpenRefine sends it. The bar itself (recall, rank 1, every category) is
 * the bench's (`npm run bench -- --only matching`); here only what must never get worse: a certain
 * match is right, and no one absent is matched.
 *
 * The store is seeded as creates write it (persons, postings, claims) through BatchWriteItem, without
 * the ChangeHistory a create adds: so its table is not the suite's, whose invariant checker counts them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MATCH_SET, MATCH_SLICE } from '../bench/match-set';
import { answerQueries, type MatchOutcome, matchMetrics, seedMatchStore } from '../bench/matching';
import { createTestTable, type TestTable } from '../support/dynamo';

/**
 * The bar of issue #38 on the whole set (rank 1 0.95, recall 0.70; each category 0.85 on its own
 * criterion) is the bench's; the slice, a sixth of it, is held to the same overall figures, which the
 * scoring of 2026-11-26 clears on it (rank 1 1, recall 0.747): a floor against regressions.
 */
const FLOOR = { rankOne: 0.95, recall: 0.7 };

let table: TestTable;
let outcomes: MatchOutcome[];

beforeAll(async () => {
  table = await createTestTable();
  const ids = await seedMatchStore(table, MATCH_SET.population, { counted: false });
  ({ outcomes } = await answerQueries(table, MATCH_SLICE, ids));
}, 120_000);

describe('matching quality on the fixed slice (issue #38)', () => {
  it('gives match:true to the person meant: precision at least 0.99', () => {
    const { overall } = matchMetrics(outcomes);
    expect(overall.matches).toBeGreaterThan(0);
    expect(overall.precision).toBeGreaterThanOrEqual(0.99);
  });

  it('never gives match:true on a person not in the store, nor on a namesake by name alone', () => {
    const rows = matchMetrics(outcomes).rows.filter(({ criterion }) => criterion === 'no-match');
    expect(rows.map(({ category }) => category).sort()).toEqual(['absent', 'namesake-alone']);
    for (const row of rows)
      expect({ category: row.category, matches: row.matches }).toEqual({
        category: row.category,
        matches: 0,
      });
  });

  it('puts the person meant first, and matches it, at least as often as the current scoring does', () => {
    const { overall } = matchMetrics(outcomes);
    expect(overall.rankOne).toBeGreaterThanOrEqual(FLOOR.rankOne);
    expect(overall.recall).toBeGreaterThanOrEqual(FLOOR.recall);
  });
});
