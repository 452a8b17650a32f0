/**
 * Where reconciliation's candidates come from (issue #37, API.md 12): the email claims and the search
 * postings the filtered list reads (posting-search.ts), never the list's index or every person, so a
 * query costs what its answer holds, not what the table holds (the cost is in keys.ts). Scoring and
 * certainty are lib/domain/reconcile.ts's; this only finds and reads.
 *
 * One query, in rounds of calls sent at once:
 * 1. a GetItem of the email claim of each `email` sent (the one person holding it), and the postings
 *    of each form of the whole folded name (`searchPostings` with it as a `search` fragment: every
 *    person one of whose names or emails holds it; "Lovelace, Ada" is also looked up as "ada lovelace");
 * 2. only when round 1 found no one whose fullname is one of those forms: the postings of each of the
 *    name's longest words (at most 3 of 3 or more code points, at once), so that "Jon Smith" still
 *    finds John Smith, "A. Lovelace" every Lovelace and "Bill Gates" every Gates;
 * 3. only for a word of round 2 that found no one: the postings of its two halves (3 code points or
 *    more), one of which a typo leaves whole ("lovelase": `love` finds Lovelace);
 *    a name with no word of 3 code points ("Yu Na", "X. Ma", "T Lý"; issue #53) instead reads, in round
 *    2, the persons each of whose words of 2 code points ends one of their values (`wordEndPlan`: the
 *    rarest word's end gram, the others checked on its candidates);
 * 4. one BatchGetItem of the persons kept (the best `MAX_READ` by their fullname's score, every
 *    namesake of the exact name among them), to score them on all their names and emails.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Person } from '../../../domain/person';
import type { CandidateRead, ListCost, ReconcileReader } from '../../../domain/ports/lists';
import {
  candidateFragments,
  factsOf,
  halvesOf,
  type MatchRequest,
  MIN_FRAGMENT,
  nameScore,
  queryNameTest,
  RECONCILE_LIMITS,
} from '../../../domain/reconcile';
import { planQuery, probesToSample, type QueryPlan, wordEndPlan } from '../../../domain/search';
import { fold } from '../../../domain/text';
import { batchGet, keyString } from '../../table/batch-get';
import type { Storage } from '../../table/client';
import { claimKey, personKey } from '../../table/keys';
import { storageCall } from '../../table/storage-errors';
import { fromPersonItem, isLivePersonItem } from '../person-items';
import { costRecorder, type RecordCost } from './list-reads';
import { readPostingCounts } from './posting-counts';
import { probeText, searchPostings } from './posting-search';

/** Persons read whole for one query at most: the limit's largest, and the namesakes with it. */
export const MAX_READ = 4 * RECONCILE_LIMITS.maxLimit;

/** Every match of a fragment (the reader counts them all anyway; the window only cuts its sort). */
const ALL = { offset: 0, limit: Number.MAX_SAFE_INTEGER };

/**
 * The persons of these ids, eventually consistent (a reconciliation is a read that may be a moment
 * behind a write, as lists are).
 * A person merged into another (API.md 13) is dropped here (its item says so), so that it is never a
 * candidate, a suggestion, a preview or an extension row, even while its postings are being deleted.
 */
export const readPersons = async (
  storage: Storage,
  ids: readonly number[],
  onCall?: (items: number, units: number) => void,
): Promise<Map<number, Person>> => {
  if (ids.length === 0) return new Map();
  const found = await batchGet(storage, ids.map(personKey), {
    consistent: false,
    ...(onCall ? { onCall } : {}),
  });
  const persons = new Map<number, Person>();
  for (const id of ids) {
    const item = found.get(keyString(personKey(id)));
    // A person merged since its postings were read (API.md 13) is no candidate.
    if (item && isLivePersonItem(item)) persons.set(id, fromPersonItem(item));
  }
  return persons;
};

