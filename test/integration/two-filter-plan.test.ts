/**
 * Issue #60 step 1 on DynamoDB Local: a list of several fragments applies each one after the first the
 * cheaper way, by the counts. 600 persons in a table of their own, counted as the stream counts them:
 * 50 Zofias (5 of them `...owski`), 300 `...owski` in all, 5 Bigelows named Maria, every email at
 * `example.org`. The answer is the brute force's whichever way a filter is applied.
 */
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cheaperStep, checkUnits, probeReadUnits } from '../../lib/db/person/read/list-plan';
import { compareSortKeys } from '../../lib/db/person/read/list-reads';
import { personList } from '../../lib/db/person/read/person-list';
import { markPostingCountsIfEmpty } from '../../lib/db/person/read/posting-counts';
import { personListKey } from '../../lib/db/table/keys';
import { ListPersonsQuery, type PersonFilters, personListRequest } from '../../lib/domain/listing';
import type { Person } from '../../lib/domain/person';
import { postingsOf, searchTerms } from '../../lib/domain/search';
import { fold } from '../../lib/domain/text';
import { seedPersons } from '../bench/seed';
import { createTestTable, type TestTable } from '../support/dynamo';

const OWSKI = ['Nowakowski', 'Jankowski', 'Dabrowski', 'Borowski', 'Grabowski', 'Ostrowski'];
const OTHER_FIRST = ['Anna', 'Piotr', 'Ewa', 'Marek', 'Maria'];
const OTHER_LAST = ['Nowak', 'Smith', 'Garcia', 'Yilmaz', 'Horvat'];

/** The n-th person: Zofias first, then the other `...owski`, then the rest (5 Bigelows among them). */
const bodyOf = (n: number) => {
  const [first, last] =
    n < 50
      ? ['Zofia', n < 5 ? OWSKI[n % OWSKI.length] : OTHER_LAST[n % OTHER_LAST.length]]
      : n < 345
        ? [OTHER_FIRST[n % OTHER_FIRST.length], OWSKI[n % OWSKI.length]]
        : n < 350
          ? ['Maria', 'Bigelow']
          : [OTHER_FIRST[n % OTHER_FIRST.length], OTHER_LAST[n % OTHER_LAST.length]];
  return {
    Names: { '@set': [{ first_name: first, last_name: last }] },
    Emails: { '@set': [{ email: `p${n}@example.org` }] },
  };
};

let table: TestTable;
const persons: Person[] = [];

beforeAll(async () => {
  table = await createTestTable();
  expect(await markPostingCountsIfEmpty(table, new Date().toISOString())).toBe(true);
  await seedPersons(table, {
    from: 0,
    count: 600,
    countPostings: true,
    bodyOf,
    seeded: (person) => persons.push(person),
  });
}, 120_000);

afterAll(async () => {
  await table?.client.send(new DeleteTableCommand({ TableName: table.tableName }));
});

/** Postings of a gram: one per person holding it in any searchable value. */
const postingsOfGram = (gram: string) =>
  persons.filter((person) => postingsOf(searchTerms(person)).some((posting) => posting.gram === gram)).length;

const bruteForce = (filters: PersonFilters) => {
  const key = ({ id, fullname }: { id: number; fullname: string }) =>
    personListKey(fold(fullname), id).listSk;
  return persons
    .filter((person) => {
      const terms = searchTerms(person);
      return Object.entries(filters).every(([field, fragment]) =>
        terms[field as 'first_name' | 'last_name' | 'email'].some((value) => value.includes(fragment)),
      );
    })
    .map(({ id, fullname }) => ({ id, fullname }))
    .sort((a, b) => compareSortKeys(key(a), key(b)));
};

const listed = async (parameters: Record<string, string>) => {
  const request = personListRequest(ListPersonsQuery.parse({ ...parameters, limit: '20' }));
  const answer = await personList(table).list(request);
  const expected = bruteForce(request.filters);
  expect({ count: answer.count, persons: answer.persons }).toEqual({
    count: expected.length,
    persons: expected.slice(0, 20),
  });
  return { ...answer, detail: answer.detail as Record<string, string | number> };
};

describe('a list of several fragments (issue #60 step 1)', () => {
  it('reads the other fragment whole and intersects where checking its candidates costs more', async () => {
    const { detail, cost } = await listed({ first_name: 'zofia', last_name: 'owski' });
    const zof = postingsOfGram('zof');
    const owski = Math.min(...['ows', 'wsk', 'ski'].map(postingsOfGram));
    expect(zof).toBe(50);
    expect(owski).toBe(300);
    // 50 candidates checked would be 25 units; the 300 postings read whole 8.
    expect(cheaperStep(50, owski)).toBe('intersect');
    expect(detail).toMatchObject({
      probe: 'first_name "zof"',
      sizedBy: 'counts',
      candidates: 50,
      intersected: expect.stringMatching(/^last_name "(ows|wsk|ski)"$/),
      postingsRead: zof + owski,
      // The counts, the chosen probe's read, the other's read.
      queryRounds: 3,
    });
    expect(cost.capacityUnits).toBeLessThan(checkUnits(50));
  });

  it('checks the candidates where they are fewer than reading the other fragment costs', async () => {
    const { detail, cost } = await listed({ last_name: 'bigelow', first_name: 'maria' });
    expect(detail).toMatchObject({ probe: expect.stringMatching(/^last_name /), candidates: 5 });
    expect(detail.intersected).toBeUndefined();
    // 5 candidates checked: 2.5 units, where reading "ari" or "mar" whole costs at least 8.
    expect(cheaperStep(5, Math.min(postingsOfGram('mar'), postingsOfGram('ari')))).toBe('check');
    expect(detail.postingsRead).toBe(5);
    // The counts of 8 grams and their mark, the 5 postings and a check of each.
    expect(cost.itemsRead).toBe(9 + 5 + 5);
  });

  it('mixes the two among three fragments: intersects the cheap one, then checks the few left', async () => {
    const { detail } = await listed({ first_name: 'zofia', last_name: 'owski', email: 'example' });
    const example = Math.min(...['exa', 'xam', 'amp', 'mpl', 'ple'].map(postingsOfGram));
    expect(example).toBe(600);
    // 5 candidates left after the intersection: 2.5 units to check, 12 to read "exa" whole.
    expect(probeReadUnits(example)).toBe(12);
    expect(cheaperStep(5, example)).toBe('check');
    expect(detail).toMatchObject({
      probe: 'first_name "zof"',
      intersected: expect.stringMatching(/^last_name /),
      postingsRead: 50 + 300,
    });
  });

  it('answers a filter the counts cannot size (one code point) by checking it', async () => {
    const { detail } = await listed({ first_name: 'zofia', last_name: 'k' });
    expect(detail.intersected).toBeUndefined();
    expect(detail.postingsRead).toBe(50);
  });
});
