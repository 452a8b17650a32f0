/** The merge section's model of a merge's transactions (test/bench/merge.ts), on hand-made pairs. */
import { describe, expect, it } from 'vitest';
import { planMerge } from '../../../lib/db/person/write/person-merge';
import { composeWrite } from '../../../lib/db/person/write/person-write';
import { MAX_TRANSACTION_ACTIONS, transactionOf } from '../../../lib/db/write/actions';
import type { Person } from '../../../lib/domain/person';
import type { RecordedCall } from '../../bench/capacity';
import { modelOf, predictMerge, rangeOf, transactionsOf } from '../../bench/merge';
import { createdPerson } from '../../support/fixtures';

const TABLE = 'bench-merge-test';

const person = (last: string, firstId: number, emails: string[]) =>
  createdPerson(
    {
      Names: { '@set': [{ first_name: 'Bench', last_name: last }] },
      Emails: { '@set': emails.map((email) => ({ email })) },
    },
    { firstId },
  );
const side = (stored: Person) => ({ person: stored, pending: null });
const emails = (label: string, count: number) =>
  Array.from({ length: count }, (_, n) => `${label}.${String(n).padStart(2, '0')}@bench.example.org`);

describe('predictMerge', () => {
  it('plans a pair of one name and one email each as one transaction of fewer than 100 actions', () => {
    const model = predictMerge(
      TABLE,
      side(person('Merge s1', 100, ['s1@bench.example.org'])),
      side(person('Merge d1', 200, ['d1@bench.example.org'])),
    );
    expect(model.transactions).toBe(1);
    expect(model.actions).toHaveLength(1);
    expect(model.actions[0]).toBeLessThanOrEqual(MAX_TRANSACTION_ACTIONS);
    // The postings are most of it; the parts' own actions (8 with the survivor's link to the source,
    // one more per moved email) the rest.
    expect(model.postings).toBe((model.actions[0] ?? 0) - 9);
  });

  it("counts a large pair's write and its chains, as composeWrite composes them for the repository", () => {
    const survivor = side(person('Merge s2', 1000, emails('s2', 25)));
    const source = side(person('Merge d2', 2000, emails('d2', 25)));
    const model = predictMerge(TABLE, survivor, source);
    const composed = composeWrite(
      TABLE,
      planMerge({
        tableName: TABLE,
        survivor,
        source,
        requester: 7,
        now: '2026-11-26T12:00:00.000Z',
        changeIds: { survivor: 900, source: 901 },
      }).parts,
      'token',
    );
    // The requester, time, change ids and token change no count.
    expect(model).toEqual(modelOf(composed));
    expect(composed.prelude).toBeUndefined();
    expect(model.transactions).toBe(1 + composed.chain.length);
    expect(model.transactions).toBeGreaterThan(1);
    expect(model.actions[0]).toBe(MAX_TRANSACTION_ACTIONS);
    expect(model.actions.slice(1)).toEqual(composed.chain.map(({ roles }) => roles.length));
  });
});

describe('modelOf', () => {
  const action = (kind: 'object' | 'posting' | 'pending') =>
    [{ Put: { TableName: TABLE, Item: { pk: 'x', sk: 'y' } } }, { kind }] as const;
  const transaction = (...kinds: ('object' | 'posting' | 'pending')[]) =>
    transactionOf(kinds.map((kind) => [...action(kind)]));

  it('counts the prelude first, then the write, then the chain, and the postings and POSTINGS items of all', () => {
    expect(
      modelOf({
        prelude: transaction('pending'),
        write: transaction('object', 'object', 'posting'),
        chain: [transaction('posting', 'posting', 'pending')],
        preluded: [1],
        chained: [1],
      }),
    ).toEqual({ transactions: 3, actions: [1, 3, 3], postings: 5 });
    expect(modelOf({ write: transaction('object'), chain: [], preluded: [], chained: [] })).toEqual({
      transactions: 1,
      actions: [1],
      postings: 0,
    });
  });
});

describe('transactionsOf', () => {
  it('gives the actions of each TransactWriteItems recorded, in order, and nothing of other calls', () => {
    const call = (command: string, actions?: number): RecordedCall => ({
      command,
      input: actions === undefined ? {} : { TransactItems: Array.from({ length: actions }, () => ({})) },
      output: {},
    });
    expect(
      transactionsOf([
        call('BatchGetItem'),
        call('UpdateItem'),
        call('TransactWriteItems', 100),
        call('TransactWriteItems', 35),
        call('TransactWriteItems', 6),
      ]),
    ).toEqual([100, 35, 6]);
    expect(transactionsOf([call('GetItem')])).toEqual([]);
  });
});

describe('rangeOf', () => {
  it('gives the least and the most', () => {
    expect(rangeOf([4, 3, 4])).toEqual({ min: 3, max: 4 });
    expect(rangeOf([1])).toEqual({ min: 1, max: 1 });
  });
});
