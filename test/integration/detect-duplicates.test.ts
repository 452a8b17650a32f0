/**
 * The duplicates detector (API.md 12.1, issue #57 step 1) against DynamoDB Local: persons created and
 * changed through the handlers, their events handed to the consumer as its queue delivers them, and
 * the pairs it writes read back from the table.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { duplicateReads } from '../../lib/db/duplicates/duplicate-reads';
import { pairStore } from '../../lib/db/duplicates/pair-store';
import { markPostingCountsIfEmpty } from '../../lib/db/person/read/posting-counts';
import { CHECK_WORD_POSTINGS, candidatePersons } from '../../lib/db/person/read/reconcile-candidates';
import { duplicateLinkKey, duplicatePairKey, duplicateQueueKey } from '../../lib/db/table/keys';
import { type DuplicatePair, matchRequestOfPerson, pairIdOf } from '../../lib/domain/duplicates';
import type { Person } from '../../lib/domain/person';
import type { DuplicateReads } from '../../lib/domain/ports/duplicates';
import { checkPerson, detectDuplicates } from '../../lib/duplicates/detect-duplicates';
import { seedPersons } from '../bench/seed';
import { type Json, uniqueTag } from '../support/api';
import { createTestTable } from '../support/dynamo';
import { personEventRecord } from '../support/events';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const quiet = { info: () => undefined, error: () => undefined };
const SOON = () => Date.now() + 10_000;

const pairs = () => pairStore(suite.table);
const reads = () => duplicateReads(suite.table);
const detector = () => detectDuplicates({ reads: reads(), pairs: pairs(), logger: quiet });

/** A person of one structured name, with phones and emails as given; its id. */
const create = async (
  first: string,
  last: string,
  { phones = [] as string[], emails = [] as string[] } = {},
) => {
  const { status, body } = await suite.api.post({
    Names: { '@set': [{ first_name: first, last_name: last }] },
    ...(phones.length > 0
      ? { PhoneNumbers: { '@set': phones.map((phone_number) => ({ phone_number })) } }
      : {}),
    ...(emails.length > 0 ? { Emails: { '@set': emails.map((email) => ({ email })) } } : {}),
  });
  expect(status).toBe(201);
  return body.id as number;
};

/** The detector given the event of person `id`'s version (its type overridden where said). */
const deliver = async (id: number, version = 1, type?: 'person.merged' | 'person.erased') => {
  const record = await personEventRecord(suite.table, id, { version, ...(type ? { type } : {}) });
  expect(await detector()({ Records: [record] })).toEqual({ batchItemFailures: [] });
  return record;
};

const item = async (key: { pk: string; sk: string }) =>
  (
    await suite.table.client.send(
      new GetCommand({ TableName: suite.table.tableName, Key: key, ConsistentRead: true }),
    )
  ).Item as Json | undefined;

/** An email of this run's own: persons known only by name are unique by name (API.md 5.5). */
const own = () => [`${uniqueTag('own')}@example.org`];

const pairOf = async (a: number, b: number) => (await pairs().get(pairIdOf(a, b)))?.pair;

/** A family name of this run: each test's persons are namesakes of no other test's. */
const family = (label: string) =>
  `${label}${uniqueTag('f').replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)] as string)}`;

