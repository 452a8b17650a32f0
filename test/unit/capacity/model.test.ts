import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Mix } from '../../../lib/capacity/mix';
import { capacity, firstLimit } from '../../../lib/capacity/model';
import { DESIGN } from '../../../lib/capacity/operations';
import { HOURS_PER_MONTH, LIMITS, PRICES } from '../../../lib/capacity/prices';
import { renderAnswer } from '../../../lib/capacity/report';
import { STREAM_SUBSCRIPTIONS } from '../../../lib/db/table/stream-subscriptions';

const PROFILES = resolve(import.meta.dirname, '../../../lib/capacity/profiles');

const answer = (mix: unknown, persons = 1_000_000) =>
  capacity(Mix.parse(mix), { persons, defaultThrottleRate: 100 });
const limitAt = (result: ReturnType<typeof answer>, where: string) =>
  result.limits.find((row) => row.where.includes(where));

describe('the capacity model of a mix', () => {
  it('prices a second of gets at one read unit each, on demand and provisioned', () => {
    const [get] = answer({ rates: { get: 100 } }).rows;
    expect(get).toMatchObject({ operation: 'get', rcuPerSecond: 100, wcuPerSecond: 0 });
    expect(get?.onDemandMonthly).toBeCloseTo(100 * PRICES.readRequestUnit.usd * HOURS_PER_MONTH * 3600);
    expect(get?.provisionedMonthly).toBeCloseTo((100 * PRICES.rcuHour.usd * HOURS_PER_MONTH) / 0.7);
  });

  it('follows creates into the stream: a feed event per change, the counts per posting', () => {
    const rows = answer({ rates: { create: 10 } }).rows;
    const create = rows.find((row) => row.operation === 'create');
    expect(rows.find((row) => row.operation === 'feed-append')?.rate).toBe(
      10 * (create?.perRequest.changes ?? 0),
    );
    expect(rows.find((row) => row.operation.startsWith('count-postings'))?.rate).toBe(
      10 * (create?.perRequest.postingRecords ?? 0),
    );
  });

  it("prices a filter's other fragments, checked on its candidates, when the mix names them", () => {
    const filter = { name: 'two names', rate: 10, share: 0.001, length: 6 };
    const rowOf = (result: ReturnType<typeof answer>) =>
      result.rows.find((row) => row.operation === 'list-filtered (two names)');
    const one = rowOf(answer({ filters: [filter] }));
    const two = rowOf(answer({ filters: [{ ...filter, others: [{ length: 5, holding: 0.05 }] }] }));
    // 1 000 candidates a request, a posting of the other fragment read for each.
    expect((two?.rcuPerSecond ?? 0) - (one?.rcuPerSecond ?? 0)).toBeGreaterThan(10 * 1_000 * 0.5);
    // Where the mix names the share holding the other's rarest gram, the list reads that gram when it
    // costs less (issue #60): 2 000 postings, 8 Queries of about 4 units, against 500 units of checks.
    const sized = rowOf(
      answer({ filters: [{ ...filter, others: [{ length: 5, holding: 0.05, share: 0.002 }] }] }),
    );
    expect((sized?.rcuPerSecond ?? 0) - (one?.rcuPerSecond ?? 0)).toBeLessThan(10 * 50);
    expect((sized?.rcuPerSecond ?? 0) - (one?.rcuPerSecond ?? 0)).toBeGreaterThan(10 * 8 * 0.5);
  });

  it("prices a what-if shard design the mix names, and says it is not the code's", () => {
    const mix = { filters: [{ name: 'common', rate: 10, share: 0.02, length: 5 }] };
    const busiest = (result: ReturnType<typeof answer>) =>
      limitAt(result, 'busiest posting partition of common')?.load ?? 0;
    const code = answer(mix);
    const doubled = answer({ ...mix, design: { listShards: 2 * DESIGN.listShards } });
    expect(busiest(doubled) / busiest(code)).toBeCloseTo(0.5, 1);
    expect(code.notes.join(' ')).not.toMatch(/shard design other than the code's/);
    expect(doubled.notes.join(' ')).toContain(
      `listShards ${2 * DESIGN.listShards} (the code's ${DESIGN.listShards})`,
    );
    expect(() => Mix.parse({ design: { listShards: 0 } })).toThrow();
    expect(() => Mix.parse({ design: { postingShards: 16 } })).toThrow();
  });

  it('stores persons, postings, history and feed in proportion to the population', () => {
    const small = answer({ rates: { get: 1 } }, 1_000_000).storage;
    const large = answer({ rates: { get: 1 } }, 10_000_000).storage;
    for (const kind of ['persons', 'postings', 'history', 'feed', 'claims']) {
      const before = small.find((row) => row.kind === kind)?.bytes ?? 0;
      expect(before).toBeGreaterThan(0);
      // Ids of more digits make items a little larger: 10 times the persons, a little over 10 times the bytes.
      expect((large.find((row) => row.kind === kind)?.bytes ?? 0) / before).toBeGreaterThanOrEqual(10);
      expect((large.find((row) => row.kind === kind)?.bytes ?? 0) / before).toBeLessThan(10.2);
    }
  });

  it('puts the first limit the load reaches on top: a migration of 2 000 creates a second passes the table quota', () => {
    const migration = answer({ import: { rate: 2_000 }, throttleRate: 10_000 });
    const [first] = migration.limits.filter((row) => !row.design);
    expect(first).toMatchObject({ limit: 'table writes' });
    expect(first?.headroom).toBeLessThan(1);
    expect(first?.load).toBeGreaterThan(2_000 * 100);
  });

  it('names as first limit the one of least headroom of all, a limit of the design included', () => {
    const light = answer({ rates: { get: 50 } });
    expect(firstLimit(light.limits)).toMatchObject({ limit: 'stream readers', design: true });
    expect(firstLimit(light.limits)?.headroom).toBe(Math.min(...light.limits.map((row) => row.headroom)));
    // Under a migration's load the table's write quota comes before the design's limits.
    const migration = answer({ import: { rate: 2_000 }, throttleRate: 10_000 });
    expect(firstLimit(migration.limits)).toMatchObject({ limit: 'table writes', design: false });
  });

  it("prints as its headline's first limit the one of least headroom of all the limits it prints", () => {
    const headlineOf = (result: ReturnType<typeof answer>) => {
      const text = renderAnswer(result);
      const printed = text.slice(text.indexOf('## Limits the load meets'), text.indexOf('First limit:'));
      const rows = [...printed.matchAll(/^(\S.*?)\s{2,}.*\s([\d.,]+)×$/gm)].map(([, limit, headroom]) => ({
        limit,
        headroom: Number(headroom?.replaceAll(',', '')),
      }));
      const [, limit, headroom] = /^First limit: (.+?) \(.*, headroom ([\d.,]+)×/m.exec(text) ?? [];
      return { rows, limit, headroom: Number(headroom?.replaceAll(',', '')) };
    };
    const light = { rates: { get: 50, create: 1 } };
    const third = { handler: 'detect-duplicates', accepts: () => true, filterPattern: {} };
    for (const result of [
      answer(light),
      answer({ ...light, throttleRate: 50 }),
      capacity(Mix.parse(light), {
        persons: 1_000_000,
        defaultThrottleRate: 100,
        streamSubscriptions: [...STREAM_SUBSCRIPTIONS, third],
      }),
      answer({ import: { rate: 2_000 }, throttleRate: 10_000 }),
    ]) {
      const { rows, limit, headroom } = headlineOf(result);
      expect(rows.length).toBe(result.limits.length);
      const least = Math.min(...rows.map((row) => row.headroom));
      expect(headroom).toBe(least);
      expect(rows.filter((row) => row.headroom === least).map((row) => row.limit)).toContain(limit);
    }
    // The stage throttle at 50 (0.98× for 51 requests a second) comes before the stream's two readers (1×): it heads the answer.
    expect(headlineOf(answer({ ...light, throttleRate: 50 })).limit).toBe('stage throttle');
  });

  it('sees the stage throttle at the stack default when the mix names none', () => {
    expect(limitAt(answer({ rates: { get: 50 } }), 'throttleRate')).toMatchObject({
      capacity: 100,
      headroom: 2,
    });
  });

  it("counts the stream's readers from the catalogue: two, at the limit (1×), a limit of the design", () => {
    const readers = answer({ rates: { get: 1 } }).limits.find((row) => row.limit === 'stream readers');
    expect(readers).toMatchObject({
      design: true,
      load: STREAM_SUBSCRIPTIONS.length,
      capacity: LIMITS.streamReaders.value,
      headroom: LIMITS.streamReaders.value / STREAM_SUBSCRIPTIONS.length,
    });
    expect(STREAM_SUBSCRIPTIONS.length).toBe(2);
    expect(readers?.headroom).toBe(1);
  });

  it('finds a third reader of the stream below 1× at any load, and names it in the headline', () => {
    const third = { handler: 'detect-duplicates', accepts: () => true, filterPattern: {} };
    const result = capacity(Mix.parse({ rates: { get: 1 } }), {
      persons: 1_000_000,
      defaultThrottleRate: 100,
      streamSubscriptions: [...STREAM_SUBSCRIPTIONS, third],
    });
    const readers = result.limits.find((row) => row.limit === 'stream readers');
    expect(readers).toMatchObject({ load: 3, design: true });
    expect(readers?.headroom).toBeLessThan(1);
    expect(firstLimit(result.limits)).toBe(readers);
    expect(renderAnswer(result)).toMatch(/^First limit: stream readers \(3 functions .*headroom 0\.67×/m);
  });

  it.each(readdirSync(PROFILES).filter((file) => file.endsWith('.json')))(
    'keeps every limit of the design at 1× or more for %s',
    (file) => {
      const mix = Mix.parse(JSON.parse(readFileSync(join(PROFILES, file), 'utf8')));
      const design = capacity(mix, { persons: mix.persons ?? 0, defaultThrottleRate: 100 }).limits.filter(
        (row) => row.design,
      );
      expect(design.map((row) => row.limit)).toContain('stream readers');
      for (const row of design) expect(row.headroom, row.limit).toBeGreaterThanOrEqual(1);
    },
  );

  it('says a second region is not modelled', () => {
    expect(answer({ regions: 3, rates: { get: 1 } }).notes.join(' ')).toContain('only one is modelled');
  });
});
