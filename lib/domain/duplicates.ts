/**
 * Duplicates under review (API.md 12.1, issue #57): which two stored persons make a duplicate pair, its
 * score, grade and evidence, its id, and what a steward's decision on it may do. Pure: no I/O, no AWS;
 * nothing here is wired in yet (the detector, the queue and the decision route are later steps).
 *
 * A person is checked against the store as a reconciliation query of itself (`matchRequestOfPerson`),
 * so that a pair is scored by section 12's own rules (lib/domain/reconcile.ts, not a copy), and then
 * with the evidence a stored record has beyond what a query sends:
 * - a shared phone number (section 12's `phones`, by `samePhone`: `+44 20 7946 0958` is `020 7946 0958`);
 * - a shared postal address (`addresses`): the first line folded (case, accents, punctuation and white
 *   space, `St`/`Street`, `Rd`/`Road`, `Ave`/`Avenue` and other common abbreviations made one) and
 *   equal, with an equal postal code or city;
 * - an email's mailbox at another domain (section 12's `email_mailbox`: `ada@newco.example` for
 *   `ada@oldco.example`), which here counts for the pair (a query only stops it counting against).
 *
 * The pair's score is the better of the two directions (each person as the query, the other as the
 * candidate): section 12's score is not symmetric (a candidate's words the query lacks count half
 * against it; a first name sent counts against a candidate holding only a freeform name), and a pair
 * must score the same whichever of its persons changed last.
 */
import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';
import { type ErasedPerson, isErasedPerson } from './erasure';
import { isMergedPerson, type MergedPerson } from './merge';
import type { Person } from './person';
import { integer, unknownParameters } from './query-parameters';
import {
  type CandidateFacts,
  type Feature,
  factsOf,
  type MatchRequest,
  matchRequestOfFacts,
  rankCandidates,
  type ScoredCandidate,
  samePhone,
} from './reconcile';
import { positiveId } from './schemas';
import { fold } from './text';

// --- Thresholds ---------------------------------------------------------------------------------

/**
 * The grades' score thresholds, tuned on the labelled tuning set of the bench (test/bench/duplicate-set.ts,
 * `npm run bench -- --only duplicates`; docs/matching.md shows its figures beside the held-out set's):
 * - `PROBABLE_SCORE` 90: an exact name (100, section 12's +5 for an agreeing first and last name
 *   included), or a close one (a typo, a nickname: 80 to 89 alone) with a shared phone or address
 *   (+10); not a close name alone (an initial with its first name's 10 off stays under 90). A pair
 *   that something speaks against (each holds emails, or phone numbers, of its own and none in
 *   common; another first or last name) is probable only with evidence beyond the name (a phone, an
 *   address, a mailbox): namesakes who each hold their own email (the namesakes the uniqueness rule of
 *   API.md 5.5 lets in) score 100 and are only possible;
 * - `PROBABLE_WITH_EVIDENCE` 80: with evidence beyond the name, a name close enough to be possible on
 *   its own (70 and more before the evidence's +10) is probable: a typo, a family name of two written
 *   as one, a nickname, each with a shared phone or address (on the tuning set they scored 72 to 89
 *   and were all possible at 90 alone); a household (another first name, one phone and address) stays
 *   under 75;
 * - `POSSIBLE_SCORE` 70: a close name alone (a typo with its last name's 10 off: 81; with emails of
 *   their own: 71), "John Smith Jr" beside "John Smith" (80); not a household (58);
 * - `DUPLICATE_THRESHOLD`: below it no pair is made. It is `POSSIBLE_SCORE`: a pair is at least
 *   possible, or it is not proposed (a `certain` pair always scores above it).
 * Another middle initial or suffix (a father and his son) makes a pair at most possible, whatever
 * else the two share.
 */
export const PROBABLE_SCORE = 90;
export const PROBABLE_WITH_EVIDENCE = 80;
export const POSSIBLE_SCORE = 70;
export const DUPLICATE_THRESHOLD = POSSIBLE_SCORE;