describe('the detector', () => {
  it('pairs a person created with the same name and phone as another, certain, with its evidence', async () => {
    const last = family('Lovelace');
    const ada = await create('Ada', last, { phones: ['+44 20 7946 0958'], emails: own() });
    const again = await create('Ada', last, { phones: ['020 7946 0958'] });
    await deliver(again);
    const pair = await pairOf(ada, again);
    expect(pair).toMatchObject({
      '@type': 'DuplicatePair',
      id: pairIdOf(ada, again),
      persons: [Math.min(ada, again), Math.max(ada, again)],
      grade: 'certain',
      status: 'open',
    });
    expect(pair?.features).toContainEqual({ id: 'phones', value: true });
    // Its queue entry (in score order) and a link from each person.
    const stored = pair as DuplicatePair;
    expect((await item(duplicateQueueKey('open', 'certain', stored.score, stored.persons)))?.pair).toEqual(
      stored,
    );
    expect((await item(duplicateLinkKey(ada, again)))?.pairId).toBe(stored.id);
    expect((await item(duplicateLinkKey(again, ada)))?.pairId).toBe(stored.id);
    expect(await pairs().pairsOf(ada)).toEqual([expect.objectContaining({ pair: stored, revision: 1 })]);
  });

  it('finds a second record under another name (a typo, the words swapped), though its own name finds itself', async () => {
    // The whole name a check looks up first always finds the person checked: that is no one else of
    // its name, so its words are looked up too (the labelled bench found every such pair missing).
    const last = family('Rousseau');
    const typo = `${last.slice(0, 3)}${last.slice(4)}`;
    const camille = await create('Camille', last, { phones: ['+33 1 42 68 53 00'], emails: own() });
    const misspelt = await create('Camille', typo, { phones: ['01 42 68 53 00'] });
    await deliver(misspelt);
    expect(await pairOf(camille, misspelt)).toMatchObject({ grade: 'probable', status: 'open' });
    const swapped = await create(last, 'Camille', { phones: ['01 42 68 53 00'] });
    await deliver(swapped);
    expect(await pairOf(camille, swapped)).toMatchObject({ grade: 'probable', status: 'open' });
  });

  it('writes nothing when the same event comes again, or the other person’s event finds the same pair', async () => {
    const last = family('Hopper');
    const grace = await create('Grace', last, { phones: ['+1 212 555 0100'], emails: own() });
    const twin = await create('Grace', last, { phones: ['+1 (212) 555-0100'] });
    const record = await deliver(twin);
    await suite.unchangedBy(() => detector()({ Records: [record] }));
    const first = await personEventRecord(suite.table, grace);
    await suite.unchangedBy(() => detector()({ Records: [first] }));
  });

  it('grades namesakes who each hold their own email possible, never certain', async () => {
    const last = family('Smith');
    const john = await create('John', last, { emails: own() });
    const other = await create('John', last, { emails: own() });
    await deliver(other);
    expect(await pairOf(john, other)).toMatchObject({ grade: 'possible', status: 'open' });
  });

  it('makes no pair of persons who are not alike', async () => {
    const ada = await create('Ada', family('Byron'));
    const charles = await create('Charles', family('Babbage'));
    await deliver(charles);
    expect(await pairOf(ada, charles)).toBeUndefined();
    expect(await pairs().pairsOf(charles)).toEqual([]);
  });

  it('rescores a pair when a person changes, and resolves it when they are no longer alike', async () => {
    const last = family('Curie');
    const marie = await create('Marie', last, { emails: own() });
    const twin = await create('Marie', last);
    await deliver(twin);
    const before = (await pairOf(marie, twin)) as DuplicatePair;
    expect(before).toMatchObject({ status: 'open', grade: 'probable' });
    // The same phone number added to both: the same name and phone, certain.
    for (const id of [marie, twin])
      expect(
        (await suite.api.patch(id, { PhoneNumbers: { '@set': [{ phone_number: '+33 1 23 45 67 89' }] } }))
          .status,
      ).toBe(200);
    await deliver(twin, 2);
    const certain = (await pairOf(marie, twin)) as DuplicatePair;
    expect(certain).toMatchObject({ grade: 'certain', status: 'open', detected: before.detected });
    // The queue entry moved: none left where the pair stood before.
    expect(await item(duplicateQueueKey('open', before.grade, before.score, before.persons))).toBeUndefined();
    expect((await item(duplicateQueueKey('open', 'certain', certain.score, certain.persons)))?.pair).toEqual(
      certain,
    );
    // Renamed: no longer alike, the pair leaves the queue.
    const names = (await suite.api.get(twin)).body.Names as Json;
    const nameId = ((names['@set'] as Json[])[0] as Json).id;
    const renamed = await suite.api.patch(twin, {
      Names: { '@set': [{ id: nameId, first_name: 'Pierre', last_name: family('Dupont') }] },
    });
    expect(renamed.status).toBe(200);
    await deliver(twin, 3);
    expect(await pairOf(marie, twin)).toMatchObject({ status: 'resolved' });
    expect(await item(duplicateQueueKey('open', 'certain', certain.score, certain.persons))).toBeUndefined();
  });

  it('ignores a change of parts pairs are not scored on', async () => {
    const last = family('Noether');
    const emmy = await create('Emmy', last, { emails: own() });
    const twin = await create('Emmy', last);
    await deliver(twin);
    expect((await suite.api.patch(twin, { local_reference_id: uniqueTag('ref') })).status).toBe(200);
    const record = await personEventRecord(suite.table, twin, { version: 2 });
    await suite.unchangedBy(() => detector()({ Records: [record] }));
    expect(await pairOf(emmy, twin)).toMatchObject({ status: 'open' });
  });

  it('never proposes a pair decided not-duplicate again, whatever changes later', async () => {
    const last = family('Franklin');
    const rosalind = await create('Rosalind', last, { emails: own() });
    const twin = await create('Rosalind', last);
    await deliver(twin);
    const stored = await pairs().get(pairIdOf(rosalind, twin));
    if (!stored) throw new Error('The pair was not detected');
    const decided = {
      ...stored.pair,
      status: 'not-duplicate' as const,
      decided_by: rosalind,
      decided: new Date().toISOString(),
    };
    expect(await pairs().apply({ kind: 'update', before: stored, pair: decided })).toBe(true);
    for (const id of [rosalind, twin])
      expect(
        (await suite.api.patch(id, { PhoneNumbers: { '@set': [{ phone_number: '+44 1223 555 000' }] } }))
          .status,
      ).toBe(200);
    await suite.unchangedBy(() => deliver(twin, 2));
    expect(await pairOf(rosalind, twin)).toEqual(decided);
  });

  it('resolves the pairs of a person merged into another, and of one erased', async () => {
    const last = family('Meitner');
    const lise = await create('Lise', last, { emails: own() });
    const twin = await create('Lise', last, { emails: own() });
    const third = await create('Lise', last);
    await deliver(third);
    await deliver(twin);
    expect(await pairOf(lise, twin)).toMatchObject({ status: 'open' });
    expect(await pairOf(lise, third)).toMatchObject({ status: 'open' });
    expect(await pairOf(twin, third)).toMatchObject({ status: 'open' });
    // `twin` merged into `lise`: its pair with `third` leaves the queue; the survivor's, checked again, stays.
    expect((await suite.api.merge(lise, { source: twin })).status).toBe(200);
    await deliver(twin, 2, 'person.merged');
    await deliver(lise, 2);
    expect(await pairOf(twin, third)).toMatchObject({ status: 'resolved' });
    expect(await pairOf(lise, twin)).toMatchObject({ status: 'resolved' });
    expect(await pairOf(lise, third)).toMatchObject({ status: 'open' });
    // `third` erased: its last open pair leaves the queue.
    expect((await suite.api.erase(third)).status).toBe(200);
    await deliver(third, 2, 'person.erased');
    expect(await pairOf(lise, third)).toMatchObject({ status: 'resolved' });
    expect((await pairs().pairsOf(third)).filter(({ pair }) => pair.status === 'open')).toEqual([]);
  });

  it('writes one pair when both persons are checked at once', async () => {
    const last = family('Turing');
    const alan = await create('Alan', last, { phones: ['+44 161 555 0199'], emails: own() });
    const twin = await create('Alan', last, { phones: ['0161 555 0199'] });
    const [a, b] = await Promise.all([alan, twin].map((id) => personEventRecord(suite.table, id)));
    await Promise.all([detector()({ Records: [a as never] }), detector()({ Records: [b as never] })]);
    expect(await pairs().pairsOf(alan)).toEqual([
      expect.objectContaining({ pair: expect.objectContaining({ grade: 'certain' }), revision: 1 }),
    ]);
  });

  it('writes no open pair with a person erased after it was read', async () => {
    const last = family('Hypatia');
    const first = await create('Hypatia', last, { emails: own() });
    const twin = await create('Hypatia', last);
    const staleTwin = await reads().stored(twin);
    expect((await suite.api.erase(twin)).status).toBe(200);
    // The first read of candidates is stale (the erased person still live), as an eventually
    // consistent read may be; the pair's write finds the tombstone and the check reads again.
    const real = reads();
    let stale = true;
    const staleReads: DuplicateReads = {
      ...real,
      candidates: async (request, self) => {
        const found = await real.candidates(request, self);
        if (!stale) return found;
        stale = false;
        return [...found, staleTwin as Person];
      },
    };
    expect(await checkPerson({ reads: staleReads, pairs: pairs() }, first, SOON())).toEqual([]);
    expect(stale).toBe(false);
    expect(await item(duplicatePairKey(pairIdOf(first, twin)))).toBeUndefined();
  });
});

