import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PersonFilters } from '../../../lib/domain/listing';
import {
  checkGram,
  END_MARK,
  FIELDS_OF_FILTER,
  type FilterPlan,
  gramRarity,
  gramsOfValue,
  lookupOf,
  MAX_PROBES_PER_FILTER,
  NO_TERMS,
  type Posting,
  type Probe,
  planQuery,
  postingsOf,
  probesToSample,
  SEARCH_FIELDS,
  type SearchField,
  type SearchTerms,
  searchTerms,
  unionOfTerms,
  valuesMatch,
  wordEndPlan,
} from '../../../lib/domain/search';
import { fold } from '../../../lib/domain/text';
import { createdPerson } from '../../support/fixtures';
import { fuzzRuns } from '../../support/fuzz-runs';

/** Runs of the properties: pure code, so thousands take a second or two (`FUZZ_RUNS` overrides). */
const RUNS = fuzzRuns(5_000);

describe('the grams of a value', () => {
  it('are every run of three code points of the value followed by the end mark', () => {
    expect(gramsOfValue('maria')).toEqual(['mar', 'ari', 'ria', `ia${END_MARK}`]);
  });

  it.each([
    ['a value of two code points has one gram, ending with the end mark', 'ab', [`ab${END_MARK}`]],
    ['a value of one code point has none', 'a', []],
    ['an empty value has none', '', []],
    ['a repeated run counts once', 'aaaa', ['aaa', `aa${END_MARK}`]],
  ])('%s', (_rule, value, grams) => {
    expect(gramsOfValue(value)).toEqual(grams);
  });

  it('counts an astral character (an emoji) as one code point, never splitting its surrogates', () => {
    expect(gramsOfValue('\u{1f600}ab')).toEqual(['\u{1f600}ab', `ab${END_MARK}`]);
    expect(gramsOfValue('a\u{1f600}')).toEqual([`a\u{1f600}${END_MARK}`]);
  });
});

/** The values of `field` the posting of `gram` carries, or undefined when there is none. */
const holdersOf = (postings: Posting[], field: SearchField, gram: string) =>
  postings.find((posting) => posting.gram === gram)?.values[field];

describe('the postings of a person', () => {
  it('are one per distinct gram, never a gram across two values', () => {
    expect(postingsOf({ ...NO_TERMS, first_name: ['ab', 'cd'] })).toEqual([
      { gram: `ab${END_MARK}`, values: { first_name: ['ab'] } },
      { gram: `cd${END_MARK}`, values: { first_name: ['cd'] } },
    ]);
  });

  it('are one for a gram of several fields, with the values of each field that hold it', () => {
    expect(postingsOf({ ...NO_TERMS, first_name: ['ann'], rest: ['ann lee'] })).toContainEqual({
      gram: 'ann',
      values: { first_name: ['ann'], rest: ['ann lee'] },
    });
  });

  it('carry every value of a field that holds the gram, and only those', () => {
    const postings = postingsOf({ ...NO_TERMS, email: ['ann@x.example', 'bob@x.example'], rest: ['ann'] });
    expect(holdersOf(postings, 'email', 'x.e')).toEqual(['ann@x.example', 'bob@x.example']);
    expect(holdersOf(postings, 'email', 'ann')).toEqual(['ann@x.example']);
    expect(holdersOf(postings, 'rest', 'ann')).toEqual(['ann']);
    expect(holdersOf(postings, 'first_name', 'ann')).toBeUndefined();
  });

  it('after a write that did not finish, come from the union of both terms', () => {
    const before: SearchTerms = { ...NO_TERMS, first_name: ['ann'], email: ['a@x.example'] };
    const after: SearchTerms = { ...NO_TERMS, first_name: ['ann', 'anna'], email: ['b@x.example'] };
    expect(unionOfTerms(before, after)).toEqual({
      ...NO_TERMS,
      first_name: ['ann', 'anna'],
      email: ['a@x.example', 'b@x.example'],
    });
  });
});

