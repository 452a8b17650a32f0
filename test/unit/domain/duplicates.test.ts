/**
 * Duplicate pairs (API.md 12.1, issue #57 step 1): ids, scores, grades and evidence, and the checks
 * of a steward's decision. Pure: persons are built as a create would store them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addressKeysOf,
  byScoreThenId,
  DECISION_REQUIRED,
  DecisionBody,
  DUPLICATE_THRESHOLD,
  type DuplicateFacts,
  type DuplicatePair,
  DuplicatePairOut,
  DuplicatesQuery,
  decidedPair,
  decisionCheck,
  decodeDuplicatesCursor,
  duplicateFactsOf,
  encodeDuplicatesCursor,
  foldAddressText,
  matchRequestOfPerson,
  openPairOf,
  PROBABLE_SCORE,
  pairChanges,
  pairIdOf,
  pairQueryOf,
  pairsOf,
  personsOfPairId,
  queuePage,
  SHARED_ADDRESS,
  SHARED_MAILBOX,
  type StoredPair,
  scorePair,
} from '../../../lib/domain/duplicates';
import { tombstoneOf } from '../../../lib/domain/erasure';
import type { Person } from '../../../lib/domain/person';
import { factsOf, rankCandidates } from '../../../lib/domain/reconcile';
import { wireErrors } from '../../../lib/domain/schemas';
import { fieldErrors } from '../../../lib/http/request';
import { createdPerson, examplePair } from '../../support/fixtures';

interface Sketch {
  name: [string, string] | string;
  emails?: string[];
  phones?: string[];
  addresses?: { address1: string; postal_code?: string; city?: string }[];
  /** Of a structured name. */
  middle?: string;
  suffix?: number;
}

/** A person as a create stores it: a structured name ([first, last]) or a freeform one. */
const personOf = (
  id: number,
  { name, emails = [], phones = [], addresses = [], middle, suffix }: Sketch,
): Person =>
  createdPerson(
    {
      Names: {
        '@set': [
          typeof name === 'string'
            ? { freeform_name: name, primary: true }
            : {
                first_name: name[0],
                last_name: name[1],
                middle_initial: middle ?? null,
                name_suffix_fk: suffix ?? null,
                primary: true,
              },
        ],
      },
      Emails: { '@set': emails.map((email, index) => ({ email, primary: index === 0 })) },
      PhoneNumbers: { '@set': phones.map((phone_number, index) => ({ phone_number, primary: index === 0 })) },
      PostalAddresses: { '@set': addresses.map((address, index) => ({ ...address, primary: index === 0 })) },
    },
    { firstId: id },
  );

const factsFor = (id: number, sketch: Sketch): DuplicateFacts =>
  duplicateFactsOf(personOf(id, sketch)) as DuplicateFacts;

const pair = (a: Sketch, b: Sketch) => scorePair(factsFor(100, a), factsFor(200, b));
const feature = (scored: { features: { id: string; value: number | boolean }[] }, id: string) =>
  scored.features.find((item) => item.id === id)?.value;

describe('a pair id', () => {
  it('is the two person ids, lower first, whichever order they come in', () => {
    expect(pairIdOf(41207, 30863)).toBe('30863-41207');
    expect(pairIdOf(30863, 41207)).toBe('30863-41207');
  });

  it('reads back as the two person ids it was made of', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        (a, b) => {
          fc.pre(a !== b);
          expect(personsOfPairId(pairIdOf(a, b))).toEqual([Math.min(a, b), Math.max(a, b)]);
        },
      ),
    );
  });

  it.each([
    '',
    '1',
    '1-1',
    '2-1',
    '0-1',
    '01-2',
    '1-02',
    '-1-2',
    '1-2-3',
    '1--2',
    'a-b',
    ' 1-2',
    '1-2 ',
    '1.5-2',
    '1e3-2000',
    `1-${Number.MAX_SAFE_INTEGER + 2}`,
  ])('is no pair id: %j', (id) => {
    expect(personsOfPairId(id)).toBeUndefined();
  });
});

