/**
 * `npm run bench -- --quick` (test/bench/) keeps working: every section runs on tiny sizes, the
 * report is printed and written with its JSON, and the figures that are not timings hold. Timings
 * are not checked here: performance claims come from the full benchmark, never from a timed test.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SAMPLE_PER_SHARD } from '../../lib/db/person/read/posting-search';
import { PERSON_COUNTER_SHARDS, PERSON_LIST_PARTITIONS, PERSON_LIST_SHARDS } from '../../lib/db/table/keys';
import { MAX_TRANSACTION_ACTIONS } from '../../lib/db/write/actions';
import { FEED_SHARDS } from '../../lib/domain/feed';
import { MAX_PROBES_PER_FILTER } from '../../lib/domain/search';
import { QUICK } from '../bench/config';
import { DUPLICATE_KINDS } from '../bench/duplicate-set';
import { MATCH_CATEGORIES, MATCH_SLICE } from '../bench/match-set';
import type { BenchResults } from '../bench/report';
import {
  MISLEADING_QUERIES,
  RECONCILE_ABSENT_QUERY,
  RECONCILE_EMAIL_QUERY,
  RECONCILE_QUERIES,
} from '../bench/seed';
import { round } from '../bench/stats';

const out = mkdtempSync(join(tmpdir(), 'person-bench-quick-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm run bench -- --quick', () => {
  it('runs every section and reports the same figures as Markdown and JSON', async () => {
    const { stdout } = await promisify(execFile)(
      'npm',
      // The list scale section at 100 and 1 000 persons (--quick seeds 1 000 and 10 000, a minute more).
      ['run', '--silent', 'bench', '--', '--quick', '--sizes', '100,1000', '--out', out],
      {
        timeout: 290_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const results = JSON.parse(readFileSync(join(out, 'quick.json'), 'utf8')) as BenchResults;
    expect(readFileSync(join(out, 'quick.md'), 'utf8')).toBe(stdout);
    for (const heading of [
      '## 1. Overhead',
      '## 2. Round trips',
      '## 3. List scale',
      'Probe choice (issue #36)',
      'Reconciliation batch (issue #37)',
      '## 4. Cold start',
      '## 5. Throughput',
      '## 6. Keyed writes',
      '## 7. Bulk import and export',
      '## 8. Matching quality (issue #38)',
      '## 9. Merge (issue #39)',
      '## 10. Change feed (issue #41)',
      '## 11. Duplicates quality (issue #57)',
      '## Checks',
    ])
      expect(stdout).toContain(heading);
    expect(results.mode).toBe('quick');

    const operations = Object.fromEntries(
      (results.overhead?.operations ?? []).map((row) => [row.operation, row]),
    );
    expect(Object.keys(operations)).toEqual(['create', 'get', 'patch', 'list', 'list-filtered']);
    for (const row of Object.values(operations)) {
      for (const mode of [row.http, row.handler, row.floor]) expect(mode.median).toBeGreaterThan(0);
      // The floor sends what the handler sends.
      expect(Object.keys(row.callsByCommand).length).toBeGreaterThan(0);
    }
    expect(operations.get?.calls.handler).toBe(1);
    expect(operations.get?.calls.floor).toBe(1);
    // The counters, and the 9 partitions of the index read at once (a refill now and then).
    expect(operations.list?.callsByCommand.BatchGetItem).toBe(1);
    expect(operations.list?.callsByCommand.Query).toBeGreaterThanOrEqual(PERSON_LIST_PARTITIONS.length);
    // The counts of every gram of `maria` (and their mark) in one call, then the smallest read in every
    // shard (issue #36).
    expect(operations['list-filtered']?.callsByCommand).toEqual({
      BatchGetItem: 1,
      Query: PERSON_LIST_SHARDS,
    });
    expect(operations.create?.callsByCommand.TransactWriteItems).toBe(1);
    expect(operations.patch?.callsByCommand).toMatchObject({ BatchGetItem: 1, TransactWriteItems: 1 });
    expect(operations.create?.capacity.wcu).toBeGreaterThanOrEqual(8);
    // The search postings: most of a create's write units, none of a read's.
    expect(operations.create?.capacity.postingsWcu).toBeGreaterThan(0);
    expect(operations.create?.capacity.postingsWcu).toBeLessThan(operations.create?.capacity.wcu ?? 0);
    expect(operations.get?.capacity.postingsWcu).toBe(0);
    const before = (row: typeof operations.create) =>
      round((row?.capacity.wcu ?? 0) - (row?.capacity.postingsWcu ?? 0));
    expect(stdout).toContain(
      `Write units before the search index (the same write without its postings) and with it: create ${before(operations.create)} → ${operations.create?.capacity.wcu}`,
    );
    expect(operations.get?.capacity.rcu).toBe(1);

    const scale = results.scale?.rows ?? [];
    expect(scale).toHaveLength(2 * (8 + MISLEADING_QUERIES.length));
    for (const row of scale.filter((entry) => entry.query === 'first page')) {
      expect(row.count).toBe(row.persons);
      // 50 index entries and what the merge read past them (at most a chunk of 8 per partition), and
      // the 16 person counters (every shard holds some of the seeded persons).
      expect(row.itemsRead).toBeGreaterThanOrEqual(50 + PERSON_COUNTER_SHARDS);
      expect(row.itemsRead).toBeLessThanOrEqual(
        50 + 8 * PERSON_LIST_PARTITIONS.length + PERSON_COUNTER_SHARDS,
      );
    }
    // A filter reads the postings of one probe (its sample included), the samples of the other probes
    // of its filter (one shard each) and the id counter: never the index.
    const filtered = scale.filter((entry) => !['first page', 'offset 200'].includes(entry.query));
    expect(filtered).toHaveLength(2 * (6 + MISLEADING_QUERIES.length));
    for (const row of filtered) {
      expect(row).toMatchObject({ source: 'postings', probe: expect.any(String) });
      // The probe bar's figures (issue #36): the rarest probe counted from the seeded data, the
      // samples among the postings read, and at most the samples' round and the chosen probe's.
      expect(row.bar?.rarestPostings).toBeLessThanOrEqual(row.probePostings ?? 0);
      expect(row.bar?.postingsRead).toBeGreaterThanOrEqual(row.bar?.samplePostings ?? 0);
      expect(row.bar?.postingsRead).toBeLessThanOrEqual(row.itemsRead);
      // A list of several fragments may read another's rarest probe too, a round more (issue #60).
      const intersected = row.bar?.intersectedPostings ?? 0;
      expect(row.bar?.queryRounds).toBeGreaterThanOrEqual(1);
      expect(row.bar?.queryRounds).toBeLessThanOrEqual(intersected > 0 ? 3 : 2);
      expect(row.count).toBeLessThanOrEqual(row.probePostings ?? 0);
      expect(row.itemsRead).toBeLessThanOrEqual(
        (row.probePostings ?? 0) + intersected + SAMPLE_PER_SHARD * (MAX_PROBES_PER_FILTER - 1) + 1,
      );
      if (row.persons === 1_000) expect(row.itemsRead).toBeLessThan(row.persons);
    }
    const at1000 = (query: string) => scale.find((row) => row.query === query && row.persons === 1_000);
    expect(at1000('common first_name (20%)')?.count).toBe(200);
    expect(at1000('planted on 10 persons')?.count).toBe(10);
    // The first page reads the same at every size, but for how far the merge read past the page in
    // each partition (a chunk of 8 at most, which depends on the names); offset 200 reads about 250
    // entries at 1 000 persons and all 100 at 100.
    const [firstPage, deepOffset] = results.scale?.growth.map((row) => row.itemsRead) ?? [];
    expect(firstPage).toBeGreaterThan(0.8);
    expect(firstPage).toBeLessThan(1.2);
    expect(deepOffset).toBeGreaterThan(2);
    expect(deepOffset).toBeLessThan(3.2);
    // The common fragment's constant (issue #36 step 3), at the largest size: every step of the list
    // timed, and the count the list answered.
    const constant = results.scale?.constant;
    expect(constant).toMatchObject({ query: 'common first_name (20%)', persons: 1_000, matches: 200 });
    expect(constant?.parts.map(({ part }) => part)).toEqual([
      'Queries of the chosen probe (raw)',
      'unmarshalling',
      'matching',
      'sorting and windowing',
    ]);
    for (const { ms } of constant?.parts ?? []) expect(ms).toBeGreaterThan(0);
    expect(constant?.sortSplit.keys).toBeGreaterThan(0);
    expect(constant?.sortSplit.order).toBeGreaterThan(0);
    // The parts' sum against the whole is a timing (each median measured apart): not checked here.
    expect(constant?.whole).toBeGreaterThan(0);
    expect(constant?.sortSplit.fullSort).toBeGreaterThan(0);
    expect(constant?.sizing).toBeGreaterThan(0);
    expect(constant?.scaleRow).toBe(at1000('common first_name (20%)')?.latency.median);
    expect(constant?.postings).toBeGreaterThanOrEqual(200);
    expect(stdout).toContain("The common fragment's constant (issue #36)");

    // The reconciliation batch (issue #37): a row per size, each query's cost from the reader's own
    // record, the email query certain on its person and the absent person matched to no one.
    const batches = results.scale?.reconcile ?? [];
    expect(batches.map((row) => row.persons)).toEqual([100, 1_000]);
    for (const batch of batches) {
      expect(batch.queries).toBe(RECONCILE_QUERIES.length);
      expect(batch.perQuery.map((row) => row.query)).toEqual(RECONCILE_QUERIES.map(({ query }) => query));
      expect(batch.itemsRead).toBeGreaterThan(0);
      expect(batch.itemsRead).toBe(batch.perQuery.reduce((sum, row) => sum + row.itemsRead, 0));
      expect(batch.maxItemsRead).toBe(Math.max(...batch.perQuery.map((row) => row.itemsRead)));
      // What the handler sent is what the reader's records count: each query looked up once.
      expect(batch.calls).toBe(batch.perQuery.reduce((sum, row) => sum + row.calls, 0));
      expect(batch.rcu).toBeGreaterThan(0);
      expect(batch.latency.median).toBeGreaterThan(0);
      const query = (name: string) => batch.perQuery.find((row) => row.query === name);
      expect(query(RECONCILE_EMAIL_QUERY)).toMatchObject({ top: true, match: true });
      expect(query(RECONCILE_ABSENT_QUERY)).toMatchObject({ match: false });
      // Never every person: at most the 100 a query reads whole, beside its postings.
      for (const row of batch.perQuery) {
        expect(row.itemsRead).toBeGreaterThan(0);
        expect(row.read).toBeLessThanOrEqual(100);
        // What keys.ts says it reads, counted from the seeded data, and no more.
        expect(row.itemsRead, row.query).toBeLessThanOrEqual(row.model);
      }
    }
    expect(stdout).toMatch(
      /\| 1,000 \| 10 \| [\d,]+ \| [\d,]+ \| \d+ \| [\d.]+ \| [\d.]+ \([\d.]+\) \| [\d.]+% \|/,
    );

    // The duplicate checks (issue #57): at each size one check of each person the batch is about,
    // each reading and calling; candidates (other persons: a person with no namesake and no word in
    // common with another at 100 persons has none) found by some.
    const duplicateChecks = results.scale?.duplicateChecks ?? [];
    expect(duplicateChecks.map((row) => row.persons)).toEqual([100, 1_000]);
    for (const row of duplicateChecks) {
      expect(row.checks).toBeGreaterThan(0);
      expect(row.perCheck).toHaveLength(row.checks);
      expect(row.candidates.mean).toBeGreaterThan(0);
      for (const check of row.perCheck) {
        expect(check.itemsRead, check.name).toBeGreaterThan(0);
        expect(check.calls, check.name).toBeGreaterThan(0);
      }
      expect(row.itemsPerCandidate).toBeGreaterThan(0);
    }
    expect(stdout).toContain('What one duplicate check costs (issue #57)');
    expect(stdout).toMatch(/From 100 to 1,000 persons \(10× the table\), per check: candidates [\d.]+×/);

    const cold = results.coldStart?.rows ?? [];
    expect(cold.length).toBeGreaterThanOrEqual(15);
    for (const row of cold) {
      expect(row.bundleBytes).toBeGreaterThan(0);
      expect(row.status === null || row.status < 500).toBe(true);
      expect(row.warmEventMs).toBeGreaterThan(0);
      expect(row.coldCostMs).toBeCloseTo(row.overBareMs - row.warmEventMs, 6);
    }

    // What an Idempotency-Key costs: the record's put and update around the same write; a replay is
    // the put that fails, answered from the record, and writes nothing else; its answer is a Person,
    // so it reads the person too (one consistent read), to answer 410 if it is erased since (API.md 15).
    const keyed = Object.fromEntries(
      (results.keyed?.rows ?? []).map((row) => [`${row.operation} ${row.variant}`, row]),
    );
    expect(Object.keys(keyed)).toEqual([
      'create unkeyed',
      'create keyed',
      'create replay',
      'patch unkeyed',
      'patch keyed',
      'patch replay',
    ]);
    for (const operation of ['create', 'patch']) {
      const [unkeyed, first, replay] = ['unkeyed', 'keyed', 'replay'].map(
        (variant) => keyed[`${operation} ${variant}`],
      );
      for (const row of [unkeyed, first, replay]) expect(row?.latency.median).toBeGreaterThan(0);
      expect(unkeyed?.callsByCommand).not.toHaveProperty(['PutItem (idempotency record)']);
      expect(unkeyed?.capacity.idempotencyWcu).toBe(0);
      expect(first?.calls).toBeGreaterThanOrEqual((unkeyed?.calls ?? 0) + 3);
      // The write's transaction, and the one linking its answer (a Person) from the person's
      // partition, for an erasure to find (API.md 15).
      expect(first?.callsByCommand).toMatchObject({
        'PutItem (idempotency record)': 1,
        TransactWriteItems: 2,
        'UpdateItem (idempotency record)': 1,
      });
      // One unit for the in-progress record, at least one for the answer stored in it.
      expect(first?.capacity.idempotencyWcu).toBeGreaterThanOrEqual(2);
      expect(replay?.callsByCommand).toEqual({ 'PutItem (idempotency record)': 1, BatchGetItem: 1 });
      expect(replay?.capacity.wcu).toBe(replay?.capacity.idempotencyWcu);
      expect(replay?.capacity.wcu).toBeGreaterThanOrEqual(1);
      // The person's item, under 4 KB here: one read unit.
      expect(replay?.capacity.rcu).toBe(1);
      expect(replay?.recordBytes).toBeGreaterThan(0);
      expect(replay?.personsCreated).toBe(0);
      const difference = results.keyed?.differences.find(
        (entry) => entry.operation === operation && entry.variant === 'keyed',
      );
      expect(difference?.calls).toBeGreaterThanOrEqual(3);
      // The write beside it is the same write: what the key adds is the record's, and the link's put
      // (a small item at the transactional rate: 2 units; its check of the person is a read).
      expect(difference?.wcu).toBeCloseTo((first?.capacity.idempotencyWcu ?? 0) + 2, 0);
    }
    expect(keyed['create unkeyed']?.personsCreated).toBe(1);
    expect(keyed['create keyed']?.personsCreated).toBe(1);
    expect(stdout).toMatch(/\| create \| keyed − unkeyed \| \+3 \| \+[\d.]+ \| \+2 \|/);

    for (const row of results.throughput ?? []) {
      expect(row.requests).toBeGreaterThan(0);
      expect(row.non2xx + row.errors).toBe(0);
    }
    // The sequential loop, then the importer at each concurrency, each storing every person it sent;
    // the export then writes every person of the table, at well under two calls a person.
    const bulk = results.bulk;
    expect(bulk?.rows.map((row) => row.concurrency)).toEqual([1, 1, 4, 16]);
    for (const row of bulk?.rows ?? []) expect(row.perSecond).toBeGreaterThan(0);
    expect(bulk?.export.persons).toBeGreaterThanOrEqual(4 * (bulk?.rows[0]?.persons ?? 0));
    expect(bulk?.export.callsPerPerson).toBeLessThan(2);
    expect(stdout).toMatch(/\| npm run import, --concurrency 16 \| \d+ \|/);

    // Four of the overhead and cold start, two of the list matching 10 persons (issue #26), the
    // rare and common filters at the largest size and the create's write units (issue #27), the
    // import over sequential POSTs (issue #35), the probe bar's postings and rounds (issue #36), the
    // reconciliation queries' items read against keys.ts's model (issue #37); the five of matching
    // quality (issue #38); the two of the merge's transactions (issue #39); and the three of the change
    // feed (issue #41): its lag at idle, a page's calls and its read units; the capacity model's
    // units against the counted ones (issue #43); and the five bars of the duplicates queue on the
    // held-out labelled set (issue #57); lists of several fragments against their cheaper plan (issue
    // #60: the row at 100 000 persons has a check of its own in a full run).
    expect(results.checks.map((check) => check.check)).toHaveLength(13 + 5 + 2 + 3 + 1 + 5 + 1);
    const planCheck = results.checks.find((check) => check.check.startsWith('lists of several fragments'));
    expect(planCheck, planCheck?.worst).toMatchObject({ threshold: '≤ 1.1× the cheaper', passed: true });
    // At 1 000 persons `mari` and `owski` each have hundreds of postings: reading one whole is cheaper
    // than checking the other's candidates.
    const twoFilters = scale.find(
      (row) => row.query === 'first_name mari, last_name owski' && row.persons === 1_000,
    );
    expect(twoFilters?.bar?.intersectedPostings).toBeGreaterThan(0);
    expect(stdout).toContain('reconciliation: each query of the batch at every size reads what keys.ts says');
    expect(stdout).toContain("postings read against the fragment's rarest gram (issue #36)");
    expect(stdout).toContain('import at its best concurrency over sequential single POSTs');
    expect(stdout).toContain('planted on 10 persons: list handler median against 5 × GET over HTTP');
    expect(stdout).toContain('rare last_name (0.1%) at 1,000 persons: list handler median');
    // The write units are over 3×: the report says why, from the run's own counts.
    expect(results.checks.find((check) => check.check.startsWith('create: write units'))?.explained).toMatch(
      /a create's postings cost [\d.]+ of one search/,
    );
    expect(results.scale?.seedItems['1000']).toBeGreaterThan(10 * 1_000);

    // Matching quality (issue #38): the quick run asks the set's fixed slice, a row per category and
    // overall, and the five checks of its bar beside their figures (the full run's to judge).
    const matching = results.matching;
    expect(matching?.rows.map((row) => row.category)).toEqual(
      MATCH_CATEGORIES.map(({ category }) => category),
    );
    for (const { category } of MATCH_CATEGORIES) {
      const count = MATCH_SLICE.filter((query) => query.category === category).length;
      expect(matching?.rows.find((row) => row.category === category)?.queries).toBe(count);
      expect(stdout).toMatch(new RegExp(`\\| ${category} \\| [^|]+ \\| ${count} \\|`));
    }
    expect(matching?.overall.queries).toBe(MATCH_SLICE.length);
    expect(stdout).toMatch(/\| overall \| [^|]+ \| \d+ \|/);
    expect(results.checks.filter((check) => check.check.startsWith('matching (issue #38)'))).toHaveLength(5);

    // The duplicates queue (issue #57 step 4): the held-out labelled set, at the quick run's size,
    // scanned by the detector; a row per kind, every planted pair counted, and the bars met (the quick
    // set is small but drawn as the full one is, and seeded: the same figures every run).
    const duplicates = results.duplicates ?? [];
    expect(duplicates.map(({ name }) => name)).toEqual(['held-out set']);
    for (const section of duplicates) {
      expect(section.rows.map(({ kind }) => kind)).toEqual(DUPLICATE_KINDS.map(({ kind }) => kind));
      for (const row of section.rows) {
        const { count } = DUPLICATE_KINDS.find(({ kind }) => kind === row.kind) ?? { count: 0 };
        expect(row.pairs).toBe(Math.max(2, Math.round(count * QUICK.duplicates.share)));
        expect(row.certain + row.probable + row.possible).toBe(row.found);
      }
      expect(section.overall.queued.certain).toBeGreaterThan(0);
    }
    const duplicateBars = results.checks.filter((check) => check.check.startsWith('duplicates, '));
    expect(duplicateBars).toHaveLength(5);
    for (const check of duplicateBars) expect(check.passed, `${check.check}: ${check.worst}`).toBe(true);
    expect(stdout).toMatch(/\| exact-phone \| one person \| 4 \| 4 \| 4 \| 0 \| 0 \| 1 \| 1 \|/);

    // The merge (issue #39): a fresh pair a merge through the handler. The small pair's in one
    // transaction, as keys.ts says; the large pair's postings spill into chain transactions, as many
    // as planMerge + composeWrite predict for its pair, each transaction holding the actions modelled.
    const merges = Object.fromEntries((results.merge?.rows ?? []).map((row) => [row.pair, row]));
    expect(Object.keys(merges)).toEqual(['small', 'large']);
    for (const row of Object.values(merges)) {
      expect(row.latency.median).toBeGreaterThan(0);
      expect(row.agreed).toBe(row.merges);
      expect(row.merges).toBe(row.iterations + row.accountingRuns);
      expect(row.actionsAgreed).toBe(row.accountingRuns);
      expect(row.transactions).toEqual(row.modelTransactions);
      expect(row.callsByCommand).toMatchObject({ BatchGetItem: 1 });
      expect(row.callsByCommand.TransactWriteItems).toBeGreaterThanOrEqual(row.transactions.min);
      expect(row.callsByCommand.TransactWriteItems).toBeLessThanOrEqual(row.transactions.max);
      // Both persons, their POSTINGS items and the requester, consistently: at least a unit each.
      expect(row.capacity.rcu).toBeGreaterThanOrEqual(5);
      expect(row.capacity.postingsWcu).toBeGreaterThan(0);
      expect(row.capacity.postingsWcu).toBeLessThan(row.capacity.wcu);
      expect(row.capacity.idempotencyWcu).toBe(0);
    }
    expect(merges.small?.transactions).toEqual({ min: 1, max: 1 });
    expect(merges.large?.modelTransactions.min).toBeGreaterThan(1);
    expect(merges.large?.example.sent[0]).toBe(MAX_TRANSACTION_ACTIONS);
    expect(merges.large?.capacity.wcu).toBeGreaterThan(merges.small?.capacity.wcu ?? 0);
    const mergeChecks = results.checks.filter((check) => check.check.startsWith('merge (issue #39)'));
    expect(mergeChecks).toHaveLength(2);
    for (const check of mergeChecks) expect(check.passed, check.check).toBe(true);
    expect(stdout).toMatch(
      /\| small \| POST \/Person\/\{id\}\/merge, one name and one email each \| [\d.]+ \| [^|]+ \| 1 \(1\) \|/,
    );

    // The change feed (issue #41): every write's event found in the feed through GET /events, at idle
    // and in the burst (its lag measured, not checked here); the feed then read from its start a page
    // at a time, each page the heads and at most a Query per shard, within keys.ts's read units.
    const feed = results.feed;
    expect(feed?.idle).toMatchObject({ writes: QUICK.feed.idleWrites, lag: { n: QUICK.feed.idleWrites } });
    expect((feed?.idle.creates ?? 0) + (feed?.idle.patches ?? 0)).toBe(QUICK.feed.idleWrites);
    expect(feed?.burst).toMatchObject({ writes: QUICK.feed.burstWrites, lag: { n: QUICK.feed.burstWrites } });
    expect(feed?.burst.readableDuringWrites).toBeLessThanOrEqual(QUICK.feed.burstWrites);
    const pages = feed?.pages;
    // The requester's create, the idle writes and the burst's creates, each once.
    expect(pages?.feedEvents).toBe(
      Math.max(1 + QUICK.feed.idleWrites + QUICK.feed.burstWrites, QUICK.feed.pagedEvents),
    );
    expect(pages?.pages).toBeGreaterThanOrEqual(Math.ceil((pages?.feedEvents ?? 0) / QUICK.feed.pageLimit));
    expect(pages?.eventsPerPage.max).toBeLessThanOrEqual(QUICK.feed.pageLimit);
    expect(pages?.callsByCommand.BatchGetItem).toBe(1);
    expect(pages?.callsByCommand.Query).toBeLessThanOrEqual(FEED_SHARDS);
    expect(pages?.calls.max).toBeLessThanOrEqual(1 + FEED_SHARDS);
    expect(pages?.itemsRead.max).toBeLessThanOrEqual(FEED_SHARDS + QUICK.feed.pageLimit);
    expect(pages?.withinCalls).toBe(pages?.pages);
    expect(pages?.withinRcu).toBe(pages?.pages);
    // Past the end: the heads alone, half a unit each.
    expect(pages?.empty).toEqual({ calls: 1, rcu: FEED_SHARDS / 2 });
    const feedChecks = results.checks.filter((check) => check.check.startsWith('change feed (issue #41)'));
    expect(feedChecks).toHaveLength(3);
    for (const check of feedChecks.slice(1)) expect(check.passed, check.check).toBe(true);
    expect(stdout).toMatch(/\| at idle, one after another \| \d+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \|/);

    // The capacity model (issue #43): at every size the scale section seeds, the model's units of the
    // first page and each filtered list it read, and at the largest of the create, PATCH and GET it
    // sent, beside the counted ones; within 5% but for the rows it says why it leaves out.
    const model = results.scale?.model ?? [];
    for (const size of [100, 1_000])
      expect(model.filter((row) => row.persons === size).map((row) => row.operation)).toEqual(
        expect.arrayContaining(['first page (limit 50)', 'filtered: common first_name (20%)']),
      );
    // The writes at the largest size, once the lists have read the seeded persons only.
    expect(
      model.filter((row) => !row.operation.startsWith('f')).map((row) => [row.operation, row.persons]),
    ).toEqual([
      ['create (one name, one email)', 1_000],
      ['PATCH adding one email', 1_000],
      ['GET /Person/{id}', 1_000],
    ]);
    for (const row of model) {
      expect(row.runs).toBeGreaterThanOrEqual(1);
      expect(row.measured.rcu + row.measured.wcu).toBeGreaterThan(0);
      expect(row.model.rcu + row.model.wcu).toBeGreaterThan(0);
      if (!row.excluded)
        expect(row.differencePct, `${row.operation} at ${row.persons}`).toBeLessThanOrEqual(5);
    }
    const writes = model.filter((row) => row.operation.startsWith('create'));
    for (const row of writes) expect(row.measured.wcu).toBeGreaterThan(50);
    // Every row is in the check, the two-filter list too (its other filter read for each candidate).
    // Where DynamoDB Local counts 0 for a Query that found nothing, the row is checked against what
    // AWS charges for the same calls: half a unit more for each.
    expect(model.filter((row) => row.excluded)).toEqual([]);
    for (const size of [100, 1_000])
      expect(model.map((row) => [row.operation, row.persons])).toContainEqual([
        'filtered: first_name mari, last_name owski',
        size,
      ]);
    const charged = model.filter((row) => row.charged);
    expect(charged.length).toBeGreaterThan(0);
    for (const row of charged) {
      expect(row.charged?.why).toMatch(/DynamoDB Local counts 0 for its \d+ Quer/);
      expect(row.charged?.rcu).toBeGreaterThan(row.measured.rcu);
    }
    const modelCheck = results.checks.find((check) => check.check.startsWith('capacity model (issue #43)'));
    expect(modelCheck).toMatchObject({ threshold: '≤ 5%', passed: true });
    expect(stdout).toContain("The capacity model (issue #43, lib/capacity/) against this run's counts");
  }, 300_000);
});
