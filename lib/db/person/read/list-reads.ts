/**
 * What the reads of the person list share (person-list.ts reads the `byName` index, posting-search.ts
 * the search postings, local-reference-search.ts the reference items): the result, what it cost, the
 * page size of a Query, the order of sort keys and the window of the matches in that order.
 */
import type { PersonSummary, Window } from '../../../domain/listing';
import type { ListCost, PersonListResult } from '../../../domain/ports/lists';
import { fold } from '../../../domain/text';
import { listSortName } from '../../table/keys';

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

/** What a list's reads report each call's cost to. */
export type RecordCost = ReturnType<typeof costRecorder>['record'];

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
 * An entry with its sort key, whether the key holds a unit at or above U+D800, the number that orders
 * equal keys (0 when the key says it all) and its input place.
 */
interface Keyed<T> {
  entry: T;
  key: string;
  high: boolean;
  tie: number;
  at: number;
}

const keyedBy = <T>(entries: readonly T[], keyOf: (entry: T) => string): Keyed<T>[] =>
  entries.map((entry, at) => {
    const key = keyOf(entry);
    return { entry, key, high: HIGH_UNIT.test(key), tie: 0, at };
  });

/**
 * The order of DynamoDB's sort keys. The native comparison of UTF-16 units is about four times faster
 * than `compareSortKeys` and agrees with it unless both keys hold a unit at or above U+D800 (their
 * first difference is then below it on one side), so only such pairs take the slow path.
 */
const byKey = <T>(a: Keyed<T>, b: Keyed<T>) =>
  (a.high && b.high ? compareSortKeys(a.key, b.key) : a.key < b.key ? -1 : a.key > b.key ? 1 : 0) ||
  a.tie - b.tie;

/**
 * Entries in the order of their sort keys as DynamoDB orders them; equal keys keep their input order
 * (in either direction: `Array.prototype.sort` is stable).
 */
export const sortBySortKey = <T>(
  entries: readonly T[],
  keyOf: (entry: T) => string,
  descending = false,
): T[] => {
  const sign = descending ? -1 : 1;
  return keyedBy(entries, keyOf)
    .sort((a, b) => sign * byKey(a, b))
    .map(({ entry }) => entry);
};

/** Adds `keyed` to the max-heap `heap` (ordered by `before`), moving it up to its place. */
const siftUp = <T>(heap: Keyed<T>[], keyed: Keyed<T>, before: (a: Keyed<T>, b: Keyed<T>) => number) => {
  let place = heap.length;
  heap.push(keyed);
  while (place > 0) {
    const parent = (place - 1) >> 1;
    if (before(heap[parent] as Keyed<T>, keyed) >= 0) break;
    heap[place] = heap[parent] as Keyed<T>;
    place = parent;
  }
  heap[place] = keyed;
};

/** Moves the item at `from` of the max-heap `heap` (ordered by `before`) down to its place. */
const siftDown = <T>(heap: Keyed<T>[], from: number, before: (a: Keyed<T>, b: Keyed<T>) => number) => {
  const item = heap[from] as Keyed<T>;
  let at = from;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const later =
      right < heap.length && before(heap[right] as Keyed<T>, heap[left] as Keyed<T>) > 0 ? right : left;
    if (before(heap[later] as Keyed<T>, item) <= 0) break;
    heap[at] = heap[later] as Keyed<T>;
    at = later;
  }
  heap[at] = item;
};

/**
 * `sortBySortKey(entries, keyOf, descending).slice(offset, offset + limit)`, without ordering every
 * entry when the window ends well before them: a filtered list orders all its matches (20 000 for a
 * common first name at 100 000 persons) for a page of 50. The first `offset + limit` entries in that
 * order are kept in a heap whose root is the last of them (one comparison for each entry that does not
 * come before it, most of them), then ordered; equal keys are told apart by their input place, as the
 * stable sort keeps them, so the window is the same entries in the same order.
 *
 * `tieOf` orders entries whose keys are equal, before their input place: a key and a number, for a
 * list whose sort keys end in a number (`listSortKey`) without building each of those strings.
 */
export const windowBySortKey = <T>(
  entries: readonly T[],
  keyOf: (entry: T) => string,
  descending: boolean,
  { offset, limit }: Window,
  tieOf?: (entry: T) => number,
): T[] => {
  const end = offset + limit;
  if (offset >= entries.length || limit <= 0) return [];
  const sign = descending ? -1 : 1;
  /** Negative when `a` comes before `b` in the list. */
  const before = (a: Keyed<T>, b: Keyed<T>) => sign * byKey(a, b) || a.at - b.at;
  const keyedOf = (entry: T, at: number): Keyed<T> => {
    const key = keyOf(entry);
    return { entry, key, high: HIGH_UNIT.test(key), tie: tieOf ? tieOf(entry) : 0, at };
  };
  if (end * SELECT_BELOW > entries.length)
    return entries
      .map(keyedOf)
      .sort(before)
      .slice(offset, end)
      .map(({ entry }) => entry);
  // A max-heap of the first `end` entries seen so far: the root is the last of them.
  const heap: Keyed<T>[] = [];
  for (let at = 0; at < entries.length; at++) {
    const keyed = keyedOf(entries[at] as T, at);
    if (heap.length < end) {
      siftUp(heap, keyed, before);
    } else if (before(keyed, heap[0] as Keyed<T>) < 0) {
      heap[0] = keyed;
      siftDown(heap, 0, before);
    }
  }
  return heap
    .sort(before)
    .slice(offset)
    .map(({ entry }) => entry);
};

/**
 * A window ending before 1/`SELECT_BELOW` of the entries is selected with the heap, a longer one by
 * sorting them all (the heap's comparisons grow with the window).
 */
const SELECT_BELOW = 4;

/**
 * A match's place in the list is `listSortKey`: its folded fullname as `listSortName` makes it, `\u0001`,
 * then its id in 16 digits. Ordering by that name, then by the id as a number, is the same order: the
 * name holds no control character, so no unit as low as `\u0001` (a name that is the start of another
 * comes first either way), and 16 digits order ids below 10^16 as numbers. It spares building a key
 * string for every match: padding and joining 20 000 of them took about 17 ms.
 */
export const sortNameOf = ({ fullname }: PersonSummary) => listSortName(fold(fullname));
const idOf = ({ id }: PersonSummary) => id;

/**
 * The count and the window of a filtered list's matches, in the list's order (folded fullname, then
 * id), for reads that find their matches in another order (postings and reference items: by id).
 */
export const sortedWindow = (
  matches: readonly PersonSummary[],
  { descending, window }: { descending: boolean; window: Window },
): Pick<PersonListResult, 'count' | 'persons'> => ({
  count: matches.length,
  persons: windowBySortKey(matches, sortNameOf, descending, window, idOf).map(({ id, fullname }) => ({
    id,
    fullname,
  })),
});
