/**
 * The labelled duplicates sets of issue #57 step 4 (test/bench/duplicate-set.ts) and how the bench
 * scores a queue against them (test/bench/duplicates.ts): what the quality figures rest on.
 */
import { describe, expect, it } from 'vitest';
import { SEEDED_VOCABULARY } from '../../../infra/handlers/seed/vocabulary-seed';
import type { DuplicatePair, Grade } from '../../../lib/domain/duplicates';
import { applyPatch } from '../../../lib/domain/patch';
import { claimsOf } from '../../../lib/domain/person';
import { CreatePersonBody } from '../../../lib/domain/schemas';
import { FULL, QUICK } from '../../bench/config';
import {
  DUPLICATE_KINDS,
  type DuplicateSet,
  holdoutDuplicateSet,
  recordBodyOf,
  tuningDuplicateSet,
} from '../../bench/duplicate-set';
import { duplicateQuality } from '../../bench/duplicates';

const abbreviations = {
  NamePrefix: new Map(SEEDED_VOCABULARY.NamePrefix.map(({ id, abbreviation }) => [id, abbreviation])),
  NameSuffix: new Map(SEEDED_VOCABULARY.NameSuffix.map(({ id, abbreviation }) => [id, abbreviation])),
};

/** Each record as a create stores it. */
const storedOf = (set: DuplicateSet) => {
  let id = 1_000;
  return set.records.map(
    (record) =>
      applyPatch(null, CreatePersonBody.parse(recordBodyOf(record)), {
        requester: 0,
        now: '2026-11-29T00:00:00.000Z',
        nextId: () => id++,
        changeId: 0,
        abbreviations,
      }).person,
  );
};

const SETS = {
  tuning: tuningDuplicateSet(FULL.duplicates),
  'held-out': holdoutDuplicateSet(FULL.duplicates),
  'quick tuning': tuningDuplicateSet(QUICK.duplicates),
  'quick held-out': holdoutDuplicateSet(QUICK.duplicates),
};

describe.each(Object.entries(SETS))('the %s set', (_, set) => {
  it('is a store clients could have written: every record a valid create, every claim held once', () => {
    const claims = storedOf(set).flatMap((person) =>
      claimsOf(person).map(({ field, value }) => `${field}:${value}`),
    );
    expect(new Set(claims).size).toBe(claims.length);
  });

  it('plants each kind its count of pairs, each on persons no other pair took', () => {
    for (const { kind, count } of set.kinds)
      expect(set.pairs.filter((pair) => pair.kind === kind)).toHaveLength(count);
    const records = set.pairs.flatMap(({ records }) => records);
    expect(new Set(records).size).toBe(records.length);
  });

  it('labels a duplicate kind one person and an alike kind two', () => {
    for (const { kind, records } of set.pairs) {
      const [a, b] = records.map((index) => set.records[index]?.entity);
      const { duplicate } = DUPLICATE_KINDS.find((spec) => spec.kind === kind) ?? { duplicate: undefined };
      expect(a === b, kind).toBe(duplicate);
    }
  });
});

describe('the sets', () => {
  it('are the same every time they are drawn, and the held-out one is not the tuning one', () => {
    expect(tuningDuplicateSet(QUICK.duplicates)).toEqual(SETS['quick tuning']);
    const names = (set: DuplicateSet) => new Set(set.records.map(({ last }) => last));
    const shared = [...names(SETS.tuning)].filter((last) => names(SETS['held-out']).has(last));
    // Other name pools: a few family names (Turkish, Spanish) are in both traditions' lists.
    expect(shared.length).toBeLessThan(names(SETS['held-out']).size / 8);
  });

  it('draw at least eight kinds of duplicate and some kinds of persons alike', () => {
    expect(DUPLICATE_KINDS.filter(({ duplicate }) => duplicate).length).toBeGreaterThanOrEqual(8);
    expect(DUPLICATE_KINDS.filter(({ duplicate }) => !duplicate).length).toBeGreaterThanOrEqual(4);
  });
});

describe('scoring a queue against the labels', () => {
  const set = SETS['quick tuning'];
  const ids = set.records.map((_, index) => 100 + index);
  const pairOf = (records: readonly [number, number], grade: Grade): DuplicatePair =>
    ({
      id: `${ids[records[0]]}-${ids[records[1]]}`,
      persons: [ids[records[0]], ids[records[1]]],
      grade,
      score: 90,
    }) as DuplicatePair;
  const planted = set.pairs.filter(
    ({ kind }) => DUPLICATE_KINDS.find((spec) => spec.kind === kind)?.duplicate,
  );
  const alike = set.pairs.filter((pair) => !planted.includes(pair));

  it('counts every planted pair found at its grade, and any pair of two persons as wrong', () => {
    const [first, second, ...rest] = planted;
    const [namesake] = alike;
    if (!first || !second || !namesake) throw new Error('The quick set plants pairs of each kind');
    const queued = [
      pairOf(first.records, 'certain'),
      pairOf(second.records, 'possible'),
      ...rest.map(({ records }) => pairOf(records, 'probable')),
      pairOf(namesake.records, 'probable'),
      // Two records no kind paired, of two persons: wrong, and unlabelled.
      pairOf([0, set.records.length - 1], 'possible'),
    ];
    const { overall, rows } = duplicateQuality(set, ids, queued);
    expect(overall.recallAny).toBe(1);
    expect(overall.recallCertainOrProbable).toBe(
      Math.round(((planted.length - 1) / planted.length) * 1000) / 1000,
    );
    expect(overall.certainPrecision).toBe(1);
    expect(overall.certainOrProbablePrecision).toBe(
      Math.round(((planted.length - 1) / planted.length) * 1000) / 1000,
    );
    expect(overall.queued).toEqual({ certain: 1, probable: planted.length - 1, possible: 2 });
    expect(overall.wrong).toEqual({ certain: 0, probable: 1, possible: 1 });
    expect(overall.unlabelled).toEqual({ certain: 0, probable: 0, possible: 1 });
    expect(overall.namesakesCertain).toBe(0);
    expect(rows.find(({ kind }) => kind === namesake.kind)).toMatchObject({ found: 1, probable: 1 });
  });

  it('counts nothing found when the queue is empty, and no precision without a graded pair', () => {
    const { overall } = duplicateQuality(set, ids, []);
    expect(overall).toMatchObject({
      recallAny: 0,
      recallCertainOrProbable: 0,
      certainPrecision: null,
      certainOrProbablePrecision: null,
    });
  });
});
