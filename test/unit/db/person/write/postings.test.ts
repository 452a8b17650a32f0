import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  NOTHING_BEFORE,
  type PostingChanges,
  type PostingItem,
  type PostingsBefore,
  planPostings,
  postingChanges,
  postingItemsOf,
} from '../../../../../lib/db/person/write/postings';
import {
  type Key,
  PERSON_LIST_SHARDS,
  postingKey,
  postingsPendingKey,
} from '../../../../../lib/db/table/keys';
import { MAX_TRANSACTION_ACTIONS, type TransactItem } from '../../../../../lib/db/write/actions';
import { applyPatch } from '../../../../../lib/domain/patch';
import type { Person } from '../../../../../lib/domain/person';
import { CreatePersonBody, PatchPersonBody } from '../../../../../lib/domain/schemas';
import { END_MARK, searchTerms } from '../../../../../lib/domain/search';
import { writeContext } from '../../../../support/fixtures';
import { fuzzRuns } from '../../../../support/fuzz-runs';

const RUNS = fuzzRuns(1_000);
const TABLE = 'postings-test';

const created = (body: unknown): Person =>
  applyPatch(null, CreatePersonBody.parse(body), writeContext('create')).person;

const patched = (stored: Person, body: unknown): Person =>
  applyPatch(stored, PatchPersonBody.parse(body), writeContext('update')).person;

const ann = () =>
  created({
    Names: { '@set': [{ first_name: 'Ann', last_name: 'Lee' }] },
    Emails: { '@set': [{ email: 'ann@x.example' }] },
  });

const keyString = ({ pk, sk }: Key) => `${pk} ${sk}`;

/** Stored postings (by key) after applying changes to what was there. */
const applied = (stored: Map<string, PostingItem>, { puts, deletes }: PostingChanges) => {
  const next = new Map(stored);
  for (const key of deletes) next.delete(keyString(key));
  for (const item of puts) next.set(keyString(item), item);
  return next;
};

const storeOf = (items: PostingItem[]) => new Map(items.map((item) => [keyString(item), item]));

