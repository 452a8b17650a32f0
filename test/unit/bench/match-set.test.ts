/** The labelled matching set of issue #38 (test/bench/match-set.ts): what its figures rest on. */
import { describe, expect, it } from 'vitest';
import { fold } from '../../../lib/domain/text';
import {
  fullnameOf,
  MATCH_CATEGORIES,
  MATCH_SET,
  MATCH_SLICE,
  type MatchPerson,
  matchSet,
  mulberry32,
  plainOf,
  SPECIAL_LETTERS,
  withinOneEdit,
} from '../../bench/match-set';

const { population, queries } = MATCH_SET;
const folded = (person: MatchPerson) => fold(fullnameOf(person));
const holders = new Map<string, number[]>();
population.forEach((person, index) => {
  holders.set(folded(person), [...(holders.get(folded(person)) ?? []), index]);
});
const of = (category: string) => queries.filter((query) => query.category === category);
const meant = (expected: number | null) => population[expected as number] as MatchPerson;

describe('the store', () => {
  it('is the same every time, and another seed gives another', () => {
    expect(matchSet()).toEqual(MATCH_SET);
    expect(matchSet(39).queries).not.toEqual(MATCH_SET.queries);
    expect(mulberry32(1)()).toBe(mulberry32(1)());
  });

  it('holds about 1 500 persons of many traditions, each email held once', () => {
    expect(population.length).toBeGreaterThanOrEqual(1_400);
    expect(population.length).toBeLessThanOrEqual(1_600);
    expect(new Set(population.map(({ tradition }) => tradition)).size).toBeGreaterThanOrEqual(20);
    const emails = population.flatMap(({ emails }) => emails);
    expect(new Set(emails).size).toBe(emails.length);
    expect(emails.every((email) => /^[a-z0-9.]+@[a-z.]+$/.test(email))).toBe(true);
    expect(population.filter(({ emails }) => emails.length === 2).length).toBeGreaterThan(100);
  });

  it('has about 60 groups of 2 or 3 namesakes, and no other two persons of one (folded) name', () => {
    const groups = new Map<number, MatchPerson[]>();
    for (const person of population)
      if (person.namesakes !== undefined)
        groups.set(person.namesakes, [...(groups.get(person.namesakes) ?? []), person]);
    expect(groups.size).toBe(60);
    for (const group of groups.values()) {
      expect(group.length).toBeGreaterThanOrEqual(2);
      expect(group.length).toBeLessThanOrEqual(3);
      expect(new Set(group.map(fullnameOf)).size).toBe(1);
    }
    for (const [name, indexes] of holders)
      if (indexes.length > 1) expect(meant(indexes[0] as number).namesakes, name).toBeDefined();
  });

  it('has two-letter names and every special letter the issue names', () => {
    expect(population.some(({ last }) => last === 'Li')).toBe(true);
    expect(population.some(({ last }) => last === 'Wu')).toBe(true);
    for (const letter of SPECIAL_LETTERS)
      expect(
        population.some((person) => fullnameOf(person).toLowerCase().includes(letter)),
        letter,
      ).toBe(true);
  });
});

