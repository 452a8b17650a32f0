/**
 * Issue #43 step 4: the model's cost functions are the code's. Its create is the transaction
 * planPersonWrite + personWrite build, action for action; a key design passed as a parameter moves
 * the units and the hot partitions of the reads (the create's hot loads are operations.test.ts's);
 * a filtered list's shards are charged each on its own postings, as the bench counts them.
 */
import { describe, expect, it } from 'vitest';
import { BENCH_PERSON, costModel, DESIGN, expectedUnits } from '../../../lib/capacity/operations';
import {
  CREATE,
  idsToReserve,
  personWrite,
  planPersonWrite,
} from '../../../lib/db/person/write/person-write';
import { NO_ABBREVIATIONS } from '../../../lib/domain/person';
import { CreatePersonBody } from '../../../lib/domain/schemas';

const persons = 100_000;
const model = costModel({ persons, person: BENCH_PERSON });
const withDesign = (design: Partial<typeof DESIGN>) =>
  costModel({ persons, person: BENCH_PERSON, design: { ...DESIGN, ...design } });

/** The create of BENCH_PERSON as the repository plans and composes it, outside the model. */
const plannedCreate = () => {
  const body = CreatePersonBody.parse({
    Names: { '@set': [{ first_name: BENCH_PERSON.first_name, last_name: BENCH_PERSON.last_name }] },
    Emails: { '@set': [{ email: BENCH_PERSON.email }] },
  });
  let next = persons;
  const plan = planPersonWrite({
    tableName: 'any',
    start: CREATE,
    body,
    requester: persons + 1,
    now: '2026-01-01T00:00:00.000Z',
    nextId: () => next++,
    changeId: persons * 10,
    abbreviations: NO_ABBREVIATIONS,
  });
  const write = personWrite('any', plan, 'token');
  const transactions = [...(write.prelude ? [write.prelude] : []), write.write, ...write.chain];
  return { transactions, reserved: idsToReserve('create', body) };
};