describe('a person checked against the store', () => {
  it('asks by all its names, "Last, First" also as "First Last", its emails and phones', () => {
    const person = createdPerson(
      {
        Names: {
          '@set': [
            { first_name: 'Ada', last_name: 'Lovelace', primary: true },
            { freeform_name: 'King, Ada' },
          ],
        },
        Emails: { '@set': [{ email: 'Ada@Example.ORG', primary: true }] },
        PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0958', primary: true }] },
      },
      { firstId: 42 },
    );
    expect(matchRequestOfPerson(person)).toMatchObject({
      name: 'ada lovelace',
      variants: ['ada lovelace', 'king, ada', 'ada king'],
      emails: ['ada@example.org'],
      firstNames: ['ada'],
      lastNames: ['lovelace'],
      phones: ['442079460958'],
      wantsPersons: true,
    });
  });

  it('is scored as section 12 scores a query of it, when nothing beyond names is shared', () => {
    const a = personOf(100, { name: ['Ada', 'Lovelace'], emails: ['ada@one.example'] });
    const b = personOf(200, { name: ['Ada', 'Lovelase'], phones: ['020 7946 0958'] });
    const [asked] = rankCandidates(matchRequestOfPerson(a), [factsOf(b)]);
    const scored = scorePair(duplicateFactsOf(a) as DuplicateFacts, duplicateFactsOf(b) as DuplicateFacts);
    expect(scored.score).toBe(asked?.score);
    expect(scored.features).toEqual(asked?.features);
  });
});

