import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSortKeys } from '../../../lib/db/list-reads';

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