/** What a postal address two persons share adds to the pair's score (as a shared phone, `SHARED_PHONE`). */
export const SHARED_ADDRESS = 10;
/**
 * What an email's mailbox at another domain adds: less than a phone, since a mailbox is often the name
 * itself (`john.smith@`), which namesakes share.
 */
export const SHARED_MAILBOX = 5;

/**
 * The `type` of a pair's item in the table: the feed's appender turns its INSERT (a pair found for the
 * first time) into a `duplicate.detected` event (API.md 12.1, 14).
 */
export const DUPLICATE_PAIR_TYPE = 'DuplicatePair';

/**
 * The events that may change a person's pairs: a person created or changed (its names, emails, phone
 * numbers or addresses), merged into another (its pairs leave the queue; its survivor's `updated`
 * checks the survivor), live again after an unmerge (checked as a created one is) or erased.
 */
export const DETECTOR_EVENTS = [
  'person.created',
  'person.updated',
  'person.merged',
  'person.unmerged',
  'person.erased',
] as const;

// --- Pair ids -----------------------------------------------------------------------------------

/** A pair's id: its two person ids, lower first (`30863-41207`), whichever order they come in. */
export const pairIdOf = (a: number, b: number): string => `${Math.min(a, b)}-${Math.max(a, b)}`;

const PAIR_ID = /^([1-9]\d{0,15})-([1-9]\d{0,15})$/;

/**
 * The two person ids of a pair id, or undefined when it is no pair's: two positive safe integers in
 * decimal without leading zeros, distinct, lower first (so that one pair has one id).
 */
export const personsOfPairId = (id: string): [number, number] | undefined => {
  const [, lower, higher] = PAIR_ID.exec(id) ?? [];
  const a = Number(lower);
  const b = Number(higher);
  return Number.isSafeInteger(a) && Number.isSafeInteger(b) && a < b ? [a, b] : undefined;
};

// --- What a pair is scored on -------------------------------------------------------------------

/** A person as a pair is scored on it: section 12's facts and its postal addresses' comparison forms. */
export interface DuplicateFacts extends CandidateFacts {
  /** `addressKeysOf` its PostalAddresses: what two persons' addresses are compared by. */
  addresses: string[];
  /**
   * What tells a father from his son beyond section 12's names ("first last", without them): its
   * Names' middle initials (folded, letters only) and suffixes (`name_suffix_fk`: Jr., Sr., III).
   */
  middleInitials: string[];
  suffixes: number[];
}

/**
 * Words of an address line written short and long: each is made its long form, so that `12 Baker St.`
 * and `12 baker street` are one line. English, French and German street types; `st` is also "Saint"
 * (`St John's Rd`), which does no harm, both lines being read alike.
 */
const ADDRESS_WORDS: Readonly<Record<string, string>> = {
  st: 'street',
  str: 'strasse',
  rd: 'road',
  ave: 'avenue',
  av: 'avenue',
  blvd: 'boulevard',
  bd: 'boulevard',
  dr: 'drive',
  ln: 'lane',
  ct: 'court',
  pl: 'place',
  sq: 'square',
  cres: 'crescent',
  terr: 'terrace',
  ter: 'terrace',
  hwy: 'highway',
  pkwy: 'parkway',
  apt: 'apartment',
  ste: 'suite',
  fl: 'floor',
  no: 'number',
  n: 'north',
  s: 'south',
  e: 'east',
  w: 'west',
};

/**
 * An address's text as addresses are compared: folded (case, accents, invisible characters), every
 * run of punctuation and white space one space, and each abbreviation of `ADDRESS_WORDS` its long form.
 */