describe('the grade', () => {
  const names = fc.constantFrom(
    ['Ada', 'Lovelace'],
    ['Ada', 'Lovelase'],
    ['A.', 'Lovelace'],
    ['José', 'García'],
    ['Jose', 'Garcia'],
    ['Jun Ho', 'Park'],
    ['Park', 'Jun Ho'],
    ['John', 'Smith'],
    ['John', 'Smith Jr'],
    ['Ngozi', 'Okonjo-Iweala'],
  ) as fc.Arbitrary<[string, string]>;
  const name = fc.oneof(
    names,
    names.map(([first, last]) => `${first} ${last}`),
  );
  const digits = fc.stringMatching(/^\d{9}$/);
  /** Two persons that share nothing but (perhaps) a name: their own emails, phones and addresses. */
  const strangers = fc.record({
    a: name,
    b: name,
    // A person holds an email once (a create with it twice is refused 409).
    aEmails: fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}$/), { maxLength: 2 }),
    bEmails: fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}$/), { maxLength: 2 }),
    aPhones: fc.uniqueArray(digits, { maxLength: 2 }),
    bPhones: fc.uniqueArray(digits, { maxLength: 2 }),
    aAddress: fc.boolean(),
    bAddress: fc.boolean(),
  });

  it('is never certain for persons who share no email, phone or address, however alike their names', () => {
    fc.assert(
      fc.property(strangers, (drawn) => {
        const scored = pair(
          {
            name: drawn.a,
            // Mailboxes of their own ("a" and "b" first): not one mailbox at another domain either.
            emails: drawn.aEmails.map((local) => `a${local}@one.example`),
            // Numbers of 10 digits that start differently: never one number.
            phones: drawn.aPhones.map((number) => `1${number}`),
            addresses: drawn.aAddress ? [{ address1: '1 High Street', postal_code: 'AB1 2CD' }] : [],
          },
          {
            name: drawn.b,
            emails: drawn.bEmails.map((local) => `b${local}@two.example`),
            phones: drawn.bPhones.map((number) => `2${number}`),
            addresses: drawn.bAddress ? [{ address1: '2 Low Road', postal_code: 'EF3 4GH' }] : [],
          },
        );
        expect(scored.grade).not.toBe('certain');
      }),
    );
  });

  it('is at most probable for an exact name alone', () => {
    expect(pair({ name: ['Ada', 'Lovelace'] }, { name: ['Ada', 'Lovelace'] })).toMatchObject({
      score: 100,
      grade: 'probable',
    });
  });

  it('is certain for an email both hold, whatever the names say', () => {
    const scored = pair(
      { name: ['Ada', 'Lovelace'], emails: ['ada@example.org'] },
      { name: ['Augusta', 'King'], emails: ['other@example.org', 'ADA@Example.org'] },
    );
    expect(scored).toMatchObject({ score: 100, grade: 'certain' });
    expect(feature(scored, 'email')).toBe(true);
  });

  it('is certain for the same name with the same phone, written internationally and nationally', () => {
    const scored = pair(
      { name: ['José', 'García'], phones: ['+44 20 7946 0958'] },
      { name: 'jose garcia', phones: ['020 7946 0958'] },
    );
    expect(scored.grade).toBe('certain');
    expect(feature(scored, 'phones')).toBe(true);
  });

  it('is not certain for the same phone with a name only alike (a typo)', () => {
    const scored = pair(
      { name: ['Ada', 'Lovelace'], phones: ['+44 20 7946 0958'] },
      { name: ['Ada', 'Lovelase'], phones: ['020 7946 0958'] },
    );
    expect(scored.grade).not.toBe('certain');
  });

  it('is not certain for the same name and phone when each holds emails of its own (a father and son)', () => {
    const scored = pair(
      { name: ['John', 'Smith'], phones: ['+44 20 7946 0958'], emails: ['john@one.example'] },
      { name: ['John', 'Smith'], phones: ['020 7946 0958'], emails: ['jsmith@two.example'] },
    );
    expect(scored.grade).toBe('probable');
  });

  it('is possible, not probable, for one name with phone numbers of their own and none in common', () => {
    const scored = pair(
      { name: ['Léa', 'Rivière'], phones: ['+33 1 42 68 53 00'], emails: ['lea@one.example'] },
      { name: ['Léa', 'Rivière'], phones: ['+34 171 1864 867'] },
    );
    expect(scored.score).toBe(100);
    expect(scored.grade).toBe('possible');
    // One phone of the two in common is evidence for them, whatever else each holds.
    const shared = pair(
      { name: ['Léa', 'Rivière'], phones: ['+33 1 42 68 53 00', '+33 6 12 34 56 78'] },
      { name: ['Léa', 'Rivière'], phones: ['01 42 68 53 00'], emails: ['lea@one.example'] },
    );
    expect(shared.grade).toBe('certain');
  });

  // Another middle initial or suffix tells two persons of one name apart whatever they share (a
  // father and his son share a phone and an address): at most possible (the labelled bench's
  // father-son pairs were all probable before).
  const phoned = (sketch: Sketch): Sketch => ({ ...sketch, phones: ['+44 20 7946 0958'] });
  it.each<[string, Sketch, Sketch, string]>([
    [
      'another middle initial',
      { name: ['John', 'Smith'], middle: 'A.' },
      { name: ['John', 'Smith'], middle: 'b' },
      'possible',
    ],
    [
      'another suffix (Jr., Sr.)',
      { name: ['John', 'Smith'], suffix: 1 },
      { name: ['John', 'Smith'], suffix: 2 },
      'possible',
    ],
    [
      'a middle initial on one side only',
      { name: ['John', 'Smith'], middle: 'A' },
      { name: ['John', 'Smith'] },
      'certain',
    ],
    [
      'one middle initial written twice',
      { name: ['John', 'Smith'], middle: 'A.' },
      { name: ['John', 'Smith'], middle: 'a' },
      'certain',
    ],
  ])('with the same name and phone, and %s, is %s', (_, a, b, grade) => {
    expect(pair(phoned(a), phoned(b)).grade).toBe(grade);
  });

  it('is possible, not probable, for namesakes who each hold emails of their own', () => {
    const scored = pair(
      { name: ['Ada', 'Lovelace'], emails: ['ada@one.example'] },
      { name: ['Ada', 'Lovelace'], emails: ['al@two.example'] },
    );
    expect(scored.score).toBeGreaterThanOrEqual(PROBABLE_SCORE);
    expect(scored.grade).toBe('possible');
  });

  // What the thresholds were chosen from (lib/domain/duplicates.ts): the usual kinds of pair.
  const LONDON = '+44 20 7946 0958';
  const household = { address1: '12 Baker St.', postal_code: 'NW1 6XE' };
  it.each<[string, Sketch, Sketch, number, string | undefined]>([
    ['an exact name alone', { name: ['Ada', 'Lovelace'] }, { name: ['Ada', 'Lovelace'] }, 100, 'probable'],
    ['accents written plain', { name: ['José', 'García'] }, { name: ['Jose', 'Garcia'] }, 100, 'probable'],
    ['a typo', { name: ['Ada', 'Lovelace'] }, { name: ['Ada', 'Lovelase'] }, 81.4, 'possible'],
    [
      'a typo and a phone',
      { name: ['Ada', 'Lovelace'], phones: [LONDON] },
      { name: ['Ada', 'Lovelase'], phones: ['020 7946 0958'] },
      91.4,
      'probable',
    ],
    ['a nickname', { name: ['William', 'Gates'] }, { name: ['Bill', 'Gates'] }, 85.8, 'possible'],
    ['an initial', { name: ['Ada', 'Lovelace'] }, { name: ['A.', 'Lovelace'] }, 88.9, 'possible'],
    ['a suffix', { name: ['John', 'Smith'] }, { name: ['John', 'Smith Jr'] }, 80.5, 'possible'],
    [
      'a household: another first name, one phone and address',
      { name: ['John', 'Smith'], phones: [LONDON], addresses: [household] },
      { name: ['Mary', 'Smith'], phones: [LONDON], addresses: [household] },
      58.2,
      undefined,
    ],
    ['strangers', { name: ['Ada', 'Lovelace'] }, { name: ['Charles', 'Babbage'] }, 0, undefined],
  ])('grades %s', (_, a, b, score, grade) => {
    expect(pair(a, b)).toMatchObject({ score, grade });
  });
});