describe('a name of short words, found by the values its words end (issue #53)', () => {
  it('has one filter per word of 2 code points, each probed by its gram with the end mark', () => {
    const plan = wordEndPlan(['yu', 'na', 'x', 'yu', 'wei']);
    expect(plan.filters.map(({ fragment, lookup }) => [fragment, lookup])).toEqual([
      ['yu', { kind: 'grams', grams: [`yu${END_MARK}`] }],
      ['na', { kind: 'grams', grams: [`na${END_MARK}`] }],
    ]);
    expect(plan.probes.map((probe) => (probe.kind === 'gram' ? probe.gram : null))).toEqual([
      `yu${END_MARK}`,
      `na${END_MARK}`,
    ]);
    expect(plan.probes.every((probe, index) => probe.filter === plan.filters[index])).toBe(true);
    expect(wordEndPlan(['x', 'wei']).probes).toEqual([]);
  });

  it('finds a person whose first or last name is the word, and only through values ending in it', () => {
    const [ma] = wordEndPlan(['ma']).filters as [FilterPlan];
    const person = postingsOf({
      ...NO_TERMS,
      first_name: ['xiaoming'],
      last_name: ['ma'],
      rest: ['xiaoming ma'],
    });
    const posting = person.find(({ gram }) => gram === `ma${END_MARK}`);
    expect(posting?.values).toEqual({ last_name: ['ma'], rest: ['xiaoming ma'] });
    expect(valuesMatch(ma, posting?.values ?? {})).toBe(true);
    // "mark" holds "ma" but ends in no "ma": it has no posting of the end gram at all.
    const mark = postingsOf({ ...NO_TERMS, first_name: ['mark'], rest: ['mark li'] });
    expect(mark.map(({ gram }) => gram)).not.toContain(`ma${END_MARK}`);
  });
});

describe('the terms of a person', () => {
  it('are the folded values of each searchable field (API.md 4), distinct per field', () => {
    const person = createdPerson({
      Names: {
        '@set': [
          { first_name: 'José', last_name: 'Núñez', name_prefix_fk: 21 },
          { freeform_name: 'Pepe el Grillo', primary: 0 },
          { first_name: 'JOSE', last_name: 'Nunez', primary: 3 },
        ],
      },
      Emails: { '@set': [{ email: 'Jose@LaNacion.example' }, { email: 'pepe@work.example' }] },
    });

    expect(searchTerms(person)).toEqual({
      first_name: ['jose'],
      last_name: ['nunez'],
      email: ['jose@lanacion.example', 'pepe@work.example'],
      rest: ['dr. jose nunez', 'pepe el grillo'],
    });
  });

  it('are never cut: the end of a long email and a name that folding lengthened are searchable', () => {
    const local = 'a'.repeat(64);
    const domain = `${'sub.'.repeat(40)}example.org`;
    const long = 'Straße'.repeat(30); // 180 characters, 210 folded ("ss")
    const person = createdPerson({
      Names: { '@set': [{ first_name: long, last_name: 'Ng' }] },
      Emails: { '@set': [{ email: `${local}@${domain}` }] },
    });
    const postings = postingsOf(searchTerms(person));

    expect(fold(long).length).toBeGreaterThan(200);
    for (const [field, fragment] of [
      ['email', 'le.org'],
      ['first_name', 'strasse'],
      ['first_name', fold(long).slice(-5)],
    ] as const) {
      const lookup = lookupOf(fragment);
      expect(lookup.kind).toBe('grams');
      if (lookup.kind === 'grams')
        for (const gram of lookup.grams)
          expect(holdersOf(postings, field, gram)?.some((value) => value.includes(fragment))).toBe(true);
    }
  });
});

describe('looking a fragment up', () => {
  it.each([
    [
      '3 or more code points: its own grams, without end marks',
      'smith',
      { kind: 'grams', grams: ['smi', 'mit', 'ith'] },
    ],
    ['a repeated gram once', 'aaaa', { kind: 'grams', grams: ['aaa'] }],
    ['2 code points: the grams that start with it', 'jo', { kind: 'prefix', prefix: 'jo' }],
    ['2 code points, one astral', 'a\u{1f600}', { kind: 'prefix', prefix: 'a\u{1f600}' }],
    ['1 code point: no gram', 'j', { kind: 'none' }],
  ])('%s', (_rule, fragment, lookup) => {
    expect(lookupOf(fragment)).toEqual(lookup);
  });

  it('matches each filter against the fields API.md 4 names', () => {
    expect(FIELDS_OF_FILTER).toEqual({
      first_name: ['first_name'],
      last_name: ['last_name'],
      email: ['email'],
      search: ['rest', 'first_name', 'last_name', 'email'],
    });
  });
});

