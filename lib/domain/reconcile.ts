/**
 * Matching by the W3C Reconciliation API 0.2 (issue #37, API.md 12): what a reconciliation query,
 * a data extension query and a suggest request mean, how a candidate is scored, when it is certain,
 * and what the manifest, the extension rows and the preview card say. Pure: no I/O, no AWS; the
 * candidates come from lib/db/person/read/reconcile-candidates.ts, the wire from lib/http/reconcile-handlers.ts.
 *
 * The score (0 to 100, documented in the manifest's `documentation` and in docs/matching.md):
 * - `name`: how alike the folded query and the closest of the candidate's names are (its fullname,
 *   every Name's "first last" and freeform name), the better of two measures, times 100: the trigram
 *   similarity of the whole names (Jaccard, each padded with a space at both ends so that short names
 *   have grams), and the words' similarity times 0.95 (`wordsSimilarity`: word against word in any
 *   order, an initial or a nickname 0.9, a misspelt word by its edit distance). A query "Last, First"
 *   is compared as written and as "First Last"; a hyphen is a space ("Okonjo Iweala" is
 *   "Okonjo-Iweala", `comparableName`); a query that is a candidate's name in another order of its
 *   words that keeps them in turn ("Park Jun Ho" of "Jun Ho Park", "Okonjo-Iweala Ngozi": a rotation,
 *   `reorderedNames`) is compared with that name too, as "Last, First" is with "First Last" (issue
 *   #53). Only a name equal to the query, folded, in one of these forms, scores 1;
 * - each `first_name` / `last_name` property sent that one of the candidate's Names holds (folded) adds
 *   5, one it does not hold takes 10 off; an `email` sent that a candidate with emails does not hold
 *   takes 10 off (one without any is not held to it: a spreadsheet may know an address it lacks), unless
 *   one of its emails has the same mailbox at another domain (feature `email_mailbox`: the same person
 *   at a new employer, most likely), which neither counts nor speaks against it;
 * - a `phones` property that is one of the candidate's numbers (by their digits, `samePhone`) adds 10;
 *   one it does not hold takes nothing off (a person has several numbers);
 * - an `email` property (or a query text that is an email address) that is one of the candidate's
 *   emails (normalised as uniqueness compares them, API.md 5.5) is decisive: 100, whatever the name
 *   says (an email is held by one person only);
 * clamped to 0..100 and rounded to one decimal.
 * `match: true` goes to one candidate only, and only when it is certain: it holds the email sent, or
 * its folded name is the query's exactly (or "First Last" of a query "Last, First", or the query's
 * words in another order that keeps them in turn, hyphens as spaces), no other
 * candidate's is, no other candidate comes within `CLOSE_SECOND` of it by the trigram measure alone
 * (a near name that the words' measure lifts, "Mario Garcia" beside "Maria Garcia", does not make
 * the exact one uncertain; "John Smith Jr" beside "John Smith" does), and nothing sent speaks against
 * it (an email it does not hold, a first or last name it does not have).
 */
import { distance } from 'fastest-levenshtein';
import * as z from 'zod';
import { normaliseEmail } from './email';
import { isNickname } from './nicknames';
import { fullnameOfPerson, type Person, primaryOf } from './person';
import { fold } from './text';

/** The one type of this service's entities. */
export const PERSON_ENTITY_TYPE = { id: 'Person', name: 'Person' } as const;

/** Candidates a query answers when it sends no `limit` (or 0, as OpenRefine omits it), and at most. */
export const RECONCILE_LIMITS = {
  defaultLimit: 5,
  maxLimit: 25,
  /** Queries in one batch (OpenRefine sends 10). */
  maxQueries: 50,
  /** Ids in one data extension query (OpenRefine sends at most 10). */
  maxExtendIds: 100,
  /** Entries a suggest answers. */
  suggest: 10,
  /** Code points of a query's text that are looked at. */
  queryText: 200,
} as const;

/**
 * A candidate whose score is within this of the exact-name candidate's makes that one uncertain: "John
 * Smith Jr" (77 against "John Smith") may be the father of the son sought; "Mary Smith" (33) is not.
 */
export const CLOSE_SECOND = 25;

/** The properties a query may send and data extension may return, in the order OpenRefine lists them. */
export const RECONCILE_PROPERTIES = [
  { id: 'fullname', name: 'Full name' },
  { id: 'first_name', name: 'First name' },
  { id: 'last_name', name: 'Last name' },
  { id: 'email', name: 'Primary email' },
  { id: 'names', name: 'All names' },
  { id: 'emails', name: 'All emails' },
  { id: 'phones', name: 'Phone numbers' },
  { id: 'addresses', name: 'Postal addresses' },
] as const;

