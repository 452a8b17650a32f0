/**
 * Matching quality cannot regress unseen (issue #38 step 3, issue #53 step 7): a fixed 100-query slice
 * of each labelled set against that set's whole store of some 1 500 persons, through the
 * reconciliation handler as OpenRefine sends it. The tuning set (test/bench/match-set.ts) is the one
 * the scoring is tuned on; the held-out set (test/bench/match-set-holdout.ts: another seed, other name
 * pools and variants: hyphens, family name first, short names) is the one it is not. Both are held to
 * the bar (precision of match:true 0.99, recall 0.70, the person meant first in 0.95), and no one
 * absent or named alone among namesakes is ever matched. The whole sets' figures are the bench's
 * (`npm run bench -- --only matching`).
 *
 * Each store is seeded as creates write it (persons, postings, claims) through BatchWriteItem, without
 * the ChangeHistory a create adds: so its table is not the suite's, whose invariant checker counts them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MATCH_SET, MATCH_SLICE, type MatchQuery, type MatchSet, personBodyOf } from '../bench/match-set';
import { HOLDOUT_SET, HOLDOUT_SLICE } from '../bench/match-set-holdout';
import { answerQueries, type MatchOutcome, matchMetrics, seedMatchStore } from '../bench/matching';
import { createTestTable } from '../support/dynamo';

/** The bar of issues #38 and #53, on each slice (a sixth of its set). */
const FLOOR = { precision: 0.99, rankOne: 0.95, recall: 0.7 };

const SETS: Record<string, { set: MatchSet; slice: MatchQuery[] }> = {
  tuning: { set: MATCH_SET, slice: MATCH_SLICE },
  'held-out': { set: HOLDOUT_SET, slice: HOLDOUT_SLICE },
};
const outcomes: Record<string, MatchOutcome[]> = {};

beforeAll(async () => {
  // The two stores at once, each in a table of its own.
  await Promise.all(
    Object.entries(SETS).map(async ([name, { set, slice }]) => {
      const table = await createTestTable();
      const ids = await seedMatchStore(table, set.population.map(personBodyOf), { counted: false });
      outcomes[name] = (await answerQueries(table, slice, ids)).outcomes;
    }),
  );
}, 240_000);

describe.each(Object.keys(SETS))('matching quality on the fixed slice of the %s set', (name) => {
  const metrics = () => matchMetrics(outcomes[name] ?? [], (SETS[name] as { set: MatchSet }).set.categories);

  it('gives match:true to the person meant: precision at least 0.99', () => {
    const { overall } = metrics();
    expect(overall.matches).toBeGreaterThan(0);
    expect(overall.precision).toBeGreaterThanOrEqual(FLOOR.precision);
  });

  it('never gives match:true on a person not in the store, nor on namesakes by name alone', () => {
    const rows = metrics().rows.filter(({ criterion }) => criterion === 'no-match');
    expect(rows.map(({ category }) => category)).toEqual(
      expect.arrayContaining(['absent', 'namesake-alone']),
    );
    for (const row of rows)
      expect({ category: row.category, matches: row.matches }).toEqual({
        category: row.category,
        matches: 0,
      });
  });

  it('matches the person meant in at least 0.70 of the queries about a stored person, first in 0.95', () => {
    const { overall } = metrics();
    console.log(`matching quality, ${name} slice: ${JSON.stringify(overall)}`);
    expect(overall.recall).toBeGreaterThanOrEqual(FLOOR.recall);
    expect(overall.rankOne).toBeGreaterThanOrEqual(FLOOR.rankOne);
  });
});
