/**
 * Section 9: the duplicates queue's quality (issue #57 step 4). A labelled set of duplicate-set.ts is
 * written as creates write it (persons, postings, claims), every person checked once by the detector
 * as `npm run duplicates -- --scan` checks a store (`scanDuplicates`, the detector's own reads and
 * writes against DynamoDB Local), and the queue then read as `GET /duplicates` reads it (every open
 * pair, page by page). Each pair the queue holds is scored against the labels: a pair of two records
 * of one person is right, any other pair wrong, whichever kind planted it or none.
 *
 * Reported per kind and overall: the recall of the planted duplicates at any grade and at certain or
 * probable, the precision of `certain` and of certain+probable, and what namesakes were graded.
 */
import { duplicateReads } from '../../lib/db/duplicates/duplicate-reads';
import { pairStore } from '../../lib/db/duplicates/pair-store';
import { scanPositions } from '../../lib/db/duplicates/scan-position';
import { personExport } from '../../lib/db/person/read/person-export';
import type { Storage } from '../../lib/db/table/client';
import {
  type DuplicatePair,
  DuplicatesQuery,
  type Grade,
  pairIdOf,
  pairQueryOf,
} from '../../lib/domain/duplicates';
import { scanDuplicates } from '../../lib/duplicates/scan-duplicates';
import { type DuplicateKind, type DuplicateSet, recordBodyOf } from './duplicate-set';
import { seedMatchStore } from './matching';

/** The bars of issue #57 step 4. */
export const DUPLICATE_BARS = {
  certainPrecision: 0.99,
  certainOrProbablePrecision: 0.9,
  recallAnyGrade: 0.9,
  recallCertainOrProbable: 0.75,
} as const;

/** What the queue made of one kind's labelled pairs. */
export interface KindRow {
  kind: string;
  duplicate: boolean;
  pairs: number;
  /** Of its pairs: in the queue at all, and at each grade. */
  found: number;
  certain: number;
  probable: number;
  possible: number;
  /** Duplicate kinds: found / pairs, and (certain + probable) / pairs. */
  recallAny: number | null;
  recallCertainOrProbable: number | null;
}

export interface QualityFigures {
  /** The planted duplicates found at any grade, and at certain or probable. */
  recallAny: number;
  recallCertainOrProbable: number;
  /** Pairs graded certain (certain or probable) that are one person: right / graded (null: none graded). */
  certainPrecision: number | null;
  certainOrProbablePrecision: number | null;
  /** Pairs in the queue by grade, and of them the ones that are not one person. */
  queued: Record<Grade, number>;
  wrong: Record<Grade, number>;
  /** Namesake pairs (any kind of two persons) graded certain: the bar is none. */
  namesakesCertain: number;
  /** Queued pairs no kind planted (two records alike by chance), by grade. */
  unlabelled: Record<Grade, number>;
}

export interface DuplicateQualitySection {
  name: string;
  persons: number;
  kinds: readonly DuplicateKind[];
  seedSeconds: number;
  scanSeconds: number;
  /** Persons checked a second by the scan (4 at a time, DynamoDB Local). */
  checksPerSecond: number;
  rows: KindRow[];
  overall: QualityFigures;
  /** A few planted duplicates missed or graded possible, and wrong pairs graded certain or probable. */
  examples: string[];
}

const ratio = (part: number, whole: number) =>
  whole === 0 ? null : Math.round((part / whole) * 1000) / 1000;
const byGrade = (): Record<Grade, number> => ({ certain: 0, probable: 0, possible: 0 });

/** Every open pair of the queue, as `GET /duplicates` pages through it (100 a page). */
export const queuedPairs = async (storage: Storage): Promise<DuplicatePair[]> => {
  const pairs: DuplicatePair[] = [];
  let after: string | undefined;
  do {
    const query = pairQueryOf(DuplicatesQuery.parse({ limit: '100', ...(after ? { after } : {}) }));
    const page = await pairStore(storage).page(query);
    pairs.push(...page.pairs);
    after = page.next ?? undefined;
  } while (after);
  return pairs;
};

/**
 * The figures of a set from the queue's pairs: `ids` are the records' person ids, in record order.
 * Pure: the bench and the regression test score the same way.
 */