describe('the index never misses (properties)', () => {
  /** Folded values as persons hold them: any text, folded; accents, cases, astral characters. */
  const folded = fc
    .string({ unit: fc.constantFrom('a', 'b', 'ß', 'É', 'é', 'ﬁ', ' ', '.', '@', '\u{1f600}', 'Z', 'n') })
    .map(fold)
    .filter((value) => value.length > 0);
  const withFragment = folded.chain((value) => {
    const codePoints = Array.from(value);
    return fc
      .tuple(fc.nat(codePoints.length - 1), fc.integer({ min: 1, max: codePoints.length }))
      .map(([start, length]) => ({
        value,
        fragment: codePoints.slice(start, Math.min(codePoints.length, start + length)).join(''),
      }));
  });

  it('whenever a value holds a fragment of 3 or more code points, its grams include every gram of the fragment', () => {
    fc.assert(
      fc.property(withFragment, ({ value, fragment }) => {
        const lookup = lookupOf(fragment);
        if (lookup.kind !== 'grams') return;
        const grams = new Set(gramsOfValue(value));
        expect(lookup.grams.filter((gram) => !grams.has(gram))).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  it('whenever a value holds a fragment of 2 code points, one of its grams starts with it', () => {
    fc.assert(
      fc.property(withFragment, ({ value, fragment }) => {
        const lookup = lookupOf(fragment);
        if (lookup.kind !== 'prefix') return;
        expect(gramsOfValue(value).some((gram) => gram.startsWith(lookup.prefix))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it("a person is found through its field's postings by any fragment of the field's values, with the value to check", () => {
    fc.assert(
      fc.property(withFragment, withFragment, ({ value, fragment }, other) => {
        const postings = postingsOf({ ...NO_TERMS, first_name: [value, other.value], email: [other.value] });
        const holding = (posting: Posting) => posting.values.first_name?.includes(value) === true;
        const lookup = lookupOf(fragment);
        if (lookup.kind === 'grams')
          for (const gram of lookup.grams)
            expect(postings.some((posting) => posting.gram === gram && holding(posting))).toBe(true);
        if (lookup.kind === 'prefix')
          expect(postings.some((posting) => posting.gram.startsWith(lookup.prefix) && holding(posting))).toBe(
            true,
          );
      }),
      { numRuns: RUNS },
    );
  });
});

describe('the plan of a filtered list (issue #26)', () => {
  it('has a probe for every gram of each filter of 3 or more code points, one for a 2-code-point filter, none for 1', () => {
    const plan = planQuery({ first_name: 'maria', last_name: 'x', email: 'jo', search: undefined });
    expect(plan.filters.map(({ filter, fragment, fields }) => ({ filter, fragment, fields }))).toEqual([
      { filter: 'first_name', fragment: 'maria', fields: ['first_name'] },
      { filter: 'last_name', fragment: 'x', fields: ['last_name'] },
      { filter: 'email', fragment: 'jo', fields: ['email'] },
    ]);
    expect(
      plan.probes.map((probe) => [probe.filter.filter, probe.kind === 'gram' ? probe.gram : probe.prefix]),
    ).toEqual([
      ['first_name', 'mar'],
      ['first_name', 'ari'],
      ['first_name', 'ria'],
      ['email', 'jo'],
    ]);
    expect(plan.filters.map(checkGram)).toEqual(['mar', null, null]);
  });

  it('samples every probe of every filter, 8 grams spread over a long fragment', () => {
    const text = (probe: Probe) => (probe.kind === 'gram' ? probe.gram : probe.prefix);
    expect(
      probesToSample(planQuery({ last_name: 'lowski', email: 'jo', first_name: 'maria' })).map(text),
    ).toEqual(['low', 'ows', 'wsk', 'ski', 'jo', 'mar', 'ari', 'ria']);
    // 12 grams: the first, the last and 6 between.
    expect(probesToSample(planQuery({ search: 'abcdefghijklmn' })).map(text)).toEqual([
      'abc',
      'cde',
      'def',
      'fgh',
      'ghi',
      'ijk',
      'jkl',
      'lmn',
    ]);
    expect(probesToSample(planQuery({ search: 'abcdefghij' }))).toHaveLength(MAX_PROBES_PER_FILTER);
    expect(gramRarity('qzx')).toBeGreaterThan(gramRarity('the'));
    // Digits and other scripts rank as rare, what every email holds as common.
    expect(gramRarity('123')).toBeGreaterThan(gramRarity('.co'));
    expect(gramRarity('яна')).toBeGreaterThan(gramRarity('ana'));
  });

  it('has no probe when every fragment is one code point: the list reads its index', () => {
    expect(planQuery({ search: 'a', email: '@' }).probes).toEqual([]);
    expect(planQuery({}).filters).toEqual([]);
  });

  it('matches search against every field, the others against their own', () => {
    const [search, first] = planQuery({ search: 'lee', first_name: 'lee' }).filters as [
      FilterPlan,
      FilterPlan,
    ];
    expect(valuesMatch(search, { email: ['ann.lee@x.example'] })).toBe(true);
    expect(valuesMatch(first, { email: ['ann.lee@x.example'] })).toBe(false);
    expect(valuesMatch(first, { first_name: ['kathleen'] })).toBe(true);
    expect(valuesMatch(first, {})).toBe(false);
  });

  describe('properties', () => {
    const value = fc
      .string({
        unit: fc.constantFrom('a', 'b', 'ß', 'É', ' ', '.', '@', '\u{1f600}'),
        minLength: 1,
        maxLength: 12,
      })
      .map(fold)
      .filter(Boolean);
    const terms = fc.record({
      first_name: fc.array(value, { maxLength: 2 }),
      last_name: fc.array(value, { maxLength: 2 }),
      email: fc.array(value, { maxLength: 2 }),
      rest: fc.array(value, { maxLength: 2 }),
    });
    const filterName = fc.constantFrom<keyof PersonFilters>('first_name', 'last_name', 'email', 'search');
    /** A fragment of one of the person's values most of the time, else any. */
    const cases = terms.chain((person) => {
      const held = SEARCH_FIELDS.flatMap((field) => person[field]);
      const fragment = fc.oneof(
        value,
        ...(held.length > 0
          ? [
              fc
                .tuple(fc.constantFrom(...held), fc.nat(), fc.nat())
                .map(([text, a, b]) =>
                  Array.from(text)
                    .slice(Math.min(a, b) % text.length, Math.max(a, b) + 1)
                    .join(''),
                )
                .filter(Boolean),
            ]
          : []),
      );
      return fc.record({ person: fc.constant(person), filter: filterName, fragment });
    });
    const bruteForce = (person: SearchTerms, plan: FilterPlan) =>
      plan.fields.some((field) => person[field].some((held) => held.includes(plan.fragment)));

    it('the posting of any gram of a fragment decides the filter for that person (what checks a second filter)', () => {
      fc.assert(
        fc.property(cases, ({ person, filter, fragment }) => {
          const [plan] = planQuery({ [filter]: fragment }).filters as [FilterPlan];
          if (plan.lookup.kind !== 'grams') return;
          const postings = postingsOf(person);
          for (const gram of plan.lookup.grams)
            expect(valuesMatch(plan, postings.find((posting) => posting.gram === gram)?.values ?? {})).toBe(
              bruteForce(person, plan),
            );
        }),
        { numRuns: RUNS },
      );
    });

    it('every probe finds every matching person, with the values that show it matches', () => {
      fc.assert(
        fc.property(cases, ({ person, filter, fragment }) => {
          const plan = planQuery({ [filter]: fragment });
          const [only] = plan.filters as [FilterPlan];
          if (!bruteForce(person, only)) return;
          const postings = postingsOf(person);
          for (const probe of plan.probes) {
            const read = postings.filter((posting) =>
              probe.kind === 'gram' ? posting.gram === probe.gram : posting.gram.startsWith(probe.prefix),
            );
            expect(read.some((posting) => valuesMatch(probe.filter, posting.values))).toBe(true);
          }
        }),
        { numRuns: RUNS },
      );
    });
  });
});