describe('the queries', () => {
  it('are at least 600, every category at its count, in the order of MATCH_CATEGORIES', () => {
    expect(queries.length).toBeGreaterThanOrEqual(600);
    for (const { category, count } of MATCH_CATEGORIES) expect(of(category), category).toHaveLength(count);
    expect([...new Set(queries.map(({ category }) => category))]).toEqual(
      MATCH_CATEGORIES.map(({ category }) => category),
    );
  });

  it('name a person of the store, or (absent) no one, whose name and email are not stored', () => {
    for (const query of queries)
      if (query.category === 'absent') {
        expect(query.expected).toBeNull();
        expect(holders.has(fold(query.query))).toBe(false);
      } else if (query.category !== 'namesake-alone')
        expect(population[query.expected as number]).toBeDefined();
    const emails = new Set(population.flatMap(({ emails }) => emails));
    const absent = of('absent');
    expect(absent.filter(({ properties }) => properties.length === 1)).toHaveLength(absent.length / 2);
    for (const { properties } of absent) for (const { v } of properties) expect(emails.has(v)).toBe(false);
    // Most share a first or a last name with someone stored.
    const words = new Set(population.flatMap(({ first, last }) => [fold(first), fold(last)]));
    const sharing = absent.filter(({ query }) => query.split(' ').some((word) => words.has(fold(word))));
    expect(sharing.length).toBeGreaterThan(absent.length / 2);
  });

  it('send the email of the person meant where they send one, but at another domain in email-domain', () => {
    for (const category of ['exact-email', 'namesake-email'])
      for (const { expected, properties } of of(category))
        expect(meant(expected).emails).toContain(properties[0]?.v);
    for (const { expected, properties, query } of of('email-domain')) {
      const [local] = (meant(expected).emails[0] as string).split('@');
      expect(properties[0]?.v.startsWith(`${local}@`)).toBe(true);
      expect(population.some(({ emails }) => emails.includes(properties[0]?.v as string))).toBe(false);
      expect(query).toBe(fullnameOf(meant(expected)));
    }
    const emailOnly = of('email-only');
    expect(emailOnly.filter(({ properties }) => properties.length === 0)).toHaveLength(20);
    for (const { expected, properties, query } of emailOnly)
      if (properties.length === 0) expect(meant(expected).emails).toContain(query);
      else {
        expect(meant(expected).emails).toContain(properties[0]?.v);
        expect(holders.has(fold(query))).toBe(false);
      }
  });

  it('ask a namesake group by its name alone about no one in particular, each group once', () => {
    const alone = of('namesake-alone');
    for (const { expected, query, properties } of alone) {
      expect(expected).toBeNull();
      expect(properties).toEqual([]);
      expect((holders.get(fold(query)) ?? []).length).toBeGreaterThan(1);
    }
    expect(new Set(alone.map(({ query }) => fold(query))).size).toBe(alone.length);
  });

  it('ask namesakes by name and email, and a name no one else holds elsewhere', () => {
    for (const { expected } of of('namesake-email')) expect(meant(expected).namesakes).toBeDefined();
    for (const category of [
      'exact-email',
      'exact-unique',
      'case-spacing',
      'accents-dropped',
      'typo',
      'swapped',
    ])
      for (const { expected } of of(category))
        expect(holders.get(folded(meant(expected))), category).toHaveLength(1);
  });

  it('plant the variant each category names', () => {
    for (const { query, expected } of of('case-spacing')) {
      expect(query).not.toBe(fullnameOf(meant(expected)));
      expect(fold(query)).toBe(folded(meant(expected)));
      expect(/ {2}|^ | $/.test(query)).toBe(true);
    }
    for (const { query, expected } of of('accents-dropped')) {
      expect(query).not.toBe(fullnameOf(meant(expected)));
      expect(query).toBe(plainOf(fullnameOf(meant(expected))));
      expect(/^[\x20-\x7e]+$/.test(query)).toBe(true);
    }
    const plainSpecials = of('accents-dropped').map(({ expected }) =>
      fullnameOf(meant(expected)).toLowerCase(),
    );
    for (const letter of SPECIAL_LETTERS)
      expect(
        plainSpecials.some((name) => name.includes(letter)),
        letter,
      ).toBe(true);
    expect(plainOf('Søren Łukasz Weiß Işık Bækgaard Đorđević')).toBe(
      'Soren Lukasz Weiss Isik Baekgaard Dordevic',
    );
    const swapped = of('swapped').map(({ query, expected }) => ({ query, person: meant(expected) }));
    expect(swapped.filter(({ query, person }) => query === `${person.last}, ${person.first}`)).toHaveLength(
      25,
    );
    expect(swapped.filter(({ query, person }) => query === `${person.last} ${person.first}`)).toHaveLength(
      25,
    );
    for (const { query, expected } of of('nickname')) {
      const { first, last } = meant(expected);
      expect(query.endsWith(` ${last}`)).toBe(true);
      expect(query).not.toContain(first);
    }
  });
});

describe('a query judged by rank 1', () => {
  it('has no other stored person as right an answer', () => {
    for (const { query } of [...of('swapped'), ...of('typo'), ...of('initials'), ...of('nickname')])
      expect(holders.has(fold(query)), query).toBe(false);
    // A typo is one edit from the person meant, and from no other stored name.
    for (const { query, expected } of of('typo')) {
      const others = [...holders.keys()].filter((name) => withinOneEdit(fold(query), name));
      expect(others, query).toEqual([folded(meant(expected))]);
    }
    // An initial and a last name no one else has.
    for (const { query, expected } of of('initials')) {
      const { first, last } = meant(expected);
      expect(query).toMatch(new RegExp(`^${Array.from(first)[0]}\\.? `, 'u'));
      const same = population.filter(
        (person) =>
          fold(person.last) === fold(last) &&
          Array.from(fold(person.first))[0] === Array.from(fold(first))[0],
      );
      expect(same, query).toHaveLength(1);
    }
  });

  it('tells one edit from two', () => {
    expect(withinOneEdit('lovelace', 'lovelace')).toBe(true);
    expect(withinOneEdit('lovelace', 'lovelase')).toBe(true);
    expect(withinOneEdit('lovelace', 'lvelace')).toBe(true);
    expect(withinOneEdit('lovelace', 'loveplace')).toBe(true);
    expect(withinOneEdit('lovelace', 'lovleace')).toBe(true);
    expect(withinOneEdit('lovelace', 'olvelaec')).toBe(false);
    expect(withinOneEdit('lovelace', 'lovelacexx')).toBe(false);
  });
});

describe('the regression slice', () => {
  it('is 100 queries of the set, from every category in proportion', () => {
    expect(MATCH_SLICE).toHaveLength(100);
    for (const query of MATCH_SLICE) expect(queries).toContain(query);
    for (const { category, count } of MATCH_CATEGORIES) {
      const share = (count * 100) / queries.length;
      const taken = MATCH_SLICE.filter((query) => query.category === category).length;
      expect(taken, category).toBeGreaterThanOrEqual(Math.floor(share));
      expect(taken, category).toBeLessThanOrEqual(Math.ceil(share));
    }
  });
});
