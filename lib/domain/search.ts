/**
 * The terms of the search index (issue #25): which n-grams a stored person is found by, and which a
 * filter fragment is looked up with. Pure: no I/O, no AWS. Values are folded as lists fold them
 * (`fold`: case, accents, compatibility forms) and never cut: every character of a long email or of a
 * name that folding lengthened (`ß` → `ss`) is searchable.
 *
 * A gram is 3 code points of a value followed by an end mark, so:
 * - a fragment of 3 or more code points is found through any of its own grams (all of them are in
 *   every value that contains it: the property test of this module);
 * - a fragment of 2 code points is found through the grams that start with it: each of its
 *   occurrences is followed by another character or by the end mark (`"ab"` ends `"ab\n"`);
 * - a fragment of 1 code point uses no gram: it matches most persons, and the list reads its index.
 */
import type { PersonFilters } from './listing';
import { fullnameOfPerson, type Person } from './person';
import { fold } from './text';

/** Marks the end of a value in its grams: a folded value never holds a line break. */
export const END_MARK = '\n';

/** Code points per gram. */
export const GRAM_LENGTH = 3;

/** The folded values of a person, per searchable field (API.md 4), none cut. */
export interface SearchTerms {
  first_name: string[];
  last_name: string[];
  email: string[];
  /** What `search` matches besides the three above: the fullname and the freeform names. */
  rest: string[];
}

const foldedValues = (values: (string | null | undefined)[]) => [
  ...new Set(values.flatMap((value) => (value ? [fold(value)] : [])).filter(Boolean)),
];

/** The folded values of each searchable field of a stored person, distinct per field. */
export const searchTerms = (person: Person): SearchTerms => ({
  first_name: foldedValues(person.Names.map((name) => name.first_name)),
  last_name: foldedValues(person.Names.map((name) => name.last_name)),
  email: foldedValues(person.Emails.map((item) => item.email)),
  rest: foldedValues([fullnameOfPerson(person), ...person.Names.map((name) => name.freeform_name)]),
});

/** The runs of `GRAM_LENGTH` code points of a list of code points. */
const windows = (codePoints: string[]) =>
  Array.from({ length: Math.max(0, codePoints.length - GRAM_LENGTH + 1) }, (_, start) =>
    codePoints.slice(start, start + GRAM_LENGTH).join(''),
  );

/**
 * A value's distinct grams: every run of 3 code points of the value followed by the end mark, so
 * "maria" gives mar, ari, ria and "ia\n". A value of one code point has none.
 */
export const gramsOfValue = (value: string): string[] => [
  ...new Set(windows([...Array.from(value), END_MARK])),
];

/** A searchable field: what a filter matches (`FIELDS_OF_FILTER`). */
export type SearchField = keyof SearchTerms;

export const SEARCH_FIELDS: readonly SearchField[] = ['first_name', 'last_name', 'email', 'rest'];

/**
 * What a person is found by through one gram: the gram, and per field the values that hold it (what a
 * candidate is checked against: any value holding a fragment holds all its grams). One posting per
 * gram, whichever fields hold it: a name's grams are mostly in the person's email and fullname too, so
 * this halves what a write stores compared with a posting per field.
 */
export interface Posting {
  gram: string;
  values: Partial<Record<SearchField, string[]>>;
}

/** A person's postings: one per distinct gram of any of its values. */
export const postingsOf = (terms: SearchTerms): Posting[] => {
  const postings = new Map<string, Posting['values']>();
  for (const field of SEARCH_FIELDS)
    for (const value of terms[field])
      for (const gram of gramsOfValue(value)) {
        const values = postings.get(gram) ?? {};
        values[field] = [...(values[field] ?? []), value];
        postings.set(gram, values);
      }
  return [...postings].map(([gram, values]) => ({ gram, values }));
};

/** Terms holding every value of both (what may still have postings after an unfinished write). */
export const unionOfTerms = (a: SearchTerms, b: SearchTerms): SearchTerms =>
  Object.fromEntries(
    SEARCH_FIELDS.map((field) => [field, [...new Set([...a[field], ...b[field]])]]),
  ) as unknown as SearchTerms;

export const NO_TERMS: SearchTerms = { first_name: [], last_name: [], email: [], rest: [] };

/** How the index finds a (folded) filter fragment. */
export type FragmentLookup =
  /** Through any of these grams: every value holding the fragment has all of them. */
  | { kind: 'grams'; grams: string[] }
  /** Through the grams that start with these two code points. */
  | { kind: 'prefix'; prefix: string }
  /** One code point: no gram narrows it down. */
  | { kind: 'none' };

export const lookupOf = (fragment: string): FragmentLookup => {
  const codePoints = Array.from(fragment);
  if (codePoints.length >= GRAM_LENGTH) return { kind: 'grams', grams: [...new Set(windows(codePoints))] };
  if (codePoints.length === 2) return { kind: 'prefix', prefix: fragment };
  return { kind: 'none' };
};