export const foldAddressText = (text: string | null | undefined): string =>
  fold(text ?? '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean)
    .map((word) => ADDRESS_WORDS[word] ?? word)
    .join(' ');

/** A postal code as codes are compared: folded, without spaces or punctuation (`SW1A 1AA`, `sw1a1aa`). */
const foldPostalCode = (code: string | null | undefined): string =>
  fold(code ?? '').replace(/[^\p{L}\p{N}]+/gu, '');

type AddressFields = Pick<Person['PostalAddresses'][number], 'address1' | 'city' | 'postal_code'>;

/**
 * The forms a person's addresses are compared by: each first line (folded) with its postal code, and
 * with its city. Two persons share an address when one of their forms is equal: the same first line
 * and the same postal code or city. An address without a first line, or with neither code nor city,
 * is no evidence (a city alone is shared by millions).
 */
export const addressKeysOf = (addresses: readonly AddressFields[]): string[] => [
  ...new Set(
    addresses.flatMap(({ address1, city, postal_code }) => {
      const line = foldAddressText(address1);
      if (line === '') return [];
      const code = foldPostalCode(postal_code);
      const town = foldAddressText(city);
      return [...(code ? [`${line}|postcode:${code}`] : []), ...(town ? [`${line}|city:${town}`] : [])];
    }),
  ),
];

/** A stored person that is neither merged into another nor erased: the only kind a pair is made of. */
type Stored = Person | MergedPerson | ErasedPerson;
const isLive = (stored: Stored): stored is Person => !isMergedPerson(stored) && !isErasedPerson(stored);

/**
 * What a pair is scored on for a stored person; undefined for a merged or an erased one (API.md 12.1:
 * they are in no pair), so that a caller handing over what it read cannot pair a tombstone.
 */
export const duplicateFactsOf = (stored: Stored): DuplicateFacts | undefined =>
  isLive(stored)
    ? {
        ...factsOf(stored),
        addresses: addressKeysOf(stored.PostalAddresses),
        middleInitials: [
          ...new Set(
            stored.Names.map(({ middle_initial }) => fold(middle_initial ?? '').replace(/[^\p{L}]/gu, '')),
          ),
        ].filter(Boolean),
        suffixes: [
          ...new Set(stored.Names.flatMap(({ name_suffix_fk }) => (name_suffix_fk ? [name_suffix_fk] : []))),
        ],
      }
    : undefined;

/** Both hold values of a kind, and none in common: "John A Smith" and "John B Smith", Jr. and Sr. */
const differ = <T>(mine: readonly T[], theirs: readonly T[]) =>
  mine.length > 0 && theirs.length > 0 && !mine.some((value) => theirs.includes(value));

/**
 * The section 12 request a stored person makes when it is checked against the store (its names as
 * the query's forms, its first and last names, emails and phones): what the detector looks its
 * candidates up by, and what each candidate is scored against.
 */
export const matchRequestOfPerson = (person: Person): MatchRequest => matchRequestOfFacts(factsOf(person));

// --- Scoring a pair -----------------------------------------------------------------------------

export const GRADES = ['certain', 'probable', 'possible'] as const;
export type Grade = (typeof GRADES)[number];

/** A pair as the matcher makes it: what the queue stores, with when and how it stands. */
export interface ScoredPair {
  id: string;
  /** Lower id first. */
  persons: [number, number];
  /** 0 to 100, one decimal. */
  score: number;
  /** Undefined: below `DUPLICATE_THRESHOLD` and not certain, no pair. */
  grade: Grade | undefined;
  features: Feature[];
}

/** One person as the query, the other as the only candidate: section 12's score, its rules in full. */
const directed = (query: DuplicateFacts, candidate: DuplicateFacts): ScoredCandidate => {
  const [scored] = rankCandidates(matchRequestOfFacts(query), [candidate]);
  return scored as ScoredCandidate;
};

const toScore = (raw: number) => Math.round(Math.min(100, Math.max(0, raw)) * 10) / 10;

/**
 * The pair of two persons: its score (the better of the two directions, with the evidence beyond
 * names), its features and its grade. `certain` is evidence that the two records are one person: an
 * email both hold (section 12's decisive evidence, which answers `match: true`; an email is one
 * person's, API.md 5.5), or the same phone number with the same name (exactly, once folded) when
 * nothing speaks against it (emails or phones of their own, other first or last names, another middle
 * initial or suffix). Never a name alone, however exact: namesakes are at most `probable`. Below that,
 * the grade is the score's: `probable` from `PROBABLE_WITH_EVIDENCE` with evidence beyond the name,
 * from `PROBABLE_SCORE` without it when nothing speaks against the pair; never for another middle
 * initial or suffix.
 */
export const scorePair = (a: DuplicateFacts, b: DuplicateFacts): ScoredPair => {
  const [lower, higher] = a.id <= b.id ? [a, b] : [b, a];
  const forward = directed(lower, higher);
  const backward = directed(higher, lower);
  const best = backward.score > forward.score ? backward : forward;
  const sharedPhone = lower.phones.some((mine) => higher.phones.some((theirs) => samePhone(mine, theirs)));
  const sharedAddress =
    lower.addresses.length === 0 || higher.addresses.length === 0
      ? undefined
      : lower.addresses.some((key) => higher.addresses.includes(key));
  const sameMailbox = best.features.some(({ id, value }) => id === 'email_mailbox' && value === true);
  const score = toScore(
    best.score + (sharedAddress ? SHARED_ADDRESS : 0) + (sameMailbox ? SHARED_MAILBOX : 0),
  );
  const sharedEmail = forward.email === true || backward.email === true;
  // Something speaks against them only when it does whichever of the two is asked: a first name
  // sent counts against a person holding a freeform name only, which the other direction does not.
  // Section 12 compares a Name's "first last": another middle initial or suffix tells two persons of
  // one name apart, whatever else they share (a father and his son share an address and a phone).
  const anotherPerson =
    differ(lower.middleInitials, higher.middleInitials) || differ(lower.suffixes, higher.suffixes);
  // Phone numbers of their own and none in common speak against them as emails of their own do.
  const otherPhones = lower.phones.length > 0 && higher.phones.length > 0 && !sharedPhone;
  const contradicted = (forward.contradicted && backward.contradicted) || anotherPerson || otherPhones;
  const sameName = forward.exactName || backward.exactName;
  const certain = sharedEmail || (sameName && sharedPhone && !contradicted);
  const beyondName = sharedPhone || sharedAddress === true || sameMailbox;
  const grade: Grade | undefined = certain
    ? 'certain'
    : !anotherPerson &&
        (beyondName ? score >= PROBABLE_WITH_EVIDENCE : score >= PROBABLE_SCORE && !contradicted)
      ? 'probable'
      : score >= POSSIBLE_SCORE
        ? 'possible'
        : undefined;
  return {
    id: pairIdOf(lower.id, higher.id),
    persons: [lower.id, higher.id],
    score,
    grade,
    features: [
      ...best.features,
      ...(sharedAddress === undefined ? [] : [{ id: 'addresses', value: sharedAddress }]),
    ],
  };
};

/** Best first: the score, then the lower pair id (its persons compared as numbers). */
export const byScoreThenId = (a: QueuePosition, b: QueuePosition): number =>
  b.score - a.score || a.persons[0] - b.persons[0] || a.persons[1] - b.persons[1];

/**
 * The pairs a person makes with the candidates found for it: each one graded (at or above
 * `DUPLICATE_THRESHOLD`, or certain), best first, ties by id. Never the person with itself, a
 * candidate twice, or a merged or erased person (the caller passes live ones; what it read is not
 * trusted to be). Each pair stands on its own evidence: other candidates found do not make it less
 * certain (section 12's close second is about which one record a query means; here every record that
 * is the person is a duplicate of it).
 */
export const pairsOf = (
  person: Stored,
  candidates: readonly (DuplicateFacts | undefined)[],
): (ScoredPair & { grade: Grade })[] => {
  const facts = duplicateFactsOf(person);
  if (!facts) return [];
  const others = new Map<number, DuplicateFacts>();
  for (const candidate of candidates)
    if (candidate && candidate.id !== facts.id) others.set(candidate.id, candidate);
  return [...others.values()]
    .map((candidate) => scorePair(facts, candidate))
    .filter((pair): pair is ScoredPair & { grade: Grade } => pair.grade !== undefined)
    .sort(byScoreThenId);
};

// --- The pair on the wire, and decisions --------------------------------------------------------

export const PAIR_STATUSES = ['open', 'not-duplicate', 'merged', 'resolved'] as const;
export type PairStatus = (typeof PAIR_STATUSES)[number];

/** A pair id as a string: lower id, a hyphen, higher id. */
const pairId = z.string().refine((id) => personsOfPairId(id) !== undefined, {
  error: 'A pair id is two person ids, lower first, joined by a hyphen, as in "30863-41207"',
});

/** A pair as API.md 12.1 answers it; `decided_by` and `decided` once a steward decided it. */
export const DuplicatePairOut = z.object({
  '@type': z.literal('DuplicatePair'),
  id: pairId,
  persons: z.tuple([positiveId, positiveId]),
  score: z.number().min(0).max(100),
  grade: z.enum(GRADES),
  features: z.array(z.object({ id: z.string(), value: z.union([z.number(), z.boolean()]) })),
  detected: z.iso.datetime(),
  status: z.enum(PAIR_STATUSES),
  decided_by: positiveId.optional(),
  decided: z.iso.datetime().optional(),
});
export type DuplicatePair = z.output<typeof DuplicatePairOut>;

/** A pair the matcher graded, as it first enters the queue: open. */
export const openPairOf = (scored: ScoredPair & { grade: Grade }, detected: string): DuplicatePair => ({
  '@type': 'DuplicatePair',
  id: scored.id,
  persons: scored.persons,
  score: scored.score,
  grade: scored.grade,
  features: scored.features,
  detected,
  status: 'open',
});

/** What a body without a known `decision` is told. */
export const DECISION_REQUIRED =
  'decision is "not-duplicate" or "merge", as in {"decision": "not-duplicate"} or {"decision": "merge", "survivor": 30863}';

/**
 * POST /duplicates/{pairId}/decision (API.md 12.1): `not-duplicate`, or `merge` with the survivor
 * (one of the pair's two persons, checked by `decisionCheck` against the pair).
 */
export const DecisionBody = z.discriminatedUnion(
  'decision',
  [
    z.strictObject({ decision: z.literal('not-duplicate') }),
    z.strictObject({
      decision: z.literal('merge'),
      survivor: positiveId.describe('The one of the two persons the other is merged into'),
    }),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? DECISION_REQUIRED : undefined) },
);
export type DecisionBody = z.output<typeof DecisionBody>;