export type ReconcileProperty = (typeof RECONCILE_PROPERTIES)[number]['id'];

const PROPERTY_IDS: ReadonlySet<string> = new Set(RECONCILE_PROPERTIES.map(({ id }) => id));

export const isReconcileProperty = (id: string): id is ReconcileProperty => PROPERTY_IDS.has(id);

/**
 * Which properties anyone may see (API.md 12's public-read option): `fullname` always, the others only
 * when the operator lists them. Without the option every property is visible (the caller is
 * authenticated like any API caller).
 */
export interface Visibility {
  publicRead: boolean;
  /** The operator's list; `fullname` is in it whatever it says. */
  publicProperties: readonly ReconcileProperty[];
}

export const ALL_VISIBLE: Visibility = { publicRead: false, publicProperties: [] };

export const isVisible = (visibility: Visibility, property: ReconcileProperty): boolean =>
  !visibility.publicRead || property === 'fullname' || visibility.publicProperties.includes(property);

/**
 * The public properties of a comma-separated setting (`fullname,email`). An id that is no property is
 * refused, so that a typo never hides what the operator meant to show (or shows what they did not).
 */
export const publicPropertiesFrom = (
  value: string | undefined,
  source = 'RECONCILE_PUBLIC_PROPERTIES',
): ReconcileProperty[] => {
  const ids = (value ?? 'fullname')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const id of ids)
    if (!isReconcileProperty(id))
      throw new Error(`${source} lists ${id}, which is none of ${[...PROPERTY_IDS].join(', ')}`);
  return [...new Set(['fullname', ...ids])] as ReconcileProperty[];
};

// --- Queries ------------------------------------------------------------------------------------

/** A property value as the spec allows it: text, a number, a boolean, an entity `{id}`, or a list. */
const EntityValue = z.looseObject({ id: z.string(), name: z.string().optional() });
const PropertyValue = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  EntityValue,
  z.array(z.union([z.string(), z.number(), z.boolean(), EntityValue])),
]);

/** What a query without `query` or `properties` is told (the 0.2 schema's `anyOf`). */
export const QUERY_TEXT_REQUIRED =
  'A query needs its text in query (a string), or at least one property in properties, as in {"query": "Ada Lovelace"}';

/**
 * One reconciliation query, as the 0.2 JSON Schema (reconciliation-api/specs,
 * 0.2/schemas/reconciliation-query-batch.json) has it: the members `query`, `type`, `limit`,
 * `properties` (each with `pid` and `v`) and `type_strict`, and no others; `query`, or at least one
 * property, required. A `limit` is any number there: one under 1 means the default, a fraction is
 * rounded down.
 */
export const ReconcileQuery = z
  .strictObject({
    query: z.string().optional(),
    type: z.union([z.string(), z.array(z.string())]).optional(),
    limit: z
      .number()
      .transform((limit) => Math.max(0, Math.floor(limit)))
      .optional(),
    properties: z.array(z.looseObject({ pid: z.string(), v: PropertyValue })).optional(),
    type_strict: z.enum(['any', 'should', 'all']).optional(),
  })
  .refine((query) => query.query !== undefined || (query.properties ?? []).length > 0, {
    message: QUERY_TEXT_REQUIRED,
    path: ['query'],
  });
export type ReconcileQuery = z.output<typeof ReconcileQuery>;

/**
 * A batch: an object of queries keyed as the client likes (`q0`, `q1`, ...), at most
 * `RECONCILE_LIMITS.maxQueries` of them (counted before the queries are read, so that an over-long
 * batch is told so whatever its queries hold).
 */
export const ReconcileQueryBatch = z
  .record(z.string(), z.unknown(), {
    error: 'A batch is a JSON object of queries keyed as you like, as in {"q0": {"query": "Ada Lovelace"}}',
  })
  .refine((batch) => Object.keys(batch).length <= RECONCILE_LIMITS.maxQueries, {
    error: (issue) =>
      `A batch holds at most ${RECONCILE_LIMITS.maxQueries} queries, not ${Object.keys(issue.input as object).length}: send them in batches of ${RECONCILE_LIMITS.maxQueries} or fewer`,
  })
  .pipe(z.record(z.string(), ReconcileQuery));

/** A data extension query (spec 0.2 "Data extension"): ids as the queries returned them. */
export const ExtendQuery = z.looseObject({
  ids: z.array(z.string()).max(RECONCILE_LIMITS.maxExtendIds),
  properties: z.array(z.looseObject({ id: z.string() })),
});
export type ExtendQuery = z.output<typeof ExtendQuery>;