/** The fields each filter matches (API.md 4: `search` any of them). */
export const FIELDS_OF_FILTER: Record<keyof PersonFilters, SearchField[]> = {
  first_name: ['first_name'],
  last_name: ['last_name'],
  email: ['email'],
  search: ['rest', 'first_name', 'last_name', 'email'],
};

/** One filter of a list, as the index answers it (issue #26). */
export interface FilterPlan {
  filter: keyof PersonFilters;
  /** The folded fragment; a person matches when a value of one of `fields` holds it. */
  fragment: string;
  fields: readonly SearchField[];
  lookup: FragmentLookup;
}

/** Postings that can supply a filter's candidates: one gram's, or every gram's starting with a prefix. */
export type Probe =
  | { kind: 'gram'; gram: string; filter: FilterPlan }
  | { kind: 'prefix'; prefix: string; filter: FilterPlan };

/**
 * How a filtered list is answered from the postings. Every filter must match (AND). Each probe can
 * supply all the candidates of its filter, so of all the query's probes only the rarest needs reading
 * whole (the reader finds it by sampling each); its postings carry the values to check its own filter.
 * Another filter is checked on the candidate's posting of one of its grams (`checkGram`: any of them
 * carries every value holding the fragment, a key known from the id, so one BatchGetItem for all the
 * candidates), or, for a fragment of 1 or 2 code points, on the person's terms. With no probe at all
 * (every fragment of one code point) no posting narrows the list: it reads its index whole.
 */
export interface QueryPlan {
  filters: FilterPlan[];
  probes: Probe[];
}

export const planQuery = (filters: PersonFilters): QueryPlan => {
  const plans = (Object.entries(filters) as [keyof PersonFilters, string | undefined][]).flatMap(
    ([filter, fragment]): FilterPlan[] =>
      fragment ? [{ filter, fragment, fields: FIELDS_OF_FILTER[filter], lookup: lookupOf(fragment) }] : [],
  );
  return {
    filters: plans,
    probes: plans.flatMap((plan): Probe[] =>
      plan.lookup.kind === 'grams'
        ? plan.lookup.grams.map((gram) => ({ kind: 'gram', gram, filter: plan }))
        : plan.lookup.kind === 'prefix'
          ? [{ kind: 'prefix', prefix: plan.lookup.prefix, filter: plan }]
          : [],
    ),
  };
};

/**
 * How common a character looks in names and emails: its rank in the letters' frequency order (0 most
 * common). What an email or a fullname holds everywhere (`.`, `@`, the space, the end of a value) ranks
 * as common; digits and anything else (another script, a rare symbol) as rare.
 */
const COMMON_FIRST = ' \n.@eaoinrtlsmhdcubgkypfvwjzxq';
const commonness = (character: string) => {
  const rank = COMMON_FIRST.indexOf(character);
  return rank === -1 ? COMMON_FIRST.length : rank;
};

/**
 * Higher is rarer-looking. Only a tie-break between probes whose samples show as many postings (issue
 * #36): in a directory of Polish, Czech or Turkish names (-owski, -ović, -oğlu) letter frequency says
 * little about how many persons hold a gram, so the reader measures each probe instead.
 */
export const gramRarity = (gram: string) =>
  Array.from(gram).reduce((sum, character) => sum + commonness(character), 0);

/**
 * Probes sampled of one filter at most: a fragment of up to 10 code points samples every gram it has,
 * a longer one 8 of them, spread evenly from its first gram to its last (neighbouring grams share two
 * code points, so their persons overlap most).
 */
export const MAX_PROBES_PER_FILTER = 8;

const spreadEvenly = <T>(items: T[], keep: number): T[] =>
  items.length <= keep
    ? items
    : Array.from(
        { length: keep },
        (_, index) => items[Math.round((index * (items.length - 1)) / (keep - 1))] as T,
      );

/**
 * The probes the reader samples before it reads one whole: every probe of every filter (a filter of a
 * very long fragment `MAX_PROBES_PER_FILTER` of its grams). Each can supply all its filter's
 * candidates, so any of them answers the query; sampling them finds the one that reads least.
 */
export const probesToSample = (plan: QueryPlan): Probe[] =>
  plan.filters.flatMap((filter) =>
    spreadEvenly(
      plan.probes.filter((probe) => probe.filter === filter),
      MAX_PROBES_PER_FILTER,
    ),
  );

/**
 * The shard (of `shards`) a filter's probes are sampled in: a hash of its fragment (FNV-1a), so the
 * sampling of different fragments spreads over the shards, and all the grams of one fragment are
 * sampled in the same shard: the persons holding the whole fragment hold every one of its grams, and
 * they then weigh the same in each gram's sample instead of adding their shard's chance to each.
 */