/**
 * What a decision on a pair may do, before anything is written: a pair no longer `open` is not
 * decided again (409 `pair-decided`, with its status); a survivor that is neither of the two persons is
 * a refused body (400, `/survivor`). Otherwise what to do: remember the pair, or merge `source` into
 * `survivor` as API.md 13 does.
 */
export type DecisionCheck =
  | { ok: true; decision: 'not-duplicate' }
  | { ok: true; decision: 'merge'; survivor: number; source: number }
  | { ok: false; problem: 'pair-decided'; status: Exclude<PairStatus, 'open'> }
  | { ok: false; problem: 'survivor-not-in-pair'; pointer: '/survivor'; message: string };

export const decisionCheck = (
  pair: Pick<DuplicatePair, 'persons' | 'status'>,
  body: DecisionBody,
): DecisionCheck => {
  if (pair.status !== 'open') return { ok: false, problem: 'pair-decided', status: pair.status };
  if (body.decision === 'not-duplicate') return { ok: true, decision: 'not-duplicate' };
  const [lower, higher] = pair.persons;
  if (body.survivor !== lower && body.survivor !== higher)
    return {
      ok: false,
      problem: 'survivor-not-in-pair',
      pointer: '/survivor',
      message: `The survivor is one of the pair's persons, ${lower} or ${higher}, not ${body.survivor}`,
    };
  return {
    ok: true,
    decision: 'merge',
    survivor: body.survivor,
    source: body.survivor === lower ? higher : lower,
  };
};

