/**
 * What the reads of the person list share (person-list.ts reads the `byName` index, posting-search.ts
 * the search postings, local-reference-search.ts the reference items): the result, what it cost, the
 * page size of a Query, the order of sort keys and the window of the matches in that order.
 */
import type { PersonSummary, Window } from '../../domain/listing';
import { fold } from '../../domain/text';
import { listSortKey } from '../table/keys';

export interface ListCost {
  calls: number;
  itemsRead: number;
  capacityUnits: number;
}

/** A cost to add calls to: `record` is what each call's answer passes. */
export const costRecorder = () => {
  const cost: ListCost = { calls: 0, itemsRead: 0, capacityUnits: 0 };
  const record = (items: number, capacityUnits: number) => {
    cost.calls += 1;
    cost.itemsRead += items;
    cost.capacityUnits += capacityUnits;
  };
  return { cost, record };
};

export interface PersonListResult {
  count: number;
  persons: PersonSummary[];
  cost: ListCost;
  /** What the read went through, for the cost log line (posting-search.ts: the probe read whole). */
  detail?: Record<string, string | number>;
}

/**
 * Items one Query may evaluate: a page of index entries about DynamoDB's 1 MB per call. Filtered
 * reads pass it too: in AWS the 1 MB cap binds first either way, but DynamoDB Local without a `Limit`
 * reads every remaining entry for each page, so a filtered list over 100 000 persons took over a
 * minute there (O(n²)) instead of about ten seconds.
 */
export const MAX_QUERY_LIMIT = 5_000;

/** A UTF-16 unit moved so that units order as the code points they belong to (surrogates last). */
const inCodePointOrder = (unit: number) =>
  unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit;

/**
 * DynamoDB orders string sort keys by their UTF-8 bytes, which is code point order; `<` compares
 * UTF-16 units, which puts a character above U+FFFF (a surrogate pair) before U+E000–U+FFFF.
 */
export const compareSortKeys = (a: string, b: string): number => {
  let at = 0;
  while (at < a.length && at < b.length && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  if (at === a.length || at === b.length) return a.length - b.length;
  return inCodePointOrder(a.charCodeAt(at)) - inCodePointOrder(b.charCodeAt(at));
};

/** A unit at or above U+D800: only between two keys that both hold one may `<` disagree with DynamoDB. */
const HIGH_UNIT = /[\uD800-\uFFFF]/;

/**
 * Entries in the order of their sort keys as DynamoDB orders them. The native comparison of UTF-16
 * units is about four times faster than `compareSortKeys` and agrees with it unless both keys hold a
 * unit at or above U+D800 (their first difference is then below it on one side), so only such pairs
 * take the slow path: a filtered list sorts every match (20 000 for a common first name at 100 000
 * persons).
 */
export const sortBySortKey = <T>(
  entries: readonly T[],
  keyOf: (entry: T) => string,
  descending = false,
): T[] => {
  const keyed = entries.map((entry) => {
    const key = keyOf(entry);
    return { entry, key, high: HIGH_UNIT.test(key) };
  });
  const sign = descending ? -1 : 1;
  keyed.sort(
    (a, b) =>
      sign * (a.high && b.high ? compareSortKeys(a.key, b.key) : a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  return keyed.map(({ entry }) => entry);
};

/**
 * The count and the window of a filtered list's matches, in the list's order (folded fullname, then
 * id), for reads that find their matches in another order (postings and reference items: by id).
 */
export const sortedWindow = (
  matches: readonly PersonSummary[],
  { descending, window }: { descending: boolean; window: Window },
): Pick<PersonListResult, 'count' | 'persons'> => ({
  count: matches.length,
  persons: sortBySortKey(matches, ({ id, fullname }) => listSortKey(fold(fullname), id), descending)
    .slice(window.offset, window.offset + window.limit)
    .map(({ id, fullname }) => ({ id, fullname })),
});