describe("the capacity model's cost functions are the ones the code runs", () => {
  it("prices the create's transactions as planPersonWrite + personWrite compose them, action for action", () => {
    const { transactions, reserved } = plannedCreate();
    const sizes = transactions.map((transaction) => transaction.input.TransactItems?.length ?? 0);
    const create = model.create();
    expect(create.actions).toBe(Math.max(...sizes));
    // One call per transaction, and the id block's share of the ids the create reserves.
    expect(create.calls).toBeCloseTo(transactions.length + reserved / 50);
    // Every Put, Update and Delete is an item written; a ConditionCheck (the requester's) is 2 RCU.
    const checks = transactions
      .flatMap((transaction) => transaction.input.TransactItems ?? [])
      .filter((item) => item.ConditionCheck).length;
    expect(create.itemsWritten).toBeCloseTo(sizes.reduce((a, b) => a + b, 0) - checks + reserved / 50);
    expect(create.rcu).toBe(2 * checks);
  });

  it('reads a first page from each list shard: twice the shards, more Queries and units, no more on each', () => {
    const doubled = withDesign({ listShards: 2 * DESIGN.listShards }).list(50);
    const list = model.list(50);
    expect(doubled.calls).toBeGreaterThan(list.calls);
    expect(doubled.rcu).toBeGreaterThan(list.rcu);
    const byName = (cost: typeof list) => cost.hot.find((load) => load.partition.startsWith('byName'))?.rcu;
    expect(byName(doubled)).toBeLessThanOrEqual(byName(list) ?? 0);
  });

  it("reads a rare filter's postings in every posting shard: the shard count is its price", () => {
    const rare = (shards: number) => withDesign({ listShards: shards }).listFiltered(10 / persons, 7);
    // 5 grams' counts and the mark, then one Query per shard at the half unit minimum.
    expect(rare(DESIGN.listShards).rcu).toBe(6 * 0.5 + DESIGN.listShards * 0.5);
    expect(rare(16).rcu - rare(DESIGN.listShards).rcu).toBe((16 - DESIGN.listShards) * 0.5);
    expect(rare(16).calls).toBe(1 + 16);
  });

  it('reads a common filter on its busiest posting partition: half the shards, twice the load on one', () => {
    const common = (shards: number) => withDesign({ listShards: shards }).listFiltered(0.2, 5);
    const busiest = (shards: number) => common(shards).hot[0]?.rcu ?? 0;
    expect(busiest(DESIGN.listShards / 2) / busiest(DESIGN.listShards)).toBeCloseTo(2, 1);
    // The same postings read either way, rounded on fewer Queries.
    expect(common(DESIGN.listShards / 2).rcu).toBeLessThan(common(DESIGN.listShards).rcu);
  });

  it('reads a feed page from every feed shard: the heads are one per shard', () => {
    const idle = (shards: number) => withDesign({ feedShards: shards }).feedPage(0, 100);
    expect(idle(16).rcu).toBe(2 * idle(DESIGN.feedShards).rcu);
  });

  it("charges each posting shard's Query on its own postings, rounded up, not an even split rounded", () => {
    // 2 000 postings of 130 bytes over 8 shards: about 7.9 units a shard. Rounding the even split
    // says 8 each; a shard's Query rounds its own share: about 8.4 expected.
    const units = expectedUnits(2_000, 1 / 8, 130 / 4096);
    expect(units).toBeGreaterThan(8.2);
    expect(units).toBeLessThan(8.6);
    // An empty or nearly empty shard costs the minimum; a fixed share rounds as DynamoDB does.
    expect(expectedUnits(10, 1 / 8, 130 / 4096)).toBeCloseTo(1, 6);
    expect(expectedUnits(0, 1 / 8, 130 / 4096)).toBe(1);
    expect(expectedUnits(400, 1, 130 / 4096)).toBe(Math.ceil((400 * 130) / 4096));
  });

  it('prices a filtered list with those shard Queries: 20% of 10 000 persons, postings of 130 bytes', () => {
    const common = costModel({ persons: 10_000, person: BENCH_PERSON, itemBytes: { posting: 130 } });
    // 3 grams' counts and the mark, then 8 Queries, eventually consistent (the bench measured 33).
    expect(common.listFiltered(0.2, 5).rcu).toBeCloseTo(
      4 * 0.5 + 8 * 0.5 * expectedUnits(2_000, 1 / 8, 130 / 4096),
    );
    expect(common.listFiltered(0.2, 5).rcu).not.toBe(4 * 0.5 + 8 * 0.5 * Math.ceil((250 * 130) / 4096));
  });

  it("charges each shard's Query on the postings it holds when they are known, a page per 5 000", () => {
    const sized = costModel({ persons, person: BENCH_PERSON, itemBytes: { posting: 130 } });
    const shardPostings = [0, 31, 32, 63, 100, 5_000, 6_000, 40];
    const known = sized.listFiltered(0.2, 5, 'known', { shardPostings });
    // A shard's units are its own bytes rounded up (half a unit each, eventually consistent), an
    // empty Query the minimum; 6 000 postings take two Queries of 3 000.
    const shard = (count: number) => 0.5 * Math.max(1, Math.ceil((count * 130) / 4096));
    const expected = [0, 31, 32, 63, 100, 5_000, 40].map(shard).reduce((a, b) => a + b, 0) + 2 * shard(3_000);
    expect(known.rcu).toBeCloseTo(4 * 0.5 + expected);
    expect(known.calls).toBe(1 + 9);
    // Not the expected split of the same postings.
    expect(known.rcu).not.toBeCloseTo(sized.listFiltered(11_266 / persons, 5).rcu);
  });

  it("checks a list's other fragments on the candidates: a posting each, the person under 3 code points", () => {
    const sized = costModel({ persons, person: BENCH_PERSON, itemBytes: { posting: 130 } });
    const one = sized.listFiltered(0.01, 5);
    // 1 000 candidates; the other fragment's posting read for each (half a unit), 10 BatchGetItems;
    // both fragments' grams counted in the first round (3 + 2, and the mark).
    const two = sized.listFiltered(0.01, 5, 'two', { others: [{ length: 4, holding: 0.1 }] });
    expect(two.rcu).toBeCloseTo(one.rcu + 2 * 0.5 + 1_000 * 0.5);
    expect(two.calls).toBe(one.calls + 10);
    // A third fragment is checked on the 100 the second left; of 2 code points, on the persons (a
    // prefix probe counted with a Query at its minimum).
    const three = sized.listFiltered(0.01, 5, 'three', {
      others: [
        { length: 4, holding: 0.1 },
        { length: 2, holding: 1 },
      ],
    });
    expect(three.rcu).toBeCloseTo(two.rcu + 0.5 + 100 * 0.5 * Math.ceil(sized.sizes.person / 4096));
    expect(three.calls).toBe(two.calls + 1 + 1);
    // Fewer candidates than the rarest gram's postings (not every one holds the fragment).
    const fewer = sized.listFiltered(0.01, 5, 'fewer', {
      candidates: 200,
      others: [{ length: 4, holding: 0.1 }],
    });
    expect(two.rcu - fewer.rcu).toBeCloseTo(800 * 0.5);
  });

  it("reads another fragment's rarest probe whole where that costs less than checking (issue #60)", () => {
    const sized = costModel({ persons, person: BENCH_PERSON, itemBytes: { posting: 130 } });
    const one = sized.listFiltered(0.01, 5);
    // 1 000 candidates: 500 units to check; 8 000 postings of the other's rarest probe, 1 000 a shard
    // of 130 bytes, 16 units a shard (the list prices 120 bytes: 15), one Query each.
    const other = { length: 4, holding: 0.1, postings: 8_000, shardPostings: Array(8).fill(1_000) };
    const two = sized.listFiltered(0.01, 5, 'two', { others: [other] });
    expect(two.rcu).toBeCloseTo(one.rcu + 2 * 0.5 + 8 * 16);
    expect(two.calls).toBe(one.calls + 8);
    expect(sized.listFiltered(0.01, 5, 'checked', { others: [other], step: 'check' }).rcu).toBeCloseTo(
      one.rcu + 2 * 0.5 + 1_000 * 0.5,
    );
    // 100 candidates (50 units) are checked: reading the 8 000 would cost 120 by the list's own pricing.
    const few = sized.listFiltered(0.01, 5, 'few', { candidates: 100, others: [other] });
    expect(few.rcu).toBeCloseTo(one.rcu + 2 * 0.5 + 100 * 0.5);
    // Without the other's postings (a profile's list), checked as before.
    expect(sized.listFiltered(0.01, 5, 'unsized', { others: [{ length: 4, holding: 0.1 }] }).rcu).toBeCloseTo(
      one.rcu + 2 * 0.5 + 1_000 * 0.5,
    );
  });

  it("reads postings at the size it is given: the bench's measured postings, not the representative's", () => {
    const sized = (bytes: number) =>
      costModel({ persons, person: BENCH_PERSON, itemBytes: { posting: bytes } }).listFiltered(0.2, 5).rcu;
    expect(sized(260)).toBeGreaterThan(1.8 * sized(130) - 8);
  });
});