describe('a posting', () => {
  it("is keyed by the gram's first two code points and the person's shard, then the third code point and the id", () => {
    const person = ann();
    const shard = Number(postingKey('ann', person.id).pk.split('#').at(-1));
    expect(shard).toBeGreaterThanOrEqual(0);
    expect(shard).toBeLessThan(PERSON_LIST_SHARDS);
    expect(postingItemsOf(person)).toContainEqual({
      pk: `GRAM#an#${shard}`,
      sk: 'n0000000000000100',
      type: 'Posting',
      id: 100,
      fullname: 'Ann Lee',
      values: { first_name: ['ann'], email: ['ann@x.example'], rest: ['ann lee'] },
    });
    expect(postingItemsOf(person)).toContainEqual(
      expect.objectContaining({
        pk: `GRAM#ee#${shard}`,
        sk: `${END_MARK}0000000000000100`,
        values: { last_name: ['lee'], rest: ['ann lee'] },
      }),
    );
  });

  it('keeps an astral character whole in its key', () => {
    expect(postingKey('\u{1f600}a\u{1f600}', 7).pk).toMatch(/^GRAM#\u{1f600}a#\d$/u);
    expect(postingKey('\u{1f600}a\u{1f600}', 7).sk).toBe('\u{1f600}0000000000000007');
  });

  it('is one per distinct gram, whichever fields hold it', () => {
    const keys = postingItemsOf(ann()).map(keyString);
    expect(new Set(keys).size).toBe(keys.length);
    // ann, nn⏎, lee, ee⏎; "nn ", "n l", " le" of the fullname; 11 more of the email (ann and le⏎ shared)
    expect(keys).toHaveLength(18);
  });

  it('is spread over the shards by id, as the list partitions are', () => {
    const shards = new Set(Array.from({ length: 64 }, (_, n) => postingKey('com', 50 * n + 1).pk));
    expect(shards.size).toBe(PERSON_LIST_SHARDS);
  });
});

describe('the postings a write changes', () => {
  it('a create puts every posting and deletes none', () => {
    const person = ann();
    expect(postingChanges(NOTHING_BEFORE, person)).toEqual({ puts: postingItemsOf(person), deletes: [] });
  });

  it('a write that changes no searchable value changes no posting', () => {
    const before = ann();
    const after = patched(before, { PhoneNumbers: { '@set': [{ phone_number: '+1 202 555 0100' }] } });
    expect(postingChanges({ person: before, pending: null }, after)).toEqual({ puts: [], deletes: [] });
  });

  it('an email change puts the postings that hold the email (their values changed) and deletes its grams gone', () => {
    const before = ann();
    const after = patched(before, { Emails: { '@set': [{ id: 102, email: 'ann@y.example' }] } });
    const { puts, deletes } = postingChanges({ person: before, pending: null }, after);
    expect(puts).toEqual(postingItemsOf(after).filter((item) => item.values.email));
    expect(puts).toHaveLength(12);
    expect(deletes.map(keyString).sort()).toEqual(
      ['n@x', '@x.', 'x.e'].map((gram) => keyString(postingKey(gram, after.id))).sort(),
    );
  });

  it('a rename puts every posting again (they carry the fullname), and deletes only the grams gone', () => {
    const before = ann();
    const after = patched(before, { Names: { '@set': [{ id: 101, first_name: 'Anne' }] } });
    const { puts, deletes } = postingChanges({ person: before, pending: null }, after);
    expect(puts).toEqual(postingItemsOf(after));
    expect(puts.every((item) => item.fullname === 'Anne Lee')).toBe(true);
    expect(deletes.map(keyString).sort()).toEqual(
      [`nn${END_MARK}`, 'nn ', 'n l'].map((gram) => keyString(postingKey(gram, after.id))).sort(),
    );
  });

  it('after an unfinished write, puts every posting and deletes what either terms could have left', () => {
    const before = ann();
    const pending = searchTerms(created({ Names: { '@set': [{ first_name: 'Zoe', last_name: 'Lee' }] } }));
    const after = patched(before, { Emails: { '@set': [{ id: 102, email: 'ann@y.example' }] } });
    const { puts, deletes } = postingChanges({ person: before, pending }, after);
    expect(puts).toEqual(postingItemsOf(after));
    expect(deletes.map(keyString)).toContain(keyString(postingKey('zoe', after.id)));
    expect(deletes.map(keyString)).not.toContain(keyString(postingKey('lee', after.id)));
  });

  describe('properties', () => {
    const part = fc.string({ unit: fc.constantFrom('a', 'b', 'É', 'ß', '\u{1f600}', ' '), maxLength: 8 });
    const body = fc.record({
      Names: fc.array(
        fc.record({
          first_name: part.map((value) => `a${value}`),
          last_name: part.map((value) => `b${value}`),
        }),
        {
          minLength: 1,
          maxLength: 3,
        },
      ),
      Emails: fc.uniqueArray(
        fc.constantFrom('ab@x.example', 'ba@y.example', 'aab@z.example', 'b@x.example'),
        {
          maxLength: 3,
        },
      ),
    });
    const person = body.map(({ Names, Emails }) =>
      created({
        Names: { '@set': Names.map((name, index) => ({ ...name, primary: index === 0 ? 1 : 0 })) },
        ...(Emails.length > 0 ? { Emails: { '@set': Emails.map((email) => ({ email })) } } : {}),
      }),
    );
    /** A person as a later write makes it: the same id, other values. */
    const rewritten = (base: Person, next: Person): Person => ({ ...next, id: base.id });

    it('applied to the postings before, the changes leave exactly the postings of the person after', () => {
      fc.assert(
        fc.property(person, person, (before, next) => {
          const after = rewritten(before, next);
          const changes = postingChanges({ person: before, pending: null }, after);
          expect(applied(storeOf(postingItemsOf(before)), changes)).toEqual(storeOf(postingItemsOf(after)));
        }),
        { numRuns: RUNS },
      );
    });

    it('after an unfinished write (any part of either postings stored), they still leave exactly those of the person after', () => {
      fc.assert(
        fc.property(person, person, person, fc.infiniteStream(fc.boolean()), (older, before, next, keep) => {
          const stored = rewritten(older, before);
          const after = rewritten(older, next);
          const pending: PostingsBefore = { person: stored, pending: searchTerms(older) };
          const halfWritten = [...postingItemsOf(older), ...postingItemsOf(stored)].filter(
            () => keep.next().value,
          );
          const changes = postingChanges(pending, after);
          expect(applied(storeOf(halfWritten), changes)).toEqual(storeOf(postingItemsOf(after)));
        }),
        { numRuns: RUNS },
      );
    });
  });
});

describe('where the postings of a write go', () => {
  const person = ann();
  const changes = postingChanges(NOTHING_BEFORE, person);
  const count = changes.puts.length;
  const kinds = (items: TransactItem[]) =>
    items.map((item) => Object.keys(item)[0] + (item.Put?.Item?.type === 'Posting' ? ':posting' : ''));

  it('all into the write while they fit', () => {
    const plan = planPostings({
      tableName: TABLE,
      personId: 100,
      before: NOTHING_BEFORE,
      changes,
      room: count,
      token: 't',
    });
    expect(plan.prelude).toEqual([]);
    expect(plan.chain).toEqual([]);
    expect(plan.inWrite).toHaveLength(count);
  });

  it('with the POSTINGS item deleted, when an earlier write had left one', () => {
    const before: PostingsBefore = { person: null, pending: searchTerms(person) };
    const plan = planPostings({
      tableName: TABLE,
      personId: 100,
      before,
      changes,
      room: count + 1,
      token: 't',
    });
    expect(plan.chain).toEqual([]);
    expect(plan.inWrite.at(-1)?.[0]).toEqual({ Delete: { TableName: TABLE, Key: postingsPendingKey(100) } });
  });

  it('beyond the room: the POSTINGS item and what fits in the write, the rest in a chain checking the token', () => {
    const plan = planPostings({
      tableName: TABLE,
      personId: 100,
      before: NOTHING_BEFORE,
      changes,
      room: 5,
      token: 't',
    });
    expect(plan.prelude).toEqual([]);
    expect(plan.inWrite).toHaveLength(5);
    expect(plan.inWrite[0]?.[0].Put?.Item).toEqual({
      ...postingsPendingKey(100),
      type: 'PostingsPending',
      token: 't',
      terms: { first_name: [], last_name: [], email: [], rest: [] },
    });
    const [last] = plan.chain.map(({ input }) => input.TransactItems ?? []);
    expect(kinds(last ?? [])).toEqual([...Array(count - 4).fill('Put:posting'), 'Delete']);
    expect(last?.at(-1)?.Delete).toMatchObject({
      Key: postingsPendingKey(100),
      ConditionExpression: '#token = :token',
      ExpressionAttributeValues: { ':token': 't' },
    });
  });

  it('splits a long chain into transactions of at most 100 actions, each checking the token, with a guard', () => {
    const many: PostingChanges = {
      puts: Array.from({ length: 250 }, () => changes.puts)
        .flat()
        .slice(0, 250),
      deletes: [],
    };
    const guard = [
      { ConditionCheck: { TableName: TABLE, Key: { pk: 'g', sk: 'g' }, ConditionExpression: 'x' } },
      { kind: 'object' },
    ] as const;
    const plan = planPostings({
      tableName: TABLE,
      personId: 100,
      before: NOTHING_BEFORE,
      changes: many,
      room: 1,
      token: 't',
      guard: [...guard],
    });
    const chain = plan.chain.map(({ input }) => input.TransactItems ?? []);
    expect(plan.inWrite).toHaveLength(1);
    expect(chain.map((items) => items.length)).toEqual([100, 100, 56]);
    expect(chain.flat().filter((item) => item.Put?.Item?.type === 'Posting')).toHaveLength(250);
    for (const items of chain) {
      expect(items[0]).toEqual(guard[0]);
      expect(items.at(-1)?.ConditionCheck ?? items.at(-1)?.Delete).toMatchObject({
        Key: postingsPendingKey(100),
        ExpressionAttributeValues: { ':token': 't' },
      });
    }
    expect(MAX_TRANSACTION_ACTIONS).toBe(100);
  });

  it('with no room at all, the POSTINGS item goes first, before the write', () => {
    const plan = planPostings({
      tableName: TABLE,
      personId: 100,
      before: NOTHING_BEFORE,
      changes,
      room: 0,
      token: 't',
    });
    expect(plan.inWrite).toEqual([]);
    expect(kinds(plan.prelude.map(([item]) => item))).toEqual(['Put']);
    expect(
      plan.chain
        .flat()
        .flatMap(({ input }) => input.TransactItems ?? [])
        .filter((item) => item.Put),
    ).toHaveLength(count);
  });

  it('plans nothing for a write already over 100 actions without its postings: it is refused anyway', () => {
    expect(
      planPostings({
        tableName: TABLE,
        personId: 100,
        before: NOTHING_BEFORE,
        changes,
        room: -1,
        token: 't',
      }),
    ).toEqual({ prelude: [], inWrite: [], chain: [] });
  });
});
