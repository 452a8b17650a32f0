import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareSortKeys,
  sortBySortKey,
  sortedWindow,
  windowBySortKey,
} from '../../../../../lib/db/person/read/list-reads';
import { listSortKey } from '../../../../../lib/db/table/keys';
import { fold } from '../../../../../lib/domain/text';

const sign = (value: number) => Math.sign(value);

describe('compareSortKeys', () => {
  it('orders as DynamoDB orders string sort keys: by UTF-8 bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(sign(compareSortKeys(a, b))).toBe(sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
      { numRuns: 2_000 },
    );
  });

  it('puts a character above U+FFFF after U+E000–U+FFFF, where `<` on UTF-16 units puts it before', () => {
    const astral = 'a\u{1F600}';
    const privateUse = 'a\uE000';
    expect(astral < privateUse).toBe(true);
    expect(compareSortKeys(astral, privateUse)).toBeGreaterThan(0);
    expect(compareSortKeys('ann', 'ann b')).toBeLessThan(0);
    expect(compareSortKeys('same', 'same')).toBe(0);
  });
});

/** Keys where UTF-16 order and UTF-8 order part: surrogate pairs beside U+E000–U+FFFF, in both keys. */
const key = fc
  .array(fc.constantFrom('a', 'b', 'é', '\uD7FF', '\uE000', '\uFFFD', '\u{1F600}', '\u{10000}', '\u0001'), {
    maxLength: 4,
  })
  .map((units) => units.join(''));

describe('sortBySortKey', () => {
  it('orders entries as DynamoDB orders their sort keys, ascending and descending', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 30 }), fc.boolean(), (keys, descending) => {
        const byBytes = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
        const sorted = sortBySortKey(
          keys.map((sortKey) => ({ sortKey })),
          (entry) => entry.sortKey,
          descending,
        ).map((entry) => entry.sortKey);
        expect(sorted).toEqual(descending ? byBytes.reverse() : byBytes);
      }),
      { numRuns: 2_000 },
    );
  });
});

/** A window of up to 25 entries at an offset up to 70: within, across and beyond the entries. */
const window = fc.record({ offset: fc.nat({ max: 70 }), limit: fc.nat({ max: 25 }) });

describe('windowBySortKey', () => {
  it('is the window of the whole sort: the same entries in the same order, ties in input order', () => {
    fc.assert(
      fc.property(
        // Few distinct keys among up to 120 entries: many ties, and windows far shorter than the entries
        // (the heap) as well as longer (the sort).
        fc.array(key, { maxLength: 120 }),
        fc.boolean(),
        window,
        (keys, descending, { offset, limit }) => {
          const entries = keys.map((sortKey, n) => ({ sortKey, n }));
          const keyOf = (entry: { sortKey: string }) => entry.sortKey;
          expect(windowBySortKey(entries, keyOf, descending, { offset, limit })).toEqual(
            sortBySortKey(entries, keyOf, descending).slice(offset, offset + limit),
          );
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('takes the heap for a window well short of the entries, and finds nothing past them', () => {
    const entries = Array.from({ length: 1_000 }, (_, n) => ({ sortKey: String((n * 7_919) % 1_000), n }));
    const keyOf = (entry: { sortKey: string }) => entry.sortKey;
    for (const descending of [false, true])
      for (const range of [
        { offset: 0, limit: 50 },
        { offset: 120, limit: 10 },
        { offset: 990, limit: 50 },
        { offset: 1_000, limit: 50 },
        { offset: 5_000, limit: 50 },
        { offset: 0, limit: 0 },
      ])
        expect(windowBySortKey(entries, keyOf, descending, range)).toEqual(
          sortBySortKey(entries, keyOf, descending).slice(range.offset, range.offset + range.limit),
        );
  });
});

describe('sortedWindow', () => {
  /** Fullnames that fold alike, differ only past a surrogate pair or U+E000–U+FFFF, or are empty. */
  const fullname = fc
    .array(
      fc.constantFrom(
        'Maria',
        'maría',
        ' MARIA ',
        'Ann',
        'Ann B',
        '\u{1F600}',
        '\uE000',
        '\uFFFD',
        'ß',
        'Zoë',
      ),
      {
        maxLength: 3,
      },
    )
    .map((parts) => parts.join(' '));

  it('counts every match and takes the window of all of them sorted by folded fullname, then id', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 10_000_000 }), fullname }), {
          selector: (match) => match.id,
          maxLength: 150,
        }),
        fc.boolean(),
        window,
        (matches, descending, range) => {
          const expected = sortBySortKey(
            matches,
            ({ id, fullname: name }) => listSortKey(fold(name), id),
            descending,
          ).slice(range.offset, range.offset + range.limit);
          expect(sortedWindow(matches, { descending, window: range })).toEqual({
            count: matches.length,
            persons: expected,
          });
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
