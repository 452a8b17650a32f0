import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSortKeys, sortBySortKey } from '../../../../lib/db/person/list-reads';

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

describe('sortBySortKey', () => {
  /** Keys where UTF-16 order and UTF-8 order part: surrogate pairs beside U+E000–U+FFFF, in both keys. */
  const key = fc
    .array(fc.constantFrom('a', 'b', 'é', '\uD7FF', '\uE000', '\uFFFD', '\u{1F600}', '\u{10000}', '\u0001'), {
      maxLength: 4,
    })
    .map((units) => units.join(''));

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