/** The stubs of every person a plan's postings hold; what the read cost joins `total`. */
const searchPlan = async (storage: Storage, plan: QueryPlan, total: ListCost) => {
  if (plan.probes.length === 0) return [];
  const { persons, cost } = await searchPostings(storage, plan, { descending: false, window: ALL });
  total.calls += cost.calls;
  total.itemsRead += cost.itemsRead;
  total.capacityUnits += cost.capacityUnits;
  return persons;
};

/** The stubs of every person a fragment's postings hold. */
const search = (storage: Storage, fragment: string, total: ListCost) =>
  searchPlan(storage, planQuery({ search: fragment }), total);

/** The person holding an email's claim, if any. */
const holderOf = async ({ client, tableName }: Storage, email: string, record: RecordCost) => {
  const { Item, ConsumedCapacity } = await storageCall(() =>
    client.send(
      new GetCommand({
        TableName: tableName,
        Key: claimKey({ field: 'email', value: email }),
        ReturnConsumedCapacity: 'TOTAL',
      }),
    ),
  );
  record(Item ? 1 : 0, ConsumedCapacity?.CapacityUnits ?? 0);
  return typeof Item?.personId === 'number' ? Item.personId : undefined;
};

/**
 * In a check of a stored person (the duplicates detector), a word (or half of one) held by more
 * persons than this is not looked up: so common a word says nothing of who a person is, and reading
 * its postings would cost in proportion to the table (a given name held by 2% of a national file).
 */
export const CHECK_WORD_POSTINGS = 1_000;

/**
 * The fragments whose rarest gram holds at most `CHECK_WORD_POSTINGS` postings, by the posting counts
 * (one BatchGetItem for them all); every fragment where the table does not keep counts.
 */
const uncommon = async (storage: Storage, fragments: readonly string[], record: RecordCost) => {
  if (fragments.length === 0) return [];
  const probes = fragments.map((fragment) => probesToSample(planQuery({ search: fragment })));
  const counts = await readPostingCounts(storage, probes.flat(), record);
  if (!counts) return [...fragments];
  return fragments.filter(
    (_, index) =>
      Math.min(...(probes[index] ?? []).map((probe) => counts.get(probe) ?? 0)) <= CHECK_WORD_POSTINGS,
  );
};

/**
 * Rounds 1 to 3: the email holders, and the stubs of every person the name's fragments found (id to
 * fullname), with the fragments searched in order. A person checked against the store (`self`) is
 * found by its own fragments: it is left out of what they find, and those of its words (and their
 * halves) too common to say who it is are not looked up (`uncommon`; its whole name always is).
 */
const gather = async (
  storage: Storage,
  request: MatchRequest,
  { cost, record }: ReturnType<typeof costRecorder>,
  self: number | undefined,
) => {
  const { whole, words, short } = candidateFragments(request.variants);
  const found = new Map<number, string>();
  const keep = (persons: readonly { id: number; fullname: string }[] | undefined) => {
    for (const { id, fullname } of persons ?? []) found.set(id, fullname);
  };
  const searched: string[] = [];
  /** What each fragment found (not `self`); undefined for a word too common to look up in a check. */
  const searchAll = async (fragments: readonly string[], { whole: always = false } = {}) => {
    const looked = self === undefined || always ? fragments : await uncommon(storage, fragments, record);
    searched.push(...looked);
    const byFragment = await Promise.all(looked.map((fragment) => search(storage, fragment, cost)));
    return fragments.map((fragment) =>
      looked.includes(fragment)
        ? (byFragment[looked.indexOf(fragment)] ?? []).filter(({ id }) => id !== self)
        : undefined,
    );
  };
  const [holders, first] = await Promise.all([
    Promise.all(request.emails.map((email) => holderOf(storage, email, record))),
    searchAll(whole, { whole: true }),
  ]);
  first.forEach(keep);
  // The words only when the whole name found no one of that very name: a close second of an exact
  // name holds it (a score within CLOSE_SECOND), so an exact hit needs no more reading. Then the
  // halves of each word that found no one, which a typo leaves one of whole.
  const exactHit = first.some((persons) =>
    (persons ?? []).some(({ fullname }) => request.variants.includes(fold(fullname))),
  );
  if (!exactHit && words.length > 0) {
    const byWord = await searchAll(words);
    byWord.forEach(keep);
    const halves = words.filter((_, index) => byWord[index]?.length === 0).flatMap(halvesOf);
    if (halves.length > 0) (await searchAll(halves)).forEach(keep);
  } else if (!exactHit && short.length > 0) {
    // A name whose words are all under 3 code points ("Yu Na", "X. Ma"): the persons each of whose
    // words of 2 ends one of their values, through those words' end grams (wordEndPlan).
    const plan = wordEndPlan(short);
    searched.push(...plan.probes.map(probeText));
    keep((await searchPlan(storage, plan, cost)).filter(({ id }) => id !== self));
  }
  return { found, searched, emailHolders: holders.filter((id): id is number => id !== undefined) };
};