describe('the evidence beyond names', () => {
  it.each([
    ['12 Baker St.', '12 baker street'],
    ['12, Baker  Street', '12 BAKER ST'],
    ['5 Rue de l’Église', '5 rue de l eglise'],
    ['3 Haupt Str.', '3 haupt strasse'],
    ['7 Park Ave', '7 Park Avenue'],
    ['9 Mill Rd', '9 mill road'],
  ])('folds %j and %j alike', (a, b) => {
    expect(foldAddressText(a)).toBe(foldAddressText(b));
  });

  it('compares addresses by their first line with their postal code or city, never a city alone', () => {
    expect(addressKeysOf([{ address1: '12 Baker St.', postal_code: 'NW1 6XE', city: 'London' }])).toEqual([
      '12 baker street|postcode:nw16xe',
      '12 baker street|city:london',
    ]);
    expect(addressKeysOf([{ address1: null, postal_code: 'NW1 6XE', city: 'London' }])).toEqual([]);
    expect(addressKeysOf([{ address1: '12 Baker St.', postal_code: null, city: null }])).toEqual([]);
  });

  it('counts an address written differently as one address', () => {
    const ada = { name: ['Ada', 'Lovelace'] as [string, string] };
    const without = pair(ada, { name: ['Ada', 'Lovelase'] });
    const scored = pair(
      { ...ada, addresses: [{ address1: '12 Baker St.', postal_code: 'NW1 6XE' }] },
      { name: ['Ada', 'Lovelase'], addresses: [{ address1: '12 baker street', postal_code: 'nw16xe' }] },
    );
    expect(feature(scored, 'addresses')).toBe(true);
    expect(scored.score).toBe(without.score + SHARED_ADDRESS);
  });

  it('says when both hold addresses and share none, and counts nothing for it', () => {
    const scored = pair(
      { name: ['Ada', 'Lovelace'], addresses: [{ address1: '12 Baker St.', city: 'London' }] },
      { name: ['Ada', 'Lovelase'], addresses: [{ address1: '12 Baker St.', city: 'Leeds' }] },
    );
    expect(feature(scored, 'addresses')).toBe(false);
    expect(scored.score).toBe(pair({ name: ['Ada', 'Lovelace'] }, { name: ['Ada', 'Lovelase'] }).score);
  });

  it('counts an email’s mailbox at another domain (email_mailbox)', () => {
    const scored = pair(
      { name: ['Ada', 'Lovelace'], emails: ['ada.lovelace@oldco.example'] },
      { name: ['Ada', 'Lovelase'], emails: ['Ada.Lovelace@newco.example'] },
    );
    const elsewhere = pair({ name: ['Ada', 'Lovelace'] }, { name: ['Ada', 'Lovelase'] });
    expect(feature(scored, 'email_mailbox')).toBe(true);
    expect(scored.score).toBe(elsewhere.score + SHARED_MAILBOX);
  });

  it('scores a pair the same whichever of its persons is checked', () => {
    const sketches = fc.record({
      name: fc.constantFrom<[string, string] | string>(
        ['Ada', 'Lovelace'],
        ['Ada', 'Lovelase'],
        'Ada Lovelace',
        ['John', 'Smith Jr'],
        ['John', 'Smith'],
        'Lovelace, Ada',
      ),
      emails: fc.subarray(['ada@one.example', 'ada@two.example', 'al@three.example']),
      phones: fc.subarray(['+44 20 7946 0958', '020 7946 0958', '0161 496 0000']),
      addresses: fc.subarray([{ address1: '12 Baker St.', postal_code: 'NW1 6XE' }]),
    });
    fc.assert(
      fc.property(sketches, sketches, (a, b) => {
        const one = factsFor(100, a);
        const other = factsFor(200, b);
        expect(scorePair(one, other)).toEqual(scorePair(other, one));
      }),
      { numRuns: 50 },
    );
  });
});