/** What a query asks, folded and normalised: what candidates are looked up by and scored against. */
export interface MatchRequest {
  /** The folded query text ("" when none, or when the text is an email address: see `emails`). */
  name: string;
  /**
   * The forms of the name it is looked up and compared by: the name, and for "Last, First" (one comma)
   * also "First Last", which is the same name written as a catalogue writes it.
   */
  variants: string[];
  /** Normalised email addresses sent as `email` properties, or as the query text itself. */
  emails: string[];
  firstNames: string[];
  lastNames: string[];
  /** The digits of phone numbers sent as `phones` properties, 7 or more. */
  phones: string[];
  limit: number;
  /** False when the query names only types other than Person: it has no candidates here. */
  wantsPersons: boolean;
}

const textsOf = (value: z.output<typeof PropertyValue>): string[] =>
  (Array.isArray(value) ? value : [value]).flatMap((item) =>
    typeof item === 'object' ? [item.id] : [String(item)],
  );

/** Type ids that mean this service's Person: its own id, and schema.org's. */
const PERSON_TYPE_IDS = new Set([
  'person',
  'schema:person',
  'http://schema.org/person',
  'https://schema.org/person',
]);

/**
 * A query as a match request. Properties this service does not know, or that the visibility keeps
 * private (an email under the public-read option unless listed: a match on it would tell anyone
 * whether an address is a person's), are ignored.
 */
export const matchRequestOf = (query: ReconcileQuery, visibility: Visibility = ALL_VISIBLE): MatchRequest => {
  const values = (property: ReconcileProperty) =>
    isVisible(visibility, property)
      ? (query.properties ?? [])
          .filter((item) => (item.pid ?? item.p) === property)
          .flatMap((item) => textsOf(item.v))
      : [];
  const types = query.type === undefined ? [] : Array.isArray(query.type) ? query.type : [query.type];
  const limit = query.limit ?? 0;
  const text = fold(
    Array.from(query.query ?? '')
      .slice(0, RECONCILE_LIMITS.queryText)
      .join(''),
  );
  // A column of email addresses reconciled as it is: the address is the evidence, not a name.
  const textIsEmail = EMAIL_TEXT.test(text) && isVisible(visibility, 'email');
  const name = textIsEmail ? '' : text;
  return {
    name,
    variants: nameVariantsOf(name),
    emails: [...new Set([...values('email'), ...(textIsEmail ? [text] : [])].map(normaliseEmail))].filter(
      (email) => email.includes('@'),
    ),
    firstNames: [...new Set(values('first_name').map(fold))].filter(Boolean),
    phones: phoneDigitsOf(values('phones')),
    lastNames: [...new Set(values('last_name').map(fold))].filter(Boolean),
    limit: limit === 0 ? RECONCILE_LIMITS.defaultLimit : Math.min(limit, RECONCILE_LIMITS.maxLimit),
    wantsPersons: types.length === 0 || types.some((type) => PERSON_TYPE_IDS.has(type.toLowerCase())),
  };
};

/**
 * What a stored person asks when it is itself checked against the store (the duplicate detector, API.md
 * 12.1): every name it holds as a form of the query (each read as a query's text is, "Last, First" also
 * as "First Last"), its first and last names, emails and phone numbers as the properties a spreadsheet
 * would send, so that a pair is scored exactly as a reconciliation query of that person would be.
 */
export const matchRequestOfFacts = (facts: CandidateFacts): MatchRequest => {
  const name = facts.names[0] ?? '';
  return {
    name,
    variants: [...new Set(facts.names.flatMap(nameVariantsOf))],
    emails: [...facts.emails],
    firstNames: [...facts.firstNames],
    lastNames: [...facts.lastNames],
    phones: [...facts.phones],
    limit: RECONCILE_LIMITS.maxLimit,
    wantsPersons: true,
  };
};

/** Fewest digits a phone number needs to be compared: a subscriber number without its area code. */
const PHONE_DIGITS = 7;

/** The digits of each phone number (free text here: `+44 20 7946 0958`, `020 7946 0958`), 7 or more. */
export const phoneDigitsOf = (numbers: readonly (string | null | undefined)[]): string[] => [
  ...new Set(
    numbers.flatMap((number) => {
      const digits = (number ?? '').replace(/\D/g, '');
      return digits.length >= PHONE_DIGITS ? [digits] : [];
    }),
  ),
];

/**
 * Whether two phone numbers' digits are one number: equal, or one ends with the other without its
 * trunk `0` (`442079460958` and `02079460958`: the same London number, written internationally and
 * nationally). Free-text numbers have no country to parse them by, and the comparison only ever runs
 * on the few candidates a name found, so a shared tail of 7 or more digits is evidence enough.
 */
