/**
 * Issue #36 on DynamoDB Local: a filtered list reads the probe its samples show smallest, not the one
 * whose letters look rarest. 2 000 persons in a table of their own, planted so letter frequency
 * misleads as in a directory of Polish names: about 100 `...lowski`, 1 000 `...owski` without the `l`,
 * 400 `...ewski`/`...wska`, a few `Lowe`. By letters `wsk` and `ows` look rarer than `low`; by count
 * `low` is the rarest by far. The answer is the brute force's, count and first page.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPersonItem } from '../../lib/db/person/person-items';
import { compareSortKeys } from '../../lib/db/person/read/list-reads';
import { personList } from '../../lib/db/person/read/person-list';
import { addPostingCounts } from '../../lib/db/person/read/posting-counts';
import { postingItemsOf } from '../../lib/db/person/write/postings';
import { idCounterKey, personListKey, postingCountsCompleteKey } from '../../lib/db/table/keys';
import { ListPersonsQuery, personListRequest } from '../../lib/domain/listing';
import { applyPatch } from '../../lib/domain/patch';
import { NO_ABBREVIATIONS, type Person } from '../../lib/domain/person';
import { CreatePersonBody } from '../../lib/domain/schemas';
import { gramRarity, planQuery, postingsOf, searchTerms } from '../../lib/domain/search';
import { fold } from '../../lib/domain/text';
import { createTestTable, putItems, type TestTable } from '../support/dynamo';

const FIRST = ['Anna', 'Piotr', 'Ewa', 'Marek', 'Zofia', 'Jan', 'Agnieszka', 'Tomasz'];
/** `low` only in the first group and in `Lowe`/`Bigelow`; `ows`, `wsk`, `ski` in hundreds more. */
const GROUPS: [count: number, lastNames: string[]][] = [
  [100, ['Pawlowski', 'Kozlowski', 'Michalowski', 'Wroblowski', 'Smolowski']],
  [1_000, ['Jankowski', 'Dabrowski', 'Nosowski', 'Borowski', 'Grabowski', 'Ostrowski', 'Kaczmarowski']],
  [400, ['Wisniewski', 'Lewandowska', 'Zielinska', 'Kaminska', 'Dudewski']],
  [20, ['Lowe', 'Bigelow']],
  [480, ['Nowak', 'Smith', 'Garcia', 'Yilmaz', 'Novak', 'Horvat']],
];

let table: TestTable;
const persons: Person[] = [];

beforeAll(async () => {
  table = await createTestTable();
  const now = new Date().toISOString();
  // Ids a few apart, as containers' blocks leave them; the shards are the real hash of each id.
  let next = 1_000;
  let n = 0;
  for (const [count, lastNames] of GROUPS)
    for (let index = 0; index < count; index++, n++) {
      const body = CreatePersonBody.parse({
        Names: {
          '@set': [{ first_name: FIRST[n % FIRST.length], last_name: lastNames[(n * 7) % lastNames.length] }],
        },
        Emails: { '@set': [{ email: `p${n}@example.org` }] },
      });
      next += 1 + (n % 3);
      const { person } = applyPatch(null, body, {
        requester: 0,
        now,
        nextId: () => next++,
        changeId: 0,
        abbreviations: NO_ABBREVIATIONS,
      });
      persons.push(person);
    }
  const items = persons.flatMap((person) => [toPersonItem(person), ...postingItemsOf(person)]);
  await putItems(table, items, { concurrency: 16 });
  await table.client.send(
    new PutCommand({ TableName: table.tableName, Item: { ...idCounterKey, value: next } }),
  );
}, 240_000);

afterAll(async () => {
  const { DeleteTableCommand } = await import('@aws-sdk/client-dynamodb');
  await table?.client.send(new DeleteTableCommand({ TableName: table.tableName }));
});

/** Postings of a gram: one per person holding it in any searchable value. */
const postingsOfGram = (gram: string) =>
  persons.filter((person) => postingsOf(searchTerms(person)).some((posting) => posting.gram === gram)).length;

