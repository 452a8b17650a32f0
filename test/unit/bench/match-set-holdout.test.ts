/**
 * The held-out labelled set of issue #53 step 7 (test/bench/match-set-holdout.ts): what its figures
 * rest on. It must be another set than the tuning one, and every query well-posed.
 */
import { describe, expect, it } from 'vitest';
import { fold } from '../../../lib/domain/text';
import { fullnameOf, MATCH_SET, type MatchPerson } from '../../bench/match-set';
import {
  HOLDOUT_CATEGORIES,
  HOLDOUT_SET,
  HOLDOUT_SLICE,
  holdoutSet,
  wordsKey,
} from '../../bench/match-set-holdout';

const { population, queries } = HOLDOUT_SET;
const holders = new Map<string, number[]>();
population.forEach((person, index) => {
  const key = wordsKey(fullnameOf(person));
  holders.set(key, [...(holders.get(key) ?? []), index]);
});
const of = (category: string) => queries.filter((query) => query.category === category);
const meant = (expected: number | null) => population[expected as number] as MatchPerson;

describe('the held-out set', () => {
  it('is the same every time, and is not the tuning set: other names, other traditions', () => {
    expect(holdoutSet()).toEqual(HOLDOUT_SET);
    const tuning = new Set(MATCH_SET.population.map((person) => fold(fullnameOf(person))));
    const shared = population.filter((person) => tuning.has(fold(fullnameOf(person))));
    expect(shared.length).toBeLessThan(population.length / 50);
    expect(population.length).toBeGreaterThanOrEqual(1_400);
    expect(new Set(population.map(({ tradition }) => tradition)).size).toBeGreaterThanOrEqual(12);
  });

  it('has every category at its count, in order, 660 queries', () => {
    expect(queries).toHaveLength(660);
    for (const { category, count } of HOLDOUT_CATEGORIES) expect(of(category), category).toHaveLength(count);
    expect([...new Set(queries.map(({ category }) => category))]).toEqual(
      HOLDOUT_CATEGORIES.map(({ category }) => category),
    );
  });

  it('asks each name-alone query about a name no other stored person has in any order of its words', () => {
    for (const category of ['exact-unique', 'hyphen-space', 'family-first', 'short-exact'])
      for (const query of of(category)) {
        expect(wordsKey(query.query), `${category}: ${query.query}`).toBe(
          wordsKey(fullnameOf(meant(query.expected))),
        );
        expect(holders.get(wordsKey(query.query)), query.query).toEqual([query.expected]);
      }
    for (const query of of('family-first'))
      expect(fold(query.query)).not.toBe(fold(fullnameOf(meant(query.expected))));
    for (const query of of('short-exact'))
      expect(
        wordsKey(query.query)
          .split(' ')
          .every((word) => Array.from(word).length < 3),
        query.query,
      ).toBe(true);
  });

  it('names namesakes (in either order) or no one stored where no match is right', () => {
    for (const query of [...of('namesake-alone'), ...of('namesake-reversed')]) {
      expect(query.expected).toBeNull();
      expect(holders.get(wordsKey(query.query))?.length ?? 0, query.query).toBeGreaterThanOrEqual(2);
    }
    const emails = new Set(population.flatMap(({ emails }) => emails));
    for (const query of of('absent')) {
      expect(holders.has(wordsKey(query.query)), query.query).toBe(false);
      for (const { v } of query.properties) expect(emails.has(v)).toBe(false);
    }
  });

  it('has a regression slice of 100 from every category', () => {
    expect(HOLDOUT_SLICE).toHaveLength(100);
    expect(new Set(HOLDOUT_SLICE.map(({ category }) => category)).size).toBe(HOLDOUT_CATEGORIES.length);
  });
});