export const samePhone = (a: string, b: string): boolean => {
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  const national = shorter.replace(/^0+/, '');
  return shorter === longer || (national.length >= PHONE_DIGITS && longer.endsWith(national));
};

/** A query text that is one email address (one `@`, a dot in the domain, no space). */
const EMAIL_TEXT = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The name, and "First Last" for a name written "Last, First" (exactly one comma, words on both sides). */
export const nameVariantsOf = (name: string): string[] => {
  if (name === '') return [];
  const parts = name.split(',').map((part) => part.trim());
  if (parts.length !== 2 || parts.some((part) => part === '')) return [name];
  return [name, `${parts[1]} ${parts[0]}`];
};

/**
 * Code points a fragment needs to be looked up: 3, one gram. A shorter one (`li`) would read every
 * posting of every gram it starts (`an`: most persons), so it finds nothing rather than cost the table.
 */
export const MIN_FRAGMENT = 3;

/** The words of a folded name: what separates them (spaces, `.`, `,`, hyphens) dropped. */
export const wordsOf = (name: string): string[] => name.split(/[\s.,\-\u2010\u2011]+/u).filter(Boolean);

/** A hyphen: ASCII's, Unicode's hyphen and its non-breaking one (NFKD folds the latter into the former). */
const HYPHEN = /[-\u2010\u2011]/u;
const HYPHENS = /\s*[-\u2010\u2011]+\s*/gu;

/**
 * A folded name as names are compared: a hyphen is a space ("ngozi okonjo-iweala" is "ngozi okonjo
 * iweala", "jun-ho park" is "jun ho park"), since people write compound names both ways.
 */
export const comparableName = (name: string): string =>
  HYPHEN.test(name) ? name.replace(HYPHENS, ' ').replace(/\s+/gu, ' ').trim() : name;

/**
 * A folded name in every other order of its words that keeps them in turn (its rotations): "park
 * jun ho" → "jun ho park", "ho park jun". A name written family name first ("Okonjo-Iweala Ngozi",
 * "Park Jun Ho", "Nagy László") is one of the rotations of its "first last" form, as "Last, First" is;
 * other orders ("José María" for "María José") are other names. Hyphens are spaces (`comparableName`).
 */
export const rotationsOf = (name: string): string[] => {
  const words = wordsOf(comparableName(name));
  return words.length < 2
    ? []
    : words.slice(1).map((_, index) => [...words.slice(index + 1), ...words.slice(0, index + 1)].join(' '));
};

/**
 * Which of a candidate's (folded) names are one of the query's forms in another word order (a rotation:
 * "jun ho park" for "Park Jun Ho"), hyphens as spaces: the forms a query written family name first
 * without a comma is compared with as well, as "Last, First" is with "First Last" (`rankCandidates`).
 */
export const reorderedNames = (variants: readonly string[], names: readonly string[]): string[] => {
  const rotations = new Set(variants.flatMap(rotationsOf));
  return rotations.size === 0 ? [] : names.map(comparableName).filter((name) => rotations.has(name));
};

/**
 * Whether a (folded) name is one of the query's forms, hyphens as spaces, in its order or another: a
 * test built once per query, since the candidate search runs it on every stub its postings found.
 */
export const queryNameTest = (variants: readonly string[]): ((name: string) => boolean) => {
  const forms = new Set([...variants.map(comparableName), ...variants.flatMap(rotationsOf)]);
  return (name) => forms.has(comparableName(name));
};

/**
 * The text fragments whose postings may hold a request's candidates: `whole`, each form of the folded
 * name (every person whose names hold it); `words`, the name's words of 3 or more code points (the
 * ones that can be misspelt around), at most `maxWords`, longest first; `short`, when the name has no
 * such word ("yu na", "x. ma", "t ly"), its words of 2 code points, found by the values they end
 * (`wordEndPlan` of lib/domain/search.ts).
 */
export const candidateFragments = (
  variants: readonly string[],
  maxWords = 3,
): { whole: string[]; words: string[]; short: string[] } => {
  const long = (text: string) => Array.from(text).length >= MIN_FRAGMENT;
  const whole = variants.filter(long);
  const all = [...new Set(variants.flatMap(wordsOf))];
  const words = all
    .filter((word) => long(word) && !whole.includes(word))
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
    .slice(0, maxWords);
  const short =
    all.some(long) || words.length > 0 ? [] : all.filter((word) => Array.from(word).length === 2).sort();
  return { whole, words, short };
};

/**
 * Where a word that found no one may still be, misspelt: its two halves (of 3 code points or more),
 * since one typo leaves one of them whole ("lovelase": `love`, `lase`).
 */