/** The ids to read whole: every email holder and exact namesake, then the best by their fullname alone. */
const toRead = (request: MatchRequest, found: Map<number, string>, emailHolders: number[]) => {
  const isQueryName = queryNameTest(request.variants);
  const ranked = [...found]
    .map(([id, fullname]) => {
      const folded = fold(fullname);
      return {
        id,
        // The query's name, hyphens as spaces, as written or in another order of its words.
        exact: isQueryName(folded),
        similarity: nameScore(request.variants, [folded]),
      };
    })
    .sort((a, b) => Number(b.exact) - Number(a.exact) || b.similarity - a.similarity || a.id - b.id);
  const best = ranked
    .filter(({ exact }, index) => exact || index < RECONCILE_LIMITS.maxLimit)
    .map(({ id }) => id);
  return [...new Set([...emailHolders, ...best])].slice(0, MAX_READ);
};

/**
 * The persons a query finds, read whole (live ones only), and what finding them cost: reconciliation's
 * candidates, and the duplicates detector's (lib/db/duplicates/duplicate-reads.ts), which scores them
 * on what a query does not send (addresses, middle initials, suffixes) and asks as person `self`: never
 * found itself, and not taken for a holder of its own name (its name's words are then searched too).
 */
export const candidatePersons = async (
  storage: Storage,
  request: MatchRequest,
  self?: number,
): Promise<Omit<CandidateRead, 'candidates'> & { persons: Person[] }> => {
  const recorder = costRecorder();
  const { cost, record } = recorder;
  if (!request.wantsPersons) return { persons: [], cost, detail: { fragments: 0, searched: '' } };
  const { found, searched, emailHolders } = await gather(storage, request, recorder, self);
  const kept = toRead(request, found, emailHolders);
  const persons = await readPersons(storage, kept, record);
  return {
    persons: kept.flatMap((id) => {
      const person = persons.get(id);
      return person ? [person] : [];
    }),
    cost,
    detail: {
      fragments: searched.length,
      searched: searched.join('|'),
      postingMatches: found.size,
      emailHolders: emailHolders.length,
      read: kept.length,
    },
  };
};

const candidatesOf = async (storage: Storage, request: MatchRequest): Promise<CandidateRead> => {
  const { persons, ...read } = await candidatePersons(storage, request);
  return { candidates: persons.map(factsOf), ...read };
};

const suggest = async (storage: Storage, text: string, limit: number) => {
  const wanted = fold(text);
  if (Array.from(wanted).length < MIN_FRAGMENT) return [];
  const persons = await search(storage, wanted, costRecorder().cost);
  const starts = (fullname: string) =>
    fold(fullname)
      .split(' ')
      .some((word) => word.startsWith(wanted));
  return [...persons].sort((a, b) => Number(starts(b.fullname)) - Number(starts(a.fullname))).slice(0, limit);
};

export const reconcileReader = (storage: Storage): ReconcileReader => ({
  candidates: (request) => candidatesOf(storage, request),
  suggest: (text, limit) => suggest(storage, text, limit),
  persons: (ids) => readPersons(storage, ids),
});
