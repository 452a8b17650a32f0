/**
 * The duplicates detector (API.md 12.1, issue #57), a consumer of the feed's events on the bus
 * (lib/api/bus-subscriptions.ts): each changed person is checked against the store by section 12's
 * matcher, and the pairs it makes are written to the queue (lib/db/duplicates/pair-store.ts).
 *
 * One check of a person:
 * 1. the person as stored now, and the pairs it is in already;
 * 2. live: its candidates as reconciliation finds them for a query of itself (its names, emails and
 *    phones: never every person), and the other persons of its pairs (so that a pair is scored again
 *    even when the search no longer finds it); merged into another or erased: none;
 * 3. the pairs scored (lib/domain/duplicates.ts `pairsOf`), and what changes in the queue
 *    (`pairChanges`): new pairs created, changed ones rescored, pairs it no longer makes resolved,
 *    `not-duplicate` ones never touched;
 * 4. each change written on the revision it read; one that meets another check's write reads again
 *    from step 1.
 *
 * At least once and in no set order is safe: a check reads the person as it is now, whichever event
 * brought it, and a pair that stands as stored is not written again.
 */
import { queueConsumer } from '../bus/consumer';
import { jitteredBackoff, retrying } from '../db/write/send';
import {
  DETECTOR_EVENTS,
  duplicateFactsOf,
  matchRequestOfPerson,
  type PairChange,
  pairChanges,
  pairsOf,
} from '../domain/duplicates';
import { isErasedPerson } from '../domain/erasure';
import { isMergedPerson } from '../domain/merge';
import type { DuplicatePairs, DuplicateReads } from '../domain/ports/duplicates';
import type { logger as defaultLogger } from '../logger';
import { addMetric } from '../metrics';

/** What a change must touch for its person's pairs to change: what pairs are scored on. */
const SCORED_PARTS = ['/Names', '/Emails', '/PhoneNumbers', '/PostalAddresses'];

export interface DetectorDeps {
  reads: DuplicateReads;
  pairs: DuplicatePairs;
  /** When a new pair is detected (ISO 8601); the clock by default. */
  now?: () => string;
}

/** Checks person `personId` against the store and writes what changed: the changes made. */
export const checkPerson = async (
  { reads, pairs, now = () => new Date().toISOString() }: DetectorDeps,
  personId: number,
  deadline: number,
): Promise<PairChange[]> =>
  retrying({ deadline, backoff: jitteredBackoff }, async () => {
    const [stored, held] = await Promise.all([reads.stored(personId), pairs.pairsOf(personId)]);
    const live = stored && !isMergedPerson(stored) && !isErasedPerson(stored) ? stored : undefined;
    let scored: ReturnType<typeof pairsOf> = [];
    if (live) {
      const found = await reads.candidates(matchRequestOfPerson(live), personId);
      const searched = new Set(found.map(({ id }) => id));
      // A `not-duplicate` pair is never rescored: its other person need not be read.
      const partners = held
        .filter(({ pair }) => pair.status !== 'not-duplicate')
        .flatMap(({ pair }) => pair.persons)
        .filter((id) => id !== personId && !searched.has(id));
      const others = await reads.persons([...new Set(partners)]);
      scored = pairsOf(live, [...found, ...others.values()].map(duplicateFactsOf));
    }
    const changes = pairChanges(personId, scored, held, now());
    for (const change of changes) if (!(await pairs.apply(change))) return undefined;
    return changes;
  });

/** Whether an event may change its person's pairs (an update of other parts does not). */
export const mayChangePairs = (type: string, changed: readonly string[]): boolean =>
  type !== 'person.updated' || changed.some((path) => SCORED_PARTS.some((part) => path.startsWith(part)));

export const detectDuplicates = ({
  logger,
  ...deps
}: DetectorDeps & { logger: Pick<typeof defaultLogger, 'info' | 'error'> }) =>
  queueConsumer(
    async (event, deadline) => {
      if (event.type === 'duplicate.detected' || !(DETECTOR_EVENTS as readonly string[]).includes(event.type))
        return;
      if (!mayChangePairs(event.type, event.data.changed)) return;
      const changes = await checkPerson(deps, event.data.id, deadline);
      const created = changes.filter(({ kind }) => kind === 'create').length;
      if (created > 0) addMetric('DuplicatePairsDetected', created);
      if (changes.length > 0)
        logger.info('duplicate pairs changed', {
          personId: event.data.id,
          eventId: event.id,
          created,
          updated: changes.length - created,
        });
    },
    { logger },
  );