export const samplingShard = (filter: FilterPlan, shards: number) => {
  let hash = 0x811c9dc5;
  for (const character of filter.fragment) {
    hash ^= character.codePointAt(0) as number;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
};

/** What one Query of a probe in its sampling shard showed. */
export interface ProbeSample {
  probe: Probe;
  /** Postings it returned. */
  read: number;
  /** Whether it reached the end of the shard (`read` is then the shard's exact count). */
  exhausted: boolean;
  /** The id of the last posting it returned (0 for none): a gram's postings come in id order. */
  lastId: number;
}

/**
 * How many postings a probe holds in all `shards`, from its one-shard sample: an exhausted shard
 * holds `read` exactly, and the others about as many (the shard is a hash of the id); a full page
 * got through `lastId` of the `lastIdHandedOut` ids with `read` postings, so the shard holds about
 * `read * lastIdHandedOut / lastId`. A prefix's postings are in order of their third code point
 * first, not of id, so only an exhausted one is sized (an unfinished one as unbounded).
 */
export const estimatedPostings = (sample: ProbeSample, lastIdHandedOut: number, shards: number) => {
  if (sample.exhausted) return sample.read * shards;
  if (sample.probe.kind === 'prefix') return Number.POSITIVE_INFINITY;
  return ((sample.read * Math.max(lastIdHandedOut, sample.lastId)) / Math.max(1, sample.lastId)) * shards;
};

/** A probe and how many postings it holds (counted, or estimated from a sample). */
export interface SizedProbe {
  probe: Probe;
  postings: number;
}

/** The probe with the fewest postings, the rarer-looking first between equals (`gramRarity`; a prefix last). */
export const fewestPostings = (sized: readonly SizedProbe[]): Probe => {
  const [first, ...rest] = sized.map(({ probe, postings }) => ({
    probe,
    postings,
    rarity: probe.kind === 'gram' ? gramRarity(probe.gram) : -1,
  }));
  if (!first) throw new Error('No probe to choose from');
  return rest.reduce(
    (best, next) =>
      next.postings < best.postings || (next.postings === best.postings && next.rarity > best.rarity)
        ? next
        : best,
    first,
  ).probe;
};

/**
 * The probe to read whole when the counts are not there: the one whose sample shows the fewest
 * postings. Pure, so its bound (the chosen probe holds at most 1.5 times the postings of the
 * fragment's rarest gram plus the sampling, on populations that mislead letter frequency) is a
 * property tested in memory.
 */
export const chooseProbe = (
  samples: readonly ProbeSample[],
  lastIdHandedOut: number,
  shards: number,
): Probe =>
  fewestPostings(
    samples.map((sample) => ({
      probe: sample.probe,
      postings: estimatedPostings(sample, lastIdHandedOut, shards),
    })),
  );

/**
 * How reconciliation finds a name whose words are all under 3 code points (issue #53: "Yu Na", "X. Ma",
 * "T Lý"), which has no gram of its own to look up: a word of 2 code points that ends one of a
 * person's values (a Name's first or last name, the fullname) is in the gram of those 2 code points
 * and the end mark (`ma` + END_MARK), whose postings are the persons with a value ending in them, not
 * every person whose values hold `ma` somewhere (the prefix probe of a 2-code-point list filter reads
 * mar, mat, may, ...). One filter per word, each on its end gram: every word must end a value (AND),
 * answered as any list of several fragments is (`searchPostings`: the rarest gram read whole, the
 * others applied to its candidates the cheaper way), so the read is in proportion to the rarest
 * word's persons and what the others' counts allow.
 * Words of other lengths are left out (a letter ends too many values; 3 or more have grams).
 */
export const wordEndPlan = (words: readonly string[]): QueryPlan => {
  const filters = [...new Set(words)]
    .filter((word) => Array.from(word).length === 2)
    .map(
      (word): FilterPlan => ({
        filter: 'search',
        fragment: word,
        fields: FIELDS_OF_FILTER.search,
        lookup: { kind: 'grams', grams: [`${word}${END_MARK}`] },
      }),
    );
  return {
    filters,
    probes: filters.map((filter): Probe => ({ kind: 'gram', gram: `${filter.fragment}${END_MARK}`, filter })),
  };
};

/** The gram whose posting decides a filter for one candidate, or null (fragments under 3 code points). */
export const checkGram = (plan: FilterPlan): string | null =>
  plan.lookup.kind === 'grams' ? (plan.lookup.grams[0] as string) : null;

/** Whether values (a posting's, or a person's terms) hold the filter's fragment in one of its fields. */
export const valuesMatch = (plan: FilterPlan, values: Partial<Record<SearchField, readonly string[]>>) =>
  plan.fields.some((field) => values[field]?.some((value) => value.includes(plan.fragment)) === true);