export const halvesOf = (word: string): string[] => {
  const points = Array.from(word);
  const half = Math.ceil(points.length / 2);
  return [points.slice(0, half).join(''), points.slice(points.length - half).join('')].filter(
    (part) => Array.from(part).length >= MIN_FRAGMENT,
  );
};

// --- Scoring ------------------------------------------------------------------------------------

/** Padded trigrams of a folded text: " jo", "joh", "ohn", "hn ". */
export const trigramsOf = (text: string): Set<string> => {
  const points = Array.from(` ${text} `);
  const grams = new Set<string>();
  for (let start = 0; start + 3 <= points.length; start++) grams.add(points.slice(start, start + 3).join(''));
  return grams;
};

/** Jaccard similarity of two folded texts' trigrams, 0 to 1; 1 exactly when they are equal. */
export const nameSimilarity = (a: string, b: string): number => {
  if (a === b) return 1;
  const left = trigramsOf(a);
  const right = trigramsOf(b);
  let shared = 0;
  for (const gram of left) if (right.has(gram)) shared++;
  const union = left.size + right.size - shared;
  return union === 0 ? 0 : shared / union;
};

/** A word that is one letter stands for any word it starts: "a" of "ada". */
export const INITIAL_SIMILARITY = 0.9;
/** A given name's everyday form stands for the formal one ("bill", "william"): lib/domain/nicknames.ts. */
export const NICKNAME_SIMILARITY = 0.9;
/**
 * Under this, two words are different words, not one misspelt (`ada`, `alan`: 0.5): they add nothing
 * to a name's score.
 */
const LEAST_WORD_SIMILARITY = 0.6;
/** A candidate's word that no query word matched counts half against the name ("john smith jr"). */
const UNMATCHED_WORD_WEIGHT = 0.5;
/**
 * How far the words' score may lift a name: short of 1, so that only the name itself, letter for
 * letter once folded, scores 100 and can be certain.
 */
export const WORDS_WEIGHT = 0.95;

/**
 * How alike two folded words are, 0 to 1: 1 equal, 0.9 an initial of the other or a nickname of it,
 * else one less the edit distance (Levenshtein) over the longer's length, 0 under 0.6.
 */
export const wordSimilarity = (a: string, b: string): number => {
  if (a === b) return 1;
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  if (Array.from(shorter).length === 1) return longer.startsWith(shorter) ? INITIAL_SIMILARITY : 0;
  if (isNickname(a, b)) return NICKNAME_SIMILARITY;
  const similarity = 1 - distance(a, b) / Math.max(a.length, b.length);
  return similarity >= LEAST_WORD_SIMILARITY ? similarity : 0;
};

/**
 * How alike two folded names are word by word, in any order ("lovelace ada", "a. lovelace", "bill
 * gates", "ada lovelase" against "ada lovelace"): each query word takes the most alike word of the
 * candidate not taken yet, longest query word first; the score is their similarities weighted by the
 * query words' lengths, over those lengths and half the lengths of the candidate's words left over.
 */
export const wordsSimilarity = (query: string, candidate: string): number => {
  const queryWords = wordsOf(query).sort((a, b) => b.length - a.length);
  const candidateWords = wordsOf(candidate);
  if (queryWords.length === 0 || candidateWords.length === 0) return 0;
  const taken = new Set<number>();
  let matched = 0;
  let weight = 0;
  for (const word of queryWords) {
    let best = 0;
    let at = -1;
    candidateWords.forEach((other, index) => {
      if (taken.has(index)) return;
      const similarity = wordSimilarity(word, other);
      if (similarity > best) [best, at] = [similarity, index];
    });
    if (at >= 0) taken.add(at);
    const length = Array.from(word).length;
    matched += best * length;
    weight += length;
  }
  candidateWords.forEach((word, index) => {
    if (!taken.has(index)) weight += UNMATCHED_WORD_WEIGHT * Array.from(word).length;
  });
  return matched / weight;
};

/**
 * A candidate's name similarity, 0 to 1, for the best of the query's forms and the candidate's names:
 * the trigram similarity of the whole names, or, when higher, the words' similarity times
 * `WORDS_WEIGHT`. 1 only for a name equal to the query once folded.
 */
export const nameScore = (variants: readonly string[], names: readonly string[]): number => {
  let best = 0;
  const forms = names.map(comparableName);
  for (const variant of variants.map(comparableName))
    for (const name of forms)
      best = Math.max(best, nameSimilarity(variant, name), WORDS_WEIGHT * wordsSimilarity(variant, name));
  return best;
};