/** The pair once decided: its new status, the requester and the time. */
export const decidedPair = (
  pair: DuplicatePair,
  decision: 'not-duplicate' | 'merged',
  requester: number,
  now: string,
): DuplicatePair => ({ ...pair, status: decision, decided_by: requester, decided: now });

// --- What a check of a person changes in the queue ----------------------------------------------

/** A pair as the store keeps it: the pair, the id of its `duplicate.detected` event, and its revision. */
export interface StoredPair {
  pair: DuplicatePair;
  /** The feed event's id (API.md 14), taken when the pair was first found. */
  eventId: number;
  /** 1 when first written, one more at each change: a write lands only on the revision it read. */
  revision: number;
}

/** What a check writes: a pair found for the first time, or one whose score, grade or status changed. */
export type PairChange =
  | { kind: 'create'; pair: DuplicatePair }
  | { kind: 'update'; before: StoredPair; pair: DuplicatePair };

/** Two pairs alike in all a check writes (their features' keys in any order, as storage hands them back). */
const samePair = (a: DuplicatePair, b: DuplicatePair) => isDeepStrictEqual(a, b);

/** A pair back in the open queue, as the matcher scores it now (a decision it had no longer stands). */
const reopened = (
  { decided_by: _by, decided: _at, ...pair }: DuplicatePair,
  scored: ScoredPair & { grade: Grade },
): DuplicatePair => ({
  ...pair,
  score: scored.score,
  grade: scored.grade,
  features: scored.features,
  status: 'open',
});