const bruteForce = (fragment: string) => {
  const key = ({ id, fullname }: { id: number; fullname: string }) =>
    personListKey(fold(fullname), id).listSk;
  return persons
    .filter((person) => searchTerms(person).last_name.some((value) => value.includes(fragment)))
    .map(({ id, fullname }) => ({ id, fullname }))
    .sort((a, b) => compareSortKeys(key(a), key(b)));
};

describe('a filtered list where letter frequency misleads (issue #36)', () => {
  it('reads last_name=lowski through "low", the gram its samples show smallest', async () => {
    const [low, ows, wsk, ski] = ['low', 'ows', 'wsk', 'ski'].map(postingsOfGram) as [
      number,
      number,
      number,
      number,
    ];
    // The population misleads: the two rarest-looking grams (what the reader read before) are common.
    expect(gramRarity('wsk')).toBeGreaterThan(gramRarity('low'));
    expect(gramRarity('ows')).toBeGreaterThan(gramRarity('low'));
    expect(Math.min(ows, wsk, ski)).toBeGreaterThan(8 * low);

    const request = personListRequest(ListPersonsQuery.parse({ last_name: 'lowski', limit: '20' }));
    const answer = await personList(table).list(request);
    const expected = bruteForce('lowski');
    expect({ count: answer.count, persons: answer.persons }).toEqual({
      count: expected.length,
      persons: expected.slice(0, 20),
    });

    const detail = answer.detail as Record<string, number | string>;
    // The table's counts are not marked complete (it held persons before any were counted): one
    // round finds that out, then the samples, then the read.
    expect(detail).toMatchObject({
      probe: 'last_name "low"',
      probePostings: low,
      probesSampled: 4,
      sizedBy: 'samples',
      queryRounds: 3,
    });
    const samplePostings = detail.samplePostings as number;
    // The bar: at most 1.5 times the rarest gram's postings plus the sampling, and the whole
    // read (the id counter included) a fraction of the smaller of the two grams read before (`ows`).
    expect(answer.cost.itemsRead).toBeLessThanOrEqual(1.5 * low + samplePostings + 1);
    expect(answer.cost.itemsRead).toBeLessThan(Math.min(ows, wsk) / 3);
  });

  it('still reads a rare-looking gram when it is the rarest', async () => {
    const request = personListRequest(ListPersonsQuery.parse({ last_name: 'ewsk' }));
    const answer = await personList(table).list(request);
    expect(answer.count).toBe(bruteForce('ewsk').length);
    expect(answer.detail).toMatchObject({ probe: 'last_name "ews"' });
  });

  it('reads exactly the rarest gram by the counts the stream keeps, once they are complete', async () => {
    // What count-postings would have added for these postings, and the mark of complete counts.
    const counts = new Map<string, number>();
    for (const person of persons)
      for (const { gram } of postingsOf(searchTerms(person))) counts.set(gram, (counts.get(gram) ?? 0) + 1);
    await addPostingCounts(table, counts);
    await table.client.send(
      new PutCommand({ TableName: table.tableName, Item: { ...postingCountsCompleteKey } }),
    );

    for (const fragment of ['lowski', 'ewsk', 'owsk', 'bigelow']) {
      const request = personListRequest(ListPersonsQuery.parse({ last_name: fragment, limit: '20' }));
      const answer = await personList(table).list(request);
      const expected = bruteForce(fragment);
      expect({ count: answer.count, persons: answer.persons }).toEqual({
        count: expected.length,
        persons: expected.slice(0, 20),
      });
      const grams = planQuery({ last_name: fragment }).probes.map((probe) =>
        probe.kind === 'gram' ? probe.gram : '',
      );
      const rarest = Math.min(...grams.map(postingsOfGram));
      // One round of counts, one of the read; nothing sampled, the rarest gram's postings read once.
      expect(answer.detail).toMatchObject({
        sizedBy: 'counts',
        samplePostings: 0,
        postingsRead: rarest,
        probePostings: rarest,
        queryRounds: 2,
      });
      // The postings, the counts of the grams found and the mark.
      expect(answer.cost.itemsRead).toBeLessThanOrEqual(rarest + grams.length + 1);
    }
  });
});