/** The trigram similarity alone, for the best pair of forms and names: how close a second is. */
const closenessOf = (variants: readonly string[], names: readonly string[]): number =>
  Math.max(
    0,
    ...variants.flatMap((variant) =>
      names.map((name) => nameSimilarity(comparableName(variant), comparableName(name))),
    ),
  );

/** What a candidate is scored on: its display name, its folded names, its normalised emails. */
export interface CandidateFacts {
  id: number;
  fullname: string;
  /** Folded: the fullname, every Name's "first last" and freeform name. */
  names: string[];
  firstNames: string[];
  lastNames: string[];
  emails: string[];
  /** The digits of its phone numbers (7 or more). */
  phones: string[];
}

export const factsOf = (person: Person): CandidateFacts => {
  const folded = (values: (string | null | undefined)[]) => [
    ...new Set(values.flatMap((value) => (value ? [fold(value)] : [])).filter(Boolean)),
  ];
  return {
    id: person.id,
    fullname: fullnameOfPerson(person),
    names: folded([
      fullnameOfPerson(person),
      ...person.Names.flatMap((name) => [
        [name.first_name, name.last_name].filter(Boolean).join(' '),
        name.freeform_name,
      ]),
    ]),
    firstNames: folded(person.Names.map((name) => name.first_name)),
    lastNames: folded(person.Names.map((name) => name.last_name)),
    emails: [...new Set(person.Emails.flatMap(({ email }) => (email ? [normaliseEmail(email)] : [])))],
    phones: phoneDigitsOf(person.PhoneNumbers.map(({ phone_number }) => phone_number)),
  };
};

/** One feature of a score: a number, or whether a piece of evidence agrees (true) or not (false). */
export interface Feature {
  id: string;
  value: number | boolean;
}

export interface ScoredCandidate {
  facts: CandidateFacts;
  score: number;
  /**
   * The score with the name's trigram similarity alone (not its words'): what decides whether another
   * candidate is a close second of the exact one (`CLOSE_SECOND`).
   */
  closeness: number;
  /** One of its names is one of the query's forms exactly (folded). */
  exactName: boolean;
  /** Holds an email sent (undefined: none was sent). */
  email: boolean | undefined;
  /** Something sent speaks against it: an email it does not hold, a first or last name it lacks. */
  contradicted: boolean;
  features: Feature[];
}

/** What a phone number the candidate shares adds to its score. */
export const SHARED_PHONE = 10;

/** The part of a normalised email address before its domain. */
const mailboxOf = (email: string) => email.slice(0, email.lastIndexOf('@'));

const agreement = (sent: string[], held: string[]): boolean | undefined =>
  sent.length === 0 ? undefined : sent.some((value) => held.includes(value));

const toScore = (raw: number) => Math.round(Math.min(100, Math.max(0, raw)) * 10) / 10;

export const scoreCandidate = (request: MatchRequest, facts: CandidateFacts): ScoredCandidate => {
  const similarity = nameScore(request.variants, facts.names);
  const email = agreement(request.emails, facts.emails);
  const first = agreement(request.firstNames, facts.firstNames);
  const last = agreement(request.lastNames, facts.lastNames);
  const adjust = (value: boolean | undefined) => (value === undefined ? 0 : value ? 5 : -10);
  // A person may have more emails than the one a spreadsheet knows: an email it lacks counts against
  // it only when it has one at all, and not when one of its own has the same mailbox at another domain
  // (`ada@newco.example` for `ada@oldco.example`: the same person at a new employer, most likely).
  const sameMailbox =
    email === false &&
    request.emails.some((sent) => facts.emails.some((held) => mailboxOf(held) === mailboxOf(sent)));
  const otherEmail = email === false && facts.emails.length > 0 && !sameMailbox;
  // A shared phone number speaks for a candidate; another one does not speak against it (a person has
  // several, and a spreadsheet may hold an old one).
  const phone =
    request.phones.length === 0
      ? undefined
      : request.phones.some((sent) => facts.phones.some((held) => samePhone(sent, held)));
  const evidence = adjust(first) + adjust(last) - (otherEmail ? 10 : 0) + (phone ? SHARED_PHONE : 0);
  const features: Feature[] = [{ id: 'name', value: Math.round(similarity * 1000) / 1000 }];
  if (email !== undefined) features.push({ id: 'email', value: email });
  if (sameMailbox) features.push({ id: 'email_mailbox', value: true });
  if (phone !== undefined) features.push({ id: 'phones', value: phone });
  if (first !== undefined) features.push({ id: 'first_name', value: first });
  if (last !== undefined) features.push({ id: 'last_name', value: last });
  return {
    facts,
    score: toScore(email === true ? 100 : 100 * similarity + evidence),
    closeness: toScore(email === true ? 100 : 100 * closenessOf(request.variants, facts.names) + evidence),
    exactName: similarity === 1,
    email,
    contradicted: otherEmail || first === false || last === false,
    features,
  };
};

