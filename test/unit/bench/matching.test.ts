/** The figures of the matching section (test/bench/matching.ts) from hand-made answers. */
import { describe, expect, it } from 'vitest';
import { type MatchOutcome, matchMetrics, meetsCriterion } from '../../bench/matching';

const answer = (
  category: MatchOutcome['category'],
  expected: number | null,
  ...candidates: [number, boolean?][]
) =>
  ({
    category,
    expected,
    candidates: candidates.map(([id, match = false]) => ({ id, match })),
  }) satisfies MatchOutcome;

describe('meetsCriterion', () => {
  it('asks match:true on the person meant, the person meant first, or no match:true at all', () => {
    expect(meetsCriterion(answer('exact-email', 1, [1, true], [2]))).toBe(true);
    expect(meetsCriterion(answer('exact-email', 1, [1], [2]))).toBe(false);
    expect(meetsCriterion(answer('exact-email', 1, [2, true], [1]))).toBe(false);
    expect(meetsCriterion(answer('typo', 1, [1], [2]))).toBe(true);
    expect(meetsCriterion(answer('typo', 1, [2], [1]))).toBe(false);
    expect(meetsCriterion(answer('typo', 1))).toBe(false);
    expect(meetsCriterion(answer('absent', null, [2], [3]))).toBe(true);
    expect(meetsCriterion(answer('absent', null, [2, true]))).toBe(false);
  });
});

describe('matchMetrics', () => {
  const outcomes = [
    // Two right matches, one wrong (a namesake's), one not matched though first.
    answer('exact-email', 1, [1, true]),
    answer('exact-email', 2, [2, true], [9]),
    answer('exact-email', 3, [4, true], [3]),
    answer('exact-email', 5, [5], [6]),
    // Ranks: first, third, absent from the answer.
    answer('typo', 10, [10], [11]),
    answer('typo', 12, [13], [14], [12]),
    answer('typo', 15, [16]),
    // One absent person matched after all.
    answer('absent', null, [20]),
    answer('absent', null, [21, true]),
  ];
  const { rows, overall } = matchMetrics(outcomes);
  const row = (category: string) => rows.find((entry) => entry.category === category);

  it('gives each category its criterion, precision and recall of match:true, rank 1 and top 3', () => {
    expect(rows.map(({ category }) => category)).toEqual(['exact-email', 'typo', 'absent']);
    expect(row('exact-email')).toEqual({
      category: 'exact-email',
      criterion: 'match',
      queries: 4,
      inStore: 4,
      met: 2,
      criterionShare: 0.5,
      matches: 3,
      rightMatches: 2,
      precision: 0.667,
      recall: 0.5,
      rankOne: 0.75,
      topThree: 1,
    });
    expect(row('typo')).toMatchObject({
      criterion: 'rank1',
      met: 1,
      criterionShare: 0.333,
      matches: 0,
      precision: null,
      recall: 0,
      rankOne: 0.333,
      topThree: 0.667,
    });
    expect(row('absent')).toMatchObject({
      criterion: 'no-match',
      queries: 2,
      inStore: 0,
      met: 1,
      matches: 1,
      rightMatches: 0,
      precision: 0,
      recall: null,
      rankOne: null,
      topThree: null,
    });
  });

  it('sums them overall: a match:true on someone absent is a wrong one, recall is over persons in the store', () => {
    expect(overall).toEqual({
      category: 'overall',
      criterion: 'each its own',
      queries: 9,
      inStore: 7,
      met: 4,
      criterionShare: 0.444,
      matches: 4,
      rightMatches: 2,
      precision: 0.5,
      recall: 0.286,
      rankOne: 0.571,
      topThree: 0.857,
    });
  });

  it('leaves out categories without answers', () => {
    expect(matchMetrics([]).rows).toEqual([]);
    expect(matchMetrics([]).overall).toMatchObject({
      queries: 0,
      precision: null,
      recall: null,
      rankOne: null,
    });
  });
});
