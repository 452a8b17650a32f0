/** What a list's reads of postings cost, and the cheaper way to apply a second filter (issue #60). */
import { describe, expect, it } from 'vitest';
import {
  cheaperStep,
  checkUnits,
  POSTING_BYTES_ESTIMATE,
  probeReadUnits,
  shardReadUnits,
} from '../../../../../lib/db/person/read/list-plan';
import { MAX_QUERY_LIMIT } from '../../../../../lib/db/person/read/list-reads';
import { PERSON_LIST_SHARDS } from '../../../../../lib/db/table/keys';

describe('the pricing of a filtered list', () => {
  it('charges a Query on the bytes it read, half a unit a started 4 KB, a page at most 5 000', () => {
    expect(shardReadUnits(0, 120)).toEqual({ pages: 1, rcu: 0.5 });
    expect(shardReadUnits(34, 120)).toEqual({ pages: 1, rcu: 0.5 });
    expect(shardReadUnits(35, 120)).toEqual({ pages: 1, rcu: 1 });
    expect(shardReadUnits(MAX_QUERY_LIMIT + 1, 120).pages).toBe(2);
  });

  it('reads a probe a Query a shard, its postings split evenly', () => {
    expect(probeReadUnits(0)).toBe(PERSON_LIST_SHARDS * 0.5);
    // "ari" at 100 000 persons: 20 000 postings, 2 500 a shard of 120 bytes, 37 units a shard.
    expect(probeReadUnits(20_000)).toBe(PERSON_LIST_SHARDS * 0.5 * Math.ceil((2_500 * 120) / 4096));
    expect(POSTING_BYTES_ESTIMATE).toBe(120);
  });

  it('checks a candidate for half a unit, whatever its item under 4 KB', () => {
    expect(checkUnits(7_735)).toBe(3_867.5);
    expect(checkUnits(10, 2_000)).toBe(5);
  });

  it('intersects where reading the other probe costs less than checking, and checks otherwise', () => {
    // first_name=mari&last_name=owski at 100 000: the 7 735 candidates of "ows" against "ari" whole.
    expect(cheaperStep(7_735, 20_000)).toBe('intersect');
    expect(cheaperStep(5, 300)).toBe('check');
    // A tie checks (fewer items read); a fragment of one code point has no probe to read.
    expect(cheaperStep(8, 0)).toBe('check');
    expect(cheaperStep(9, 0)).toBe('intersect');
    expect(cheaperStep(1_000_000, undefined)).toBe('check');
  });
});