export const duplicateQuality = (
  set: DuplicateSet,
  ids: readonly number[],
  queued: readonly DuplicatePair[],
): { rows: KindRow[]; overall: QualityFigures; examples: string[] } => {
  const recordOf = new Map(ids.map((id, index) => [id, index]));
  const entityOf = (personId: number) => set.records[recordOf.get(personId) ?? -1]?.entity;
  const byId = new Map(queued.map((pair) => [pair.id, pair]));
  const labelled = new Set<string>();
  const examples: string[] = [];
  /** A record as the report shows it: `Sofía Blanco (s.blanco@mail.example; 0177 064 508; 199 Queen Street 79972)`. */
  const describe = (personId: number) => {
    const record = set.records[recordOf.get(personId) ?? -1];
    if (!record) return String(personId);
    const { first, last, middle, suffix, emails, phones, addresses } = record;
    const name = [first, middle, last, suffix === 501 ? 'Jr.' : suffix === 502 ? 'Sr.' : undefined];
    const held = [
      ...emails,
      ...phones,
      ...addresses.map(({ address1, postal_code }) => `${address1} ${postal_code}`),
    ];
    return `${name.filter(Boolean).join(' ')}${held.length > 0 ? ` (${held.join('; ')})` : ''}`;
  };

  const rows = set.kinds.map(({ kind, duplicate }): KindRow => {
    const row: KindRow = {
      kind,
      duplicate,
      pairs: 0,
      found: 0,
      certain: 0,
      probable: 0,
      possible: 0,
      recallAny: null,
      recallCertainOrProbable: null,
    };
    for (const pair of set.pairs.filter((labelledPair) => labelledPair.kind === kind)) {
      const [a, b] = pair.records.map((record) => ids[record] as number) as [number, number];
      const id = pairIdOf(a, b);
      labelled.add(id);
      row.pairs++;
      const found = byId.get(id);
      if (found) {
        row.found++;
        row[found.grade]++;
      }
      const missed = duplicate && (!found || found.grade === 'possible');
      const wronglySure = !duplicate && found && found.grade !== 'possible';
      if ((missed || wronglySure) && examples.filter((line) => line.startsWith(`${kind}:`)).length < 2)
        examples.push(
          `${kind}: ${found ? `${found.grade} ${found.score}` : 'not in the queue'}: ${describe(a)} / ${describe(b)}`,
        );
    }
    if (duplicate) {
      row.recallAny = ratio(row.found, row.pairs);
      row.recallCertainOrProbable = ratio(row.certain + row.probable, row.pairs);
    }
    return row;
  });

  const duplicates = rows.filter(({ duplicate }) => duplicate);
  const planted = duplicates.reduce((sum, row) => sum + row.pairs, 0);
  const queuedByGrade = byGrade();
  const wrong = byGrade();
  const unlabelled = byGrade();
  for (const pair of queued) {
    queuedByGrade[pair.grade]++;
    const [a, b] = pair.persons;
    const entityA = entityOf(a);
    if (entityA === undefined || entityA !== entityOf(b)) wrong[pair.grade]++;
    if (!labelled.has(pair.id)) unlabelled[pair.grade]++;
  }
  const sure = queuedByGrade.certain + queuedByGrade.probable;
  return {
    rows,
    overall: {
      recallAny: ratio(
        duplicates.reduce((sum, row) => sum + row.found, 0),
        planted,
      ) as number,
      recallCertainOrProbable: ratio(
        duplicates.reduce((sum, row) => sum + row.certain + row.probable, 0),
        planted,
      ) as number,
      certainPrecision: ratio(queuedByGrade.certain - wrong.certain, queuedByGrade.certain),
      certainOrProbablePrecision: ratio(sure - wrong.certain - wrong.probable, sure),
      queued: queuedByGrade,
      wrong,
      namesakesCertain: wrong.certain,
      unlabelled,
    },
    examples,
  };
};

/**
 * Writes the set into `storage`'s table, scans it with the detector, reads the queue: the ids of its
 * records and the queue's open pairs, and how long each part took.
 */
export const scanLabelledStore = async (
  storage: Storage,
  set: DuplicateSet,
  { counted }: { counted: boolean },
) => {
  const seeding = performance.now();
  const ids = await seedMatchStore(storage, set.records.map(recordBodyOf), { counted });
  const seedSeconds = (performance.now() - seeding) / 1000;
  const scanning = performance.now();
  await scanDuplicates({
    persons: personExport(storage),
    positions: scanPositions(storage),
    detector: { reads: duplicateReads(storage), pairs: pairStore(storage) },
  });
  const scanSeconds = (performance.now() - scanning) / 1000;
  return { ids, queued: await queuedPairs(storage), seedSeconds, scanSeconds };
};

export const runDuplicateQuality = async (
  storage: Storage,
  set: DuplicateSet,
  log: (line: string) => void,
): Promise<DuplicateQualitySection> => {
  const { ids, queued, seedSeconds, scanSeconds } = await scanLabelledStore(storage, set, { counted: true });
  const { rows, overall, examples } = duplicateQuality(set, ids, queued);
  log(
    `duplicates (${set.name}): ${set.records.length} persons scanned in ${scanSeconds.toFixed(1)} s; ` +
      `recall ${overall.recallAny} at any grade, ${overall.recallCertainOrProbable} certain+probable; ` +
      `precision ${overall.certainPrecision} certain, ${overall.certainOrProbablePrecision} certain+probable`,
  );
  return {
    name: set.name,
    persons: set.records.length,
    kinds: set.kinds,
    seedSeconds: Number(seedSeconds.toFixed(1)),
    scanSeconds: Number(scanSeconds.toFixed(1)),
    checksPerSecond: Math.round(set.records.length / scanSeconds),
    rows,
    overall,
    examples,
  };
};