export interface Candidate extends ScoredCandidate {
  match: boolean;
}

/** Best first: score, then the email holder, the exact name, the lower id (older record): a stable order. */
const byScore = (a: ScoredCandidate, b: ScoredCandidate) =>
  b.score - a.score ||
  Number(b.email === true) - Number(a.email === true) ||
  Number(b.exactName) - Number(a.exactName) ||
  a.facts.id - b.facts.id;

/**
 * Every candidate scored, the certain one (if any) marked, best first, cut to the request's limit.
 * Certainty is decided on all candidates found, before the cut: a namesake below the limit still
 * makes an exact name uncertain.
 */
export const rankCandidates = (request: MatchRequest, found: readonly CandidateFacts[]): Candidate[] => {
  const distinct = [...new Map(found.map((facts) => [facts.id, facts])).values()];
  // A query written family name first without a comma ("Park Jun Ho") is also compared with the
  // candidates' names it is a word order of ("jun ho park"), as "Last, First" is with "First Last":
  // that name is then exact, and certain only when no other candidate's is the query's (in any of
  // these orders) and none comes close to it.
  const reordered = [...new Set(distinct.flatMap((facts) => reorderedNames(request.variants, facts.names)))];
  const asked =
    reordered.length === 0 ? request : { ...request, variants: [...request.variants, ...reordered] };
  const scored = distinct.map((facts) => scoreCandidate(asked, facts)).sort(byScore);
  const byEmail = scored.filter((candidate) => candidate.email === true);
  const exact = scored.filter((candidate) => candidate.exactName);
  let certain: ScoredCandidate | undefined;
  if (byEmail.length === 1) certain = byEmail[0];
  else if (byEmail.length === 0 && exact.length === 1) {
    const [only] = exact as [ScoredCandidate];
    const closeSecond = scored.some(
      (candidate) => candidate !== only && candidate.closeness >= only.closeness - CLOSE_SECOND,
    );
    if (!closeSecond && !only.contradicted) certain = only;
  }
  return scored.slice(0, request.limit).map((candidate) => ({ ...candidate, match: candidate === certain }));
};

// --- Answers ------------------------------------------------------------------------------------

export interface ServiceLinks {
  baseUrl: string;
  contextUrl: string;
}

/** The service manifest (spec 0.2 "Service manifest"): what OpenRefine reads when the service is added. */
export const manifestOf = ({ baseUrl, contextUrl }: ServiceLinks) => {
  const service = `${baseUrl}/reconcile`;
  return {
    versions: ['0.2'],
    name: 'Authority Person Service',
    identifierSpace: `${baseUrl}/Person/`,
    schemaSpace: contextUrl,
    documentation: `${baseUrl}/docs`,
    defaultTypes: [{ ...PERSON_ENTITY_TYPE }],
    view: { url: `${baseUrl}/Person/{{id}}` },
    preview: { url: `${service}/preview?id={{id}}`, width: 400, height: 120 },
    suggest: {
      entity: { service_url: service, service_path: '/suggest/entity' },
      property: { service_url: service, service_path: '/suggest/property' },
      type: { service_url: service, service_path: '/suggest/type' },
    },
    extend: {
      propose_properties: { service_url: service, service_path: '/properties' },
      property_settings: [],
    },
  };
};

/** A query's answer: `type` is an array (OpenRefine drops the whole job on a single object). */
export const resultOf = (candidates: readonly Candidate[], visibility: Visibility = ALL_VISIBLE) => ({
  result: candidates.map((candidate) => ({
    id: String(candidate.facts.id),
    name: candidate.facts.fullname,
    type: [{ ...PERSON_ENTITY_TYPE }],
    score: candidate.score,
    match: candidate.match,
    features: candidate.features.filter(
      (feature) => !isReconcileProperty(feature.id) || isVisible(visibility, feature.id),
    ),
  })),
});

/** The properties proposed for data extension: those visible, `limit` at most. */
export const proposedProperties = (visibility: Visibility, limit?: number) => {
  const visible = RECONCILE_PROPERTIES.filter(({ id }) => isVisible(visibility, id));
  return {
    type: PERSON_ENTITY_TYPE.id,
    properties: visible.slice(0, limit ?? visible.length).map((property) => ({ ...property })),
    ...(limit === undefined ? {} : { limit }),
  };
};