/**
 * What a check of person `personId` changes, from the pairs the matcher made for it now (`scored`:
 * empty when it is merged into another or erased) and the pairs the store holds of it (`stored`,
 * whatever their status): each pair new to the store is created open; an open, resolved or merged one
 * takes the new score and grade and is open again (a merge undone, API.md 13.1, brings its pair back);
 * a `not-duplicate` pair stays as the steward left it, forever (API.md 12.1); an open pair the matcher
 * no longer makes (its other person merged or erased, or the two no longer alike) leaves the queue as
 * `resolved`. A pair that would not change is not written: a check delivered twice writes nothing the
 * second time.
 */
export const pairChanges = (
  personId: number,
  scored: readonly (ScoredPair & { grade: Grade })[],
  stored: readonly StoredPair[],
  now: string,
): PairChange[] => {
  const held = new Map(
    stored.filter(({ pair }) => pair.persons.includes(personId)).map((entry) => [entry.pair.id, entry]),
  );
  const changes: PairChange[] = [];
  const made = new Set<string>();
  for (const pair of scored) {
    if (!pair.persons.includes(personId) || made.has(pair.id)) continue;
    made.add(pair.id);
    const before = held.get(pair.id);
    if (!before) changes.push({ kind: 'create', pair: openPairOf(pair, now) });
    else if (before.pair.status !== 'not-duplicate') {
      const after = reopened(before.pair, pair);
      if (!samePair(before.pair, after)) changes.push({ kind: 'update', before, pair: after });
    }
  }
  for (const before of held.values())
    if (before.pair.status === 'open' && !made.has(before.pair.id))
      changes.push({ kind: 'update', before, pair: { ...before.pair, status: 'resolved' } });
  return changes;
};

// --- The queue: its query, order and cursor -----------------------------------------------------

export const DUPLICATES_DEFAULTS = { limit: 50, maxLimit: 100, maxCursorLength: 64 } as const;

/** Where a pair stands in the queue's order (best score first, then id): what a cursor holds. */
export interface QueuePosition {
  score: number;
  persons: [number, number];
}

const CURSOR_VERSION = 'd1';

/**
 * The cursor after a pair: its place in the queue's order, opaque to clients (base64url). It names
 * a position only, never a pair or a person's data: an altered one moves a page, nothing more.
 */
export const encodeDuplicatesCursor = ({ score, persons }: QueuePosition): string =>
  Buffer.from(`${CURSOR_VERSION}:${Math.round(score * 10)}:${persons[0]}:${persons[1]}`).toString(
    'base64url',
  );