describe('the pairs of a person', () => {
  const ada = personOf(100, { name: ['Ada', 'Lovelace'], phones: ['+44 20 7946 0958'] });

  it('never pairs the person with itself, nor a candidate twice', () => {
    const twin = factsFor(300, { name: ['Ada', 'Lovelace'] });
    const pairs = pairsOf(ada, [duplicateFactsOf(ada), twin, twin]);
    expect(pairs.map(({ id }) => id)).toEqual(['100-300']);
  });

  it('pairs no merged or erased person', () => {
    const erased = tombstoneOf(personOf(300, { name: ['Ada', 'Lovelace'] }), '2026-11-29T00:00:00.000Z');
    const merged = { id: 400, superceded_by: 100, CoreMetaData: ada.CoreMetaData };
    expect(pairsOf(ada, [duplicateFactsOf(erased), duplicateFactsOf(merged)])).toEqual([]);
    expect(pairsOf(erased, [duplicateFactsOf(ada)])).toEqual([]);
  });

  it('leaves out candidates under the threshold', () => {
    const pairs = pairsOf(ada, [factsFor(300, { name: ['Charles', 'Babbage'] })]);
    expect(pairs).toEqual([]);
  });

  const sketch: fc.Arbitrary<Sketch> = fc.record({
    name: fc.constantFrom<[string, string]>(
      ['Ada', 'Lovelace'],
      ['Ada', 'Lovelase'],
      ['A.', 'Lovelace'],
      ['Ada', 'King'],
      ['Adam', 'Lovelace'],
      ['Charles', 'Babbage'],
    ),
    phones: fc.subarray(['+44 20 7946 0958', '0161 496 0000']),
    emails: fc.subarray(['ada@one.example', 'ada@two.example']),
  });

  it('answers graded pairs of scores 0 to 100, best first, ties by id', () => {
    fc.assert(
      fc.property(
        sketch,
        fc.uniqueArray(fc.tuple(fc.integer({ min: 1, max: 5_000 }), sketch), {
          selector: ([id]) => id,
          maxLength: 8,
        }),
        (mine, others) => {
          const person = personOf(2_500, mine);
          const pairs = pairsOf(
            person,
            others.map(([id, other]) => factsFor(id, other)),
          );
          for (const { score, grade, persons } of pairs) {
            expect(score).toBeGreaterThanOrEqual(0);
            expect(score).toBeLessThanOrEqual(100);
            expect(grade === 'certain' || score >= DUPLICATE_THRESHOLD).toBe(true);
            expect(persons).toContain(2_500);
            expect(persons[0]).toBeLessThan(persons[1]);
          }
          expect(pairs).toEqual([...pairs].sort(byScoreThenId));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('orders pairs of one score by id, as numbers', () => {
    const twin = (id: number) => factsFor(id, { name: ['Ada', 'Lovelace'] });
    expect(pairsOf(ada, [twin(1_000), twin(20), twin(300)]).map(({ id }) => id)).toEqual([
      '20-100',
      '100-300',
      '100-1000',
    ]);
  });
});

describe('a pair on the wire', () => {
  it('reads as API.md 12.1 shows it', () => {
    expect(DuplicatePairOut.parse(examplePair())).toMatchObject({ id: '30863-41207' });
  });

  it('enters the queue open, and leaves it decided by whom and when', () => {
    const scored = pairsOf(personOf(100, { name: ['Ada', 'Lovelace'] }), [
      factsFor(200, { name: ['Ada', 'Lovelace'] }),
    ]);
    const open = openPairOf(scored[0] as (typeof scored)[number], '2026-11-29T13:00:00.000Z');
    expect(DuplicatePairOut.parse(open)).toEqual(open);
    expect(open).toMatchObject({ status: 'open', persons: [100, 200], grade: 'probable' });
    const decided = decidedPair(open, 'not-duplicate', 7, '2026-11-29T14:00:00.000Z');
    expect(DuplicatePairOut.parse(decided)).toMatchObject({
      status: 'not-duplicate',
      decided_by: 7,
      decided: '2026-11-29T14:00:00.000Z',
    });
  });
});

describe('a decision', () => {
  const errorsOf = (body: unknown) => {
    const parsed = DecisionBody.safeParse(body, { error: wireErrors });
    return parsed.success ? [] : fieldErrors(parsed.error.issues);
  };

  it.each([
    [{ decision: 'not-duplicate' }, []],
    [{ decision: 'merge', survivor: 30863 }, []],
    [{ decision: 'nope' }, [{ path: '/decision', message: DECISION_REQUIRED }]],
    [{}, [{ path: '/decision', message: DECISION_REQUIRED }]],
    [{ decision: 'merge' }, [{ path: '/survivor', message: 'Required: expected an integer' }]],
    [{ decision: 'merge', survivor: 0 }, [{ path: '/survivor', message: 'Must be a positive integer' }]],
    [
      { decision: 'merge', survivor: '30863' },
      [{ path: '/survivor', message: 'Expected an integer, not a string' }],
    ],
    [{ decision: 'not-duplicate', survivor: 1 }, [{ path: '/survivor', message: 'Unknown property' }]],
    [[], [{ path: '', message: 'Expected a JSON object, not an array' }]],
  ])('%j is refused with %j', (body, errors) => {
    expect(errorsOf(body)).toEqual(errors);
  });

  const open: Pick<DuplicatePair, 'persons' | 'status'> = { persons: [30863, 41207], status: 'open' };

  it.each(['not-duplicate', 'merged', 'resolved'] as const)('on a pair %s is pair-decided', (status) => {
    expect(decisionCheck({ ...open, status }, { decision: 'not-duplicate' })).toEqual({
      ok: false,
      problem: 'pair-decided',
      status,
    });
    expect(decisionCheck({ ...open, status }, { decision: 'merge', survivor: 30863 })).toMatchObject({
      problem: 'pair-decided',
    });
  });

  it('merges the other person into the survivor, which is one of the two', () => {
    expect(decisionCheck(open, { decision: 'merge', survivor: 41207 })).toEqual({
      ok: true,
      decision: 'merge',
      survivor: 41207,
      source: 30863,
    });
    expect(decisionCheck(open, { decision: 'merge', survivor: 30863 })).toMatchObject({ source: 41207 });
    expect(decisionCheck(open, { decision: 'merge', survivor: 5 })).toMatchObject({
      ok: false,
      problem: 'survivor-not-in-pair',
      pointer: '/survivor',
    });
    expect(decisionCheck(open, { decision: 'not-duplicate' })).toEqual({
      ok: true,
      decision: 'not-duplicate',
    });
  });
});

describe('what a check changes in the queue', () => {
  const now = '2026-11-29T15:00:00.000Z';
  const earlier = '2026-11-28T09:00:00.000Z';
  const ada = personOf(100, { name: ['Ada', 'Lovelace'], phones: ['+44 20 7946 0958'] });
  const [twin, namesake] = pairsOf(ada, [
    factsFor(300, { name: ['Ada', 'Lovelace'], phones: ['020 7946 0958'] }),
    factsFor(200, { name: ['Ada', 'Lovelace'] }),
  ]);
  if (!twin || !namesake) throw new Error('The fixture makes two pairs');
  const stored = (pair: DuplicatePair, revision = 1): StoredPair => ({ pair, eventId: 7, revision });
  const held = (scored: typeof twin, changes: Partial<DuplicatePair> = {}) =>
    stored({ ...openPairOf(scored, earlier), ...changes }, 3);

  it('creates each pair found for the first time, open, detected now', () => {
    expect(pairChanges(100, [twin, namesake], [], now)).toEqual([
      { kind: 'create', pair: openPairOf(twin, now) },
      { kind: 'create', pair: openPairOf(namesake, now) },
    ]);
  });

  it('writes nothing for pairs that stand as stored: a check delivered twice', () => {
    expect(pairChanges(100, [twin, namesake], [held(twin), held(namesake)], now)).toEqual([]);
  });

  it('rescores a stored open pair, keeping when it was first detected', () => {
    const before = held(twin, { score: 80, grade: 'possible' });
    expect(pairChanges(100, [twin], [before], now)).toEqual([
      { kind: 'update', before, pair: { ...openPairOf(twin, earlier) } },
    ]);
  });

  it('never touches a pair decided not-duplicate, whatever the matcher says now', () => {
    const decided = held(twin, { status: 'not-duplicate', decided_by: 5, decided: earlier, score: 70 });
    expect(pairChanges(100, [twin], [decided], now)).toEqual([]);
    expect(pairChanges(100, [], [decided], now)).toEqual([]);
  });

  it('reopens a resolved or merged pair the matcher makes again (a merge undone), without its decision', () => {
    for (const status of ['resolved', 'merged'] as const) {
      const before = held(twin, { status, decided_by: 5, decided: earlier });
      expect(pairChanges(100, [twin], [before], now)).toEqual([
        { kind: 'update', before, pair: openPairOf(twin, earlier) },
      ]);
    }
  });

  it('resolves the open pairs the matcher no longer makes (the person merged or erased, or unalike)', () => {
    const open = held(namesake);
    const merged = held(twin, { status: 'merged', decided_by: 5, decided: earlier });
    expect(pairChanges(100, [], [open, merged], now)).toEqual([
      { kind: 'update', before: open, pair: { ...open.pair, status: 'resolved' } },
    ]);
  });

  it('leaves pairs of other persons alone, and makes each pair once', () => {
    const others = stored({ ...openPairOf(twin, earlier), id: '300-400', persons: [300, 400] });
    expect(pairChanges(100, [twin, twin], [others], now)).toEqual([
      { kind: 'create', pair: openPairOf(twin, now) },
    ]);
  });
});

describe('the queue read a page at a time', () => {
  const pairOfIds = (a: number, b: number, score: number, grade: DuplicatePair['grade'] = 'probable') =>
    examplePair([Math.min(a, b), Math.max(a, b)], { score, grade, features: [] });
  const query = (text: Record<string, string>) => pairQueryOf(DuplicatesQuery.parse(text));

  it('defaults to the open pairs of every grade, 50 a page', () => {
    expect(query({})).toEqual({ status: 'open', grades: ['certain', 'probable', 'possible'], limit: 50 });
    expect(query({ grade: 'certain,probable,certain', person: '7', limit: '100', status: 'merged' })).toEqual(
      {
        status: 'merged',
        grades: ['certain', 'probable'],
        person: 7,
        limit: 100,
      },
    );
  });

  it.each([
    { status: 'closed' },
    { grade: 'sure' },
    { grade: '' },
    { limit: '0' },
    { limit: '101' },
    { person: '0' },
    { person: '-3' },
    { after: 'made-up' },
    { after: Buffer.from('d1:1001:1:2').toString('base64url') },
    { after: Buffer.from('d1:500:2:1').toString('base64url') },
    { colour: 'red' },
  ])('refuses %o', (text) => {
    expect(DuplicatesQuery.safeParse(text).success).toBe(false);
  });

  it('keeps a position in its cursor, and nothing else', () => {
    const position = { score: 91.5, persons: [30863, 41207] as [number, number] };
    const cursor = encodeDuplicatesCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('30863');
    expect(decodeDuplicatesCursor(cursor)).toEqual(position);
    expect(query({ after: cursor }).after).toEqual(position);
  });

  it('answers the pairs asked for, best first then by id, and a cursor only when more follow', () => {
    const pairs = [
      pairOfIds(1, 2, 80),
      pairOfIds(3, 4, 95, 'certain'),
      pairOfIds(1, 5, 95),
      { ...pairOfIds(6, 7, 99), status: 'resolved' as const },
      pairOfIds(10, 9, 71, 'possible'),
    ];
    const first = queuePage(pairs, query({ limit: '2' }));
    expect(first.pairs.map(({ id }) => id)).toEqual(['1-5', '3-4']);
    const second = queuePage(pairs, {
      ...query({ limit: '2' }),
      after: decodeDuplicatesCursor(first.next ?? ''),
    });
    expect(second.pairs.map(({ id }) => id)).toEqual(['1-2', '9-10']);
    expect(second.next).toBeNull();
    expect(queuePage(pairs, query({ grade: 'certain,possible' })).pairs.map(({ id }) => id)).toEqual([
      '3-4',
      '9-10',
    ]);
    expect(queuePage(pairs, query({ person: '1' })).pairs.map(({ id }) => id)).toEqual(['1-5', '1-2']);
    expect(queuePage(pairs, query({ status: 'resolved' })).pairs.map(({ id }) => id)).toEqual(['6-7']);
  });
});