describe('a check’s cost', () => {
  it('does not look up a word of the name so common it would read more than CHECK_WORD_POSTINGS postings', async () => {
    // A store of its own (seeded as creates write it, counts kept): one given name held by more
    // persons than a check looks up, one family name held by one, and its misspelt second record.
    const table = await createTestTable();
    await markPostingCountsIfEmpty(table, new Date().toISOString());
    const common = CHECK_WORD_POSTINGS + 1;
    const bodies = [
      ...Array.from({ length: common }, (_, n) => ({
        Names: { '@set': [{ first_name: 'Zebulon', last_name: `Other${n.toString(36)}x` }] },
      })),
      { Names: { '@set': [{ first_name: 'Zebulon', last_name: 'Quarrington' }] } },
      { Names: { '@set': [{ first_name: 'Zebulon', last_name: 'Quarringtn' }] } },
    ];
    const ids = await seedPersons(table, {
      from: 0,
      count: bodies.length,
      bodyOf: (n) => bodies[n],
      countPostings: true,
      concurrency: 16,
    });
    const [original, misspelt] = ids.slice(-2) as [number, number];
    const person = (await duplicateReads(table).stored(misspelt)) as Person;
    const request = matchRequestOfPerson(person);
    // The check: its family name's words and halves, never the given name's postings; it finds the
    // first record through a half of the misspelt family name.
    const checked = await candidatePersons(table, { ...request, emails: [] }, misspelt);
    expect(String(checked.detail.searched).split('|')).not.toContain('zebulon');
    expect(checked.persons.map(({ id }) => id)).toContain(original);
    expect(checked.persons.map(({ id }) => id)).not.toContain(misspelt);
    expect(checked.cost.itemsRead).toBeLessThan(common);
    // Reconciliation asked of a name no one holds (not a check) still reads every Zebulon.
    const asked = await candidatePersons(table, {
      ...request,
      variants: ['zebulon quarringtno'],
      emails: [],
    });
    expect(String(asked.detail.searched).split('|')).toContain('zebulon');
    expect(asked.cost.itemsRead).toBeGreaterThan(common);
  }, 60_000);
});
