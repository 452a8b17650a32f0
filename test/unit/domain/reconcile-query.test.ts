/**
 * A reconciliation query batch (issue #53 step 2, API.md 12) is refused exactly when the Reconciliation
 * API 0.2's query-batch schema refuses it (test/support/reconciliation-schemas.ts, written from
 * reconciliation-api/specs 0.2/schemas/reconciliation-query-batch.json), and besides only past the
 * service's own batch limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QUERY_TEXT_REQUIRED, RECONCILE_LIMITS, ReconcileQueryBatch } from '../../../lib/domain/reconcile';
import { wireErrors } from '../../../lib/domain/schemas';
import { fieldErrors } from '../../../lib/http/request';
import { reconcileErrors } from '../../support/reconciliation-schemas';

const parse = (batch: unknown) => ReconcileQueryBatch.safeParse(batch, { error: wireErrors });
const errorsOf = (batch: unknown) => {
  const parsed = parse(batch);
  return parsed.success ? [] : fieldErrors(parsed.error.issues);
};

// Keys a JSON object may hold; `__proto__` is left out, as JSON.parse makes it an own key but a
// literal would not.
const key = fc.string({ maxLength: 4 }).filter((name) => name !== '__proto__');
const text = fc.string({ maxLength: 6 });
const number = fc.oneof(
  fc.integer({ min: -5, max: 60 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const scalar = fc.oneof(text, number, fc.boolean(), fc.constant(null));
const entity = fc.record(
  { id: fc.oneof(text, number), name: fc.oneof(text, number) },
  { requiredKeys: [], noNullPrototype: true },
);
const value = fc.oneof(scalar, entity);
const property = fc.record(
  {
    pid: fc.oneof(text, fc.constantFrom('email', 'first_name'), number),
    p: fc.oneof(text, number),
    v: fc.oneof(value, fc.array(fc.oneof(value, fc.array(value, { maxLength: 2 })), { maxLength: 3 })),
  },
  { requiredKeys: [], noNullPrototype: true },
);
const query = fc.record(
  {
    query: fc.oneof(text, text, number, fc.constant(null)),
    type: fc.oneof(text, fc.array(text, { maxLength: 2 }), fc.array(scalar, { maxLength: 2 }), number),
    limit: fc.oneof(number, number, text),
    properties: fc.oneof(fc.array(property, { maxLength: 3 }), fc.array(property, { maxLength: 3 }), text),
    type_strict: fc.oneof(fc.constantFrom('any', 'should', 'all'), text),
    quer: text,
  },
  { requiredKeys: [], noNullPrototype: true },
);
const batch = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.dictionary(key, fc.oneof({ weight: 8, arbitrary: query }, scalar), {
      maxKeys: 4,
      noNullPrototype: true,
    }),
  },
  { weight: 1, arbitrary: fc.array(query, { maxLength: 2 }) },
  { weight: 1, arbitrary: scalar },
);

describe('a reconciliation query batch', () => {
  it('is refused exactly when the 0.2 query-batch schema refuses it', () => {
    const seen = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(batch, (sent) => {
        const valid = reconcileErrors('query-batch', sent).length === 0;
        expect(parse(sent).success).toBe(valid);
        seen[valid ? 'accepted' : 'refused'] += 1;
      }),
      { numRuns: 3000 },
    );
    // Both sides were tried, many times.
    expect(seen.accepted).toBeGreaterThan(100);
    expect(seen.refused).toBeGreaterThan(100);
  });

  it.each<[string, unknown, { path: string; message: RegExp | string }[]]>([
    [
      'a query without query',
      { q0: { quer: 'x' } },
      [
        { path: '/q0/quer', message: 'Unknown property' },
        { path: '/q0/query', message: QUERY_TEXT_REQUIRED },
      ],
    ],
    ['a query whose query is not a string', { q0: { query: 3 } }, [{ path: '/q0/query', message: /string/ }]],
    ['a query that is not an object', { q0: 'Ada Lovelace' }, [{ path: '/q0', message: /object/ }]],
    ['a batch that is not an object', ['Ada Lovelace'], [{ path: '', message: /JSON object of queries/ }]],
    [
      'only an empty list of properties',
      { q0: { properties: [] } },
      [{ path: '/q0/query', message: QUERY_TEXT_REQUIRED }],
    ],
    [
      'a property without pid',
      { q0: { query: 'x', properties: [{ p: 'email', v: 'a@example.org' }] } },
      [{ path: '/q0/properties/0/pid', message: /string/ }],
    ],
    [
      'a type_strict the spec does not name',
      { q0: { query: 'x', type_strict: 'some' } },
      [{ path: '/q0/type_strict', message: /should/ }],
    ],
  ])('refuses %s, pointing at the offending key', (_, sent, expected) => {
    expect(errorsOf(sent)).toEqual(
      expected.map(({ path, message }) => ({
        path,
        message: typeof message === 'string' ? message : expect.stringMatching(message),
      })),
    );
  });

  it('takes a query of properties alone, and what OpenRefine sends', () => {
    expect(parse({ q0: { properties: [{ pid: 'email', v: 'ada@example.org' }] } }).success).toBe(true);
    expect(
      parse({
        q0: {
          query: 'Ada Lovelace',
          type: 'Person',
          type_strict: 'should',
          limit: 3,
          properties: [{ pid: 'email', v: ['ada@example.org', { id: '7', name: 'Ada' }] }],
        },
      }).success,
    ).toBe(true);
  });

  it('reads a limit as the spec types it, a number: a fraction rounded down, one under 1 the default', () => {
    const limitOf = (limit: number) => {
      const parsed = parse({ q0: { query: 'x', limit } });
      return parsed.success ? parsed.data.q0?.limit : 'refused';
    };
    expect([limitOf(3), limitOf(2.9), limitOf(0.5), limitOf(-4)]).toEqual([3, 2, 0, 0]);
  });

  it(`holds at most ${RECONCILE_LIMITS.maxQueries} queries, and says so whatever the queries hold`, () => {
    const batchOf = (count: number, query: unknown) =>
      Object.fromEntries(Array.from({ length: count }, (_, index) => [`q${index}`, query]));
    expect(parse(batchOf(RECONCILE_LIMITS.maxQueries, { query: 'x' })).success).toBe(true);
    for (const query of [{ query: 'x' }, { quer: 'x' }])
      expect(errorsOf(batchOf(RECONCILE_LIMITS.maxQueries + 1, query))).toEqual([
        {
          path: '',
          message: `A batch holds at most ${RECONCILE_LIMITS.maxQueries} queries, not ${RECONCILE_LIMITS.maxQueries + 1}: send them in batches of ${RECONCILE_LIMITS.maxQueries} or fewer`,
        },
      ]);
  });
});
