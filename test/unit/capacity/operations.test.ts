import { describe, expect, it } from 'vitest';
import { BENCH_PERSON, costModel, DESIGN, feedPageRcu } from '../../../lib/capacity/operations';
import { PERSON_COUNTER_KEYS } from '../../../lib/db/table/keys';

const model = costModel({ persons: 10_000, person: BENCH_PERSON });
const hot = (cost: { hot: { partition: string; wcu: number; rcu: number }[] }, partition: string) =>
  cost.hot.find((load) => load.partition.startsWith(partition));

describe("the capacity model's operations, priced from the code's own plans", () => {
  it('prices a create as the bench counts it: its transaction, the id block share, the requester check', () => {
    const create = model.create();
    // README "Performance": 109.72 WCU, 2 RCU, 1.08 calls for one name and a 40-character email.
    expect(create.wcu).toBeGreaterThan(109.72 * 0.95);
    expect(create.wcu).toBeLessThan(109.72 * 1.05);
    expect(create.rcu).toBe(2);
    expect(create.calls).toBeCloseTo(1.08);
    expect(create.changes).toBe(1);
    expect(create.postingRecords).toBe(model.sizes.postings);
  });

  it('follows the plan: a create carrying a local reference writes its reference item too', () => {
    const withReference = costModel({
      persons: 10_000,
      person: { ...BENCH_PERSON, local_reference_id: 'ref-1' },
    }).create();
    expect(withReference.actions).toBe(model.create().actions + 1);
    expect(withReference.wcu).toBe(model.create().wcu + 2);
  });

  it('follows the postings: a longer email writes more postings and more units', () => {
    const longer = costModel({
      persons: 10_000,
      person: { ...BENCH_PERSON, email: `much-longer-local-part.${BENCH_PERSON.email}` },
    }).create();
    expect(longer.postingRecords).toBeGreaterThan(model.create().postingRecords);
    expect(longer.wcu).toBeGreaterThan(model.create().wcu);
  });

  it('prices a PATCH adding an email: three consistent reads, within 5% of the bench', () => {
    const patch = model.patch();
    expect(patch.rcu).toBe(3);
    expect(patch.wcu).toBeGreaterThan(84.04 * 0.95);
    expect(patch.wcu).toBeLessThan(84.04 * 1.06);
  });

  it('reads an unfiltered first page as keys.ts says: the 17 counters and the 9 partitions, a few refills', () => {
    const list = model.list(50);
    expect(PERSON_COUNTER_KEYS.length * 0.5).toBe(8.5);
    expect(list.calls).toBeGreaterThan(10);
    expect(list.calls).toBeLessThan(14);
    // README: 14.5 read units measured.
    expect(list.rcu).toBeGreaterThan(14.5 * 0.95);
    expect(list.rcu).toBeLessThan(14.5 * 1.05);
  });

  it('prices a feed page of 100 at 8 read units in 9 calls and an idle poll at 4 in 1 (keys.ts, measured)', () => {
    expect(model.feedPage(1_000, 100)).toMatchObject({ calls: 9, rcu: 8 });
    expect(model.feedPage(0, 100)).toMatchObject({ calls: 1, rcu: 4 });
    expect(feedPageRcu([])).toBe(4);
  });

  it('appends a change to the feed in 2 (2k + 1) write units for k events of a shard', () => {
    expect(model.feedAppend(1)).toMatchObject({ wcu: 6, actions: 3 });
    expect(model.feedAppend(49).wcu * 49).toBeCloseTo(2 * 99);
    expect(model.feedAppend(49).actions).toBe(99);
  });

  it('reads a filtered list from the postings of its rarest gram, growing with its share of persons', () => {
    const rare = model.listFiltered(0.001, 6);
    const common = model.listFiltered(0.2, 6);
    expect(rare.calls).toBe(1 + 8);
    expect(common.rcu).toBeGreaterThan(rare.rcu * 5);
    // One code point: every index entry.
    expect(model.listFiltered(1, 1).rcu).toBeGreaterThan((10_000 * 200) / 8192);
  });

  it('moves the hot partitions with the key design: half the list shards, twice the load on one', () => {
    const halved = costModel({
      persons: 10_000,
      person: BENCH_PERSON,
      design: { ...DESIGN, listShards: DESIGN.listShards / 2, personCounterShards: 4 },
    }).create();
    const create = model.create();
    expect(hot(halved, 'byName')?.wcu).toBeCloseTo(2 * (hot(create, 'byName')?.wcu ?? 0));
    expect(hot(halved, 'posting partition')?.wcu).toBeCloseTo(
      2 * (hot(create, 'posting partition')?.wcu ?? 0),
    );
    expect(hot(halved, 'person counter')?.wcu).toBeCloseTo(4 * (hot(create, 'person counter')?.wcu ?? 0));
  });

  it('names the id counter as the one item every create writes to, once per block of ids', () => {
    expect(hot(model.create(), 'id counter')?.wcu).toBeCloseTo(4 / 50);
  });

  it("prices a duplicate check as a reconciliation and its name's words at CHECK_WORD_POSTINGS", () => {
    const million = costModel({
      persons: 1_000_000,
      person: { first_name: 'Maria', last_name: 'Kowalska', email: 'maria.kowalska@uni-example.edu' },
    });
    const query = million.reconcile(0.0005);
    const check = million.duplicateCheck(0.0005);
    // Each word read at the bound (1 000 of the million), after one BatchGetItem of the mark and the
    // words' 3 + 6 grams' counts (half a unit each), a round of its own.
    const [first, last] = [million.listFiltered(0.001, 5), million.listFiltered(0.001, 8)];
    expect(check.rcu).toBeCloseTo(query.rcu + 10 * 0.5 + first.rcu + last.rcu);
    expect(check.calls).toBe(query.calls + 1 + first.calls + last.calls);
    // Only the checks of a word's at most 1 000 holders read its postings: no hot partition of its own.
    expect(check.hot).toEqual(query.hot);
    // A word under 3 code points is not looked up.
    const short = costModel({
      persons: 1_000_000,
      person: { first_name: 'Yu', last_name: 'Kowalska', email: 'yu.kowalska@uni-example.edu' },
    });
    const shortQuery = short.reconcile(0.0005);
    expect(short.duplicateCheck(0.0005).rcu).toBeCloseTo(
      shortQuery.rcu + 7 * 0.5 + short.listFiltered(0.001, 8).rcu,
    );
  });

  it('prices a merge of two such persons as the code composes it: both entries, postings in a chain', () => {
    const merge = model.merge();
    expect(merge.changes).toBe(2);
    expect(merge.actions).toBeLessThanOrEqual(100);
    expect(merge.wcu).toBeGreaterThan(model.create().wcu);
  });
});
