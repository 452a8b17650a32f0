/**
 * The filtered list read from the search postings (lib/db/posting-search.ts, not wired in yet)
 * against DynamoDB Local: for random persons (accents, cases, several names and emails, renames and
 * deletes of sub-objects) and random filters, it answers exactly what a brute-force filter over every
 * stored person answers: count, order and window.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { personListKey } from '../../lib/db/keys';
import { compareSortKeys } from '../../lib/db/person-list';
import { searchPostings } from '../../lib/db/posting-search';
import type { PersonFilters, PersonSummary } from '../../lib/domain/listing';
import type { Person } from '../../lib/domain/person';
import { planQuery, searchTerms, valuesMatch } from '../../lib/domain/search';
import { fold } from '../../lib/domain/text';
import { uniqueTag } from '../support/api';
import { testRepository } from '../support/dynamo';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

/** Names and emails from a small alphabet with accents and cases, so fragments often match. */
const part = fc
  .array(fc.constantFrom('a', 'n', 'é', 'E', 'ß', 'o', 'Ñ', 'l'), { minLength: 1, maxLength: 6 })
  .map((letters) => letters.join(''));
const nameOf = fc.record({ first_name: part, last_name: part });
const emailOf = fc
  .tuple(part, part)
  .map(
    ([local, domain]) =>
      `${fold(local).replace(/[^a-z]/g, 'x')}@${fold(domain).replace(/[^a-z]/g, 'y')}.example`,
  );

/** The persons as stored, by id: what the brute force filters. */
const stored = new Map<number, Person>();

const bruteForce = (filters: PersonFilters, descending: boolean) => {
  const plan = planQuery(filters);
  const key = ({ id, fullname }: PersonSummary) => personListKey(fold(fullname), id).listSk;
  return [...stored.values()]
    .filter((person) => plan.filters.every((filter) => valuesMatch(filter, searchTerms(person))))
    .map(({ id, fullname }) => ({ id, fullname }))
    .sort((a, b) => (descending ? compareSortKeys(key(b), key(a)) : compareSortKeys(key(a), key(b))));
};

/** The person as the repository reads it back. */
const remember = async (id: number) => stored.set(id, await testRepository(suite.table).get(id));

beforeAll(async () => {
  // 40 persons, some renamed or with an email or a name deleted afterwards.
  const persons = fc.sample(
    fc.record({
      names: fc.array(nameOf, { minLength: 1, maxLength: 3 }),
      emails: fc.uniqueArray(emailOf, { maxLength: 2 }),
    }),
    { numRuns: 40, seed: 25 },
  );
  for (const [n, { names, emails }] of persons.entries()) {
    const tag = uniqueTag('t');
    const { status, body } = await suite.api.post({
      Names: { '@set': names.map((name, index) => ({ ...name, primary: index === 0 })) },
      ...(emails.length > 0
        ? { Emails: { '@set': emails.map((email) => ({ email: email.replace('@', `.${tag}@`) })) } }
        : {}),
    });
    expect(status).toBe(201);
    const setOf = (set: string) =>
      (body as Record<string, { '@set': { id: number }[] }>)[set]?.['@set'] ?? [];
    if (n % 3 === 0)
      await suite.api.patch(body.id, {
        Names: { '@set': [{ id: setOf('Names')[0]?.id, first_name: `Zoë${n}` }] },
      });
    if (n % 4 === 0 && setOf('Emails').length > 1)
      await suite.api.patch(body.id, { Emails: { '@set': [{ id: setOf('Emails')[1]?.id }] } });
    if (n % 5 === 0 && setOf('Names').length > 1)
      await suite.api.patch(body.id, { Names: { '@set': [{ id: setOf('Names')[1]?.id }] } });
    await remember(body.id);
  }
}, 120_000);

describe('a filtered list from the postings', () => {
  it('answers exactly what a brute-force filter over every stored person answers', async () => {
    const values = [...stored.values()].flatMap((person) => Object.values(searchTerms(person)).flat());
    const fragment = fc.oneof(
      part.map(fold),
      fc
        .tuple(fc.constantFrom(...values), fc.nat(), fc.integer({ min: 2, max: 8 }))
        .map(([value, start, length]) =>
          Array.from(value)
            .slice(start % value.length)
            .slice(0, length)
            .join(''),
        ),
    );
    const filters = fc
      .record(
        { first_name: fragment, last_name: fragment, email: fragment, search: fragment },
        { requiredKeys: [] },
      )
      // At least one fragment of 2 or more code points: the postings answer (the index answers the rest).
      .filter((chosen) =>
        Object.values(chosen).some((value) => value !== undefined && Array.from(value).length >= 2),
      );
    await fc.assert(
      fc.asyncProperty(
        filters,
        fc.boolean(),
        fc.nat(12),
        fc.integer({ min: 1, max: 20 }),
        async (chosen, descending, offset, limit) => {
          const expected = bruteForce(chosen, descending);
          const answer = await searchPostings(suite.table, planQuery(chosen), {
            descending,
            window: { offset, limit },
          });
          expect({ count: answer.count, persons: answer.persons }).toEqual({
            count: expected.length,
            persons: expected.slice(offset, offset + limit),
          });
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('reads the rarest probe whole and only samples the others', async () => {
    const [someone] = stored.values();
    const email = fold(someone?.Emails[0]?.email ?? 'x@y.example');
    // A whole email (rare) and its first 3 characters of the domain part: many grams to choose from.
    const answer = await searchPostings(suite.table, planQuery({ email, search: 'a' }), {
      descending: false,
      window: { offset: 0, limit: 10 },
    });
    expect(answer.count).toBe(bruteForce({ email, search: 'a' }, false).length);
    // Sampling: 16 per shard and probe at most; the rarest read whole; the check of `search` reads
    // each candidate.
    const probes = planQuery({ email }).probes.length;
    expect(answer.cost.itemsRead).toBeLessThanOrEqual(probes * 8 * 16 + 3 * answer.count + 1);
  });
});