/** The suggest entries of the properties or types whose name or id starts a word with the prefix. */
export const suggestTerms = (kind: 'property' | 'type', prefix: string, visibility: Visibility) => {
  const wanted = fold(prefix);
  const terms =
    kind === 'type'
      ? [{ ...PERSON_ENTITY_TYPE }]
      : RECONCILE_PROPERTIES.filter(({ id }) => isVisible(visibility, id)).map((term) => ({ ...term }));
  const starts = (text: string) =>
    fold(text)
      .split(/[\s_]/)
      .some((word) => word.startsWith(wanted));
  return {
    result: terms.filter(
      (term) => wanted === '' || starts(term.name) || starts(term.id) || fold(term.name).startsWith(wanted),
    ),
  };
};

/** A person's values of one property, as data extension cells (`{str}`). */
export const propertyValues = (person: Person, property: ReconcileProperty): { str: string }[] => {
  const strings = (values: (string | null | undefined)[]) =>
    values.flatMap((value) => (value && value.trim() !== '' ? [{ str: value }] : []));
  const primaryName = primaryOf(person.Names) ?? person.Names[0];
  switch (property) {
    case 'fullname':
      return strings([fullnameOfPerson(person)]);
    case 'first_name':
      return strings([primaryName?.first_name]);
    case 'last_name':
      return strings([primaryName?.last_name]);
    case 'email':
      return strings([(primaryOf(person.Emails) ?? person.Emails[0])?.email]);
    case 'names':
      return strings(
        person.Names.map(
          (name) =>
            [name.first_name, name.middle_initial, name.last_name].filter(Boolean).join(' ') ||
            name.freeform_name,
        ),
      );
    case 'emails':
      return strings(person.Emails.map(({ email }) => email));
    case 'phones':
      return strings(person.PhoneNumbers.map(({ phone_number }) => phone_number));
    case 'addresses':
      return strings(
        person.PostalAddresses.map((address) =>
          [
            address.address1,
            address.address2,
            [address.postal_code, address.city].filter(Boolean).join(' '),
            address.state_territory_province,
            address.country ?? address.country_code,
          ]
            .filter((part) => part && part.trim() !== '')
            .join(', '),
        ),
      );
  }
};

/** The person id an extension or preview id names, or undefined (then its row stays empty). */
export const personIdOfEntity = (id: string): number | undefined => {
  const value = Number(id);
  return /^[1-9]\d{0,15}$/.test(id) && Number.isSafeInteger(value) ? value : undefined;
};

/**
 * The data extension answer: `meta` for each property asked (in its order), `rows` keyed by the ids
 * exactly as sent; an id that names no person (or not a visible property) gets empty cells.
 */
export const extensionOf = (
  query: ExtendQuery,
  persons: ReadonlyMap<number, Person>,
  visibility: Visibility,
) => {
  const properties = query.properties.map(({ id }) => id);
  const meta = properties.map((id) => ({
    id,
    name: RECONCILE_PROPERTIES.find((property) => property.id === id)?.name ?? id,
  }));
  const rows: Record<string, Record<string, { str: string }[]>> = {};
  for (const id of query.ids) {
    const personId = personIdOfEntity(id);
    const person = personId === undefined ? undefined : persons.get(personId);
    rows[id] = Object.fromEntries(
      properties.map((property) => [
        property,
        person && isReconcileProperty(property) && isVisible(visibility, property)
          ? propertyValues(person, property)
          : [],
      ]),
    );
  }
  return { meta, rows };
};

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (character) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] as string,
  );

/** The preview card: the name, the id and the visible details, every value escaped. */
export const previewHtml = (person: Person, visibility: Visibility, personUrl: string): string => {
  const details = (['email', 'phones', 'addresses'] as const)
    .filter((property) => isVisible(visibility, property))
    .flatMap((property) => propertyValues(person, property).slice(0, 2))
    .map(({ str }) => `<div class="d">${escapeHtml(str)}</div>`)
    .join('');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>' +
    `${escapeHtml(fullnameOfPerson(person))}</title><style>body{font:14px/1.4 sans-serif;margin:8px}` +
    '.n{font-weight:bold;font-size:16px}.d,.i{color:#555}</style></head><body>' +
    `<div class="n">${escapeHtml(fullnameOfPerson(person))}</div>` +
    `<div class="i">Person <a href="${escapeHtml(personUrl)}" target="_blank" rel="noopener">${person.id}</a></div>` +
    `${details}</body></html>`
  );
};

/** A JSONP callback name: a dotted JavaScript identifier path (`jQuery3600_123`, `a.b`), short. */
export const isCallbackName = (name: string): boolean =>
  name.length <= 128 && /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(name);

/** A JSON answer as a JSONP script. The comment keeps a name from starting the body (Rosetta Flash). */
export const jsonpOf = (callback: string, json: string): string => `/**/ ${callback}(${json});`;
