/**
 * docs/capacity.md quotes the capacity model's answers for the three named profiles: the first limit
 * and its headroom, the monthly totals, storage, and the three-region costs derived from them. The
 * model is run again here, so a change to the code's costs that changes an answer fails until the
 * page is updated (its figures pasted from `npm run capacity` again).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_THROTTLE } from '../../infra/config';
import { Mix } from '../../lib/capacity/mix';
import { type CapacityAnswer, capacity, firstLimit } from '../../lib/capacity/model';
import {
  HOURS_PER_MONTH,
  PRICES,
  PROVISIONED_TARGET_UTILISATION,
  SECONDS_PER_MONTH,
} from '../../lib/capacity/prices';
import { renderAnswer } from '../../lib/capacity/report';

const ROOT = resolve(import.meta.dirname, '../..');
const page = readFileSync(join(ROOT, 'docs/capacity.md'), 'utf8');

/** The prices the page's "More than one region" states that prices.ts does not hold. */
const CROSS_REGION_USD_PER_GB = 0.02;
const RESTORE_USD_PER_GB = 0.15;
const REPLICAS = 2;

const PROFILES = [
  {
    file: 'institution-1m.json',
    heading: '## A 1 M-person institution',
    link: '[1 M-person institution]',
    row: '1 M institution',
  },
  {
    file: 'national-10m.json',
    heading: '## A 10 M-person national authority file',
    link: '[10 M-person national authority file]',
    row: '10 M national file',
  },
  {
    file: 'directory-50m-migration.json',
    heading: '## A 50 M-person directory during a 2 000 creates/s migration',
    link: '[50 M-person directory, 2 000 creates/s migration]',
    row: '50 M directory, migrating',
  },
];

const answerOf = (file: string): CapacityAnswer => {
  const mix = Mix.parse(JSON.parse(readFileSync(join(ROOT, 'lib/capacity/profiles', file), 'utf8')));
  return capacity(mix, { persons: mix.persons ?? 0, defaultThrottleRate: DEFAULT_THROTTLE.rateLimit });
};

/** The page's lines from a heading to the next heading of its level (a `## ` in a code block is none). */
const sectionOf = (heading: string) => {
  const lines = page.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) return '';
  let fenced = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    const line = (lines[end] ?? '').trimStart();
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced && line.startsWith('## ')) break;
  }
  return lines.slice(start, end).join('\n');
};

const lineOf = (text: string, pattern: RegExp) => text.match(pattern)?.[0] ?? `(no line ${pattern})`;

const number = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const usd = (value: number) => `$${number(value, value < 100 ? 2 : 0)}`;

/** The row of the three-region table, from the model's write units and storage (the page's formulas). */
const regionRow = (row: string, answer: CapacityAnswer) => {
  const wcu = answer.totals.wcuPerSecond;
  const gb = answer.storage.reduce((sum, kind) => sum + kind.bytes, 0) / 1024 ** 3;
  const writes = wcu * SECONDS_PER_MONTH * PRICES.writeRequestUnit.usd;
  const provisioned = (wcu * PRICES.wcuHour.usd * HOURS_PER_MONTH) / PROVISIONED_TARGET_UTILISATION;
  const storage = gb * PRICES.storageGbMonth.usd;
  const transfer = ((wcu * SECONDS_PER_MONTH) / 1024 ** 2) * CROSS_REGION_USD_PER_GB;
  return [
    row,
    number(wcu, 1),
    `${usd(writes)} (${usd(provisioned)})`,
    usd(storage),
    usd(transfer),
    usd(REPLICAS * (writes + storage + transfer)),
    usd(REPLICAS * (provisioned + storage + transfer)),
    usd(REPLICAS * gb * RESTORE_USD_PER_GB),
  ].join(' | ');
};

describe('docs/capacity.md', () => {
  it.each(PROFILES)('quotes what the model answers today for $file', ({ file, heading, link, row }) => {
    const answer = answerOf(file);
    const text = renderAnswer(answer);
    const section = sectionOf(heading);
    const first = lineOf(text, /^First limit: .*$/m);
    const monthly = lineOf(text, /^\$\S+ on demand, \$\S+ with the table provisioned$/m);
    const storage = lineOf(text, /^total\s+\S+ \S+\s+\$\S+$/m);
    const dynamo = lineOf(text, /^DynamoDB: .*$/m);

    // The pasted output, in the profile's own section.
    expect(section, heading).not.toBe('');
    for (const line of [first, monthly, storage, dynamo]) expect(section).toContain(line);

    // The summary table's row: the first limit (least headroom of all, as the headline says) and the
    // first the load meets, their headroom, the monthly totals and storage.
    const least = firstLimit(answer.limits);
    const limit = answer.limits.find((candidate) => !candidate.design);
    const [, onDemand, provisioned] = monthly.match(/^(\S+) on demand, (\S+) with/) ?? [];
    const [, bytes, storageUsd] = storage.match(/^total\s+(\S+ \S+)\s+(\S+)$/) ?? [];
    const summary = page.split('\n').find((candidate) => candidate.startsWith(`| ${link}`)) ?? '';
    expect(summary.split(' | ').slice(1)).toEqual([
      least?.design
        ? `${least.limit} ([at any load](#at-any-load-the-streams-readers))`
        : `${least?.limit} (${least?.where})`,
      `${number(least?.headroom ?? 0, 2)}×`,
      `${limit?.limit} (${limit?.where})`,
      `${number(limit?.headroom ?? 0, 2)}×`,
      onDemand,
      provisioned,
      `${bytes}, ${storageUsd} |`,
    ]);

    // The three-region costs derived from its write units and storage.
    expect(page).toContain(`| ${regionRow(row, answer)} |`);
  });
});