/** The position a cursor holds, or undefined when it is no cursor of the queue's. */
export const decodeDuplicatesCursor = (cursor: string): QueuePosition | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const match = /^d1:(\d{1,4}):([1-9]\d{0,15}):([1-9]\d{0,15})$/.exec(
    Buffer.from(cursor, 'base64url').toString(),
  );
  if (!match) return undefined;
  const tenths = Number(match[1]);
  const persons = personsOfPairId(`${match[2]}-${match[3]}`);
  return tenths <= 1000 && persons ? { score: tenths / 10, persons } : undefined;
};

/** Whether `pair` comes after `position` in the queue's order (best score first, then id). */
export const isAfter = (pair: QueuePosition, position: QueuePosition): boolean =>
  byScoreThenId(position, pair) < 0;

const NOT_A_DUPLICATES_CURSOR =
  'Not a cursor of the duplicates queue: send the `next` of a page it answered, or leave `after` out to start at the best pair';

/** `grade`: one grade or several, comma-separated (`certain,probable`). */
const gradeList = z
  .string()
  .transform((text) => text.split(','))
  .pipe(
    z
      .array(z.enum(GRADES, { error: `A grade is one of ${GRADES.join(', ')}` }))
      .min(1)
      .transform((grades) => [...new Set(grades)]),
  );

/**
 * `GET /duplicates` (API.md 12.1): `status` (default `open`), `grade` (one or more, default every
 * grade), `person`, `limit` 1..100 (default 50) and `after`, the `next` of an earlier page.
 */
export const DuplicatesQuery = z.strictObject(
  {
    status: z.enum(PAIR_STATUSES, { error: `status is one of ${PAIR_STATUSES.join(', ')}` }).optional(),
    grade: gradeList.optional(),
    person: z
      .string()
      .regex(/^[1-9]\d{0,15}$/, 'A person id is a positive whole number')
      .transform(Number)
      .pipe(positiveId)
      .optional(),
    limit: integer(1, DUPLICATES_DEFAULTS.maxLimit).optional(),
    after: z
      .string()
      .max(DUPLICATES_DEFAULTS.maxCursorLength, NOT_A_DUPLICATES_CURSOR)
      .transform((cursor, context): QueuePosition => {
        const position = decodeDuplicatesCursor(cursor);
        if (position) return position;
        context.addIssue({ code: 'custom', message: NOT_A_DUPLICATES_CURSOR });
        return z.NEVER;
      })
      .optional(),
  },
  unknownParameters,
);

/** A read of the queue, as storage takes it. */
export interface PairQuery {
  status: PairStatus;
  grades: readonly Grade[];
  person?: number;
  limit: number;
  after?: QueuePosition;
}

export const pairQueryOf = ({
  status,
  grade,
  person,
  limit,
  after,
}: z.output<typeof DuplicatesQuery>): PairQuery => ({
  status: status ?? 'open',
  grades: grade ?? [...GRADES],
  ...(person === undefined ? {} : { person }),
  limit: limit ?? DUPLICATES_DEFAULTS.limit,
  ...(after ? { after } : {}),
});

/**
 * The page of the queue from the pairs read (any order, more than the page may hold): those the query
 * asks for after its position, best first, at most `limit`, and the cursor after the last when more
 * follow.
 */
export const queuePage = (
  pairs: readonly DuplicatePair[],
  { status, grades, person, limit, after }: PairQuery,
): { pairs: DuplicatePair[]; next: string | null } => {
  const wanted = pairs
    .filter(
      (pair) =>
        pair.status === status &&
        grades.includes(pair.grade) &&
        (person === undefined || pair.persons.includes(person)) &&
        (!after || isAfter(pair, after)),
    )
    .sort(byScoreThenId);
  const page = wanted.slice(0, limit);
  const last = page.at(-1);
  return { pairs: page, next: wanted.length > limit && last ? encodeDuplicatesCursor(last) : null };
};

/** `GET /duplicates`' answer (API.md 12.1). */
export const duplicatePage = (pairs: DuplicatePair[], next: string | null) => ({
  '@type': 'DuplicatePage' as const,
  pairs,
  next,
});
