/**
 * `npm run duplicates -- --scan` (API.md 12.1): every person of an existing store checked once, as the
 * detector checks a changed one (`checkPerson`), for a store that held persons before the detector
 * ran. It walks the persons as the export does (its pages of the `byName` index, in order, with its
 * cursor), checks each page's persons a few at a time, and keeps its position after each page
 * (lib/db/duplicates/scan-position.ts): stopped anywhere, it goes on from there; finished, it says so
 * and checks nothing until it is restarted. Its cost is in proportion to the persons it checks: one
 * export page per `limit` persons and one check each.
 */

import type { ScanPosition, ScanPositions } from '../domain/ports/duplicates';
import type { PersonExport } from '../domain/ports/lists';
import { checkPerson, type DetectorDeps } from './detect-duplicates';

export interface ScanOptions {
  /** Persons a page (the export's limit). */
  limit?: number;
  /** Persons checked at once. */
  concurrency?: number;
  /** Start again from the first person, whatever an earlier run reached. */
  restart?: boolean;
  /** Told after each page: where the scan stands, and the pairs it created so far in this run. */
  onPage?: (position: ScanPosition, created: number) => void | Promise<void>;
  /** Until when a check's writes may retry (epoch ms), from the check's start. */
  checkBudgetMs?: number;
}

export interface ScanResult extends ScanPosition {
  /** Pairs found for the first time by this run. */
  created: number;
  /** Whether the scan had finished before this run (nothing checked then). */
  alreadyDone: boolean;
}

/** Runs `work` on each item, at most `concurrency` at once. */
const eachAtMost = async <T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
};

export const scanDuplicates = async (
  {
    persons,
    positions,
    detector,
  }: { persons: PersonExport; positions: ScanPositions; detector: DetectorDeps },
  { limit = 100, concurrency = 4, restart = false, onPage, checkBudgetMs = 30_000 }: ScanOptions = {},
): Promise<ScanResult> => {
  const saved = restart ? undefined : await positions.read();
  if (saved?.done) return { ...saved, created: 0, alreadyDone: true };
  let position: ScanPosition = saved ?? { checked: 0, done: false };
  let created = 0;
  while (!position.done) {
    const page = await persons.page({ limit, ...(position.cursor ? { cursor: position.cursor } : {}) });
    await eachAtMost(page.persons, concurrency, async ({ id }) => {
      const changes = await checkPerson(detector, id, Date.now() + checkBudgetMs);
      created += changes.filter(({ kind }) => kind === 'create').length;
    });
    position = {
      checked: position.checked + page.persons.length,
      done: page.next === null,
      ...(page.next ? { cursor: page.next } : {}),
    };
    await positions.write(position);
    await onPage?.(position, created);
  }
  return { ...position, created, alreadyDone: false };
};
