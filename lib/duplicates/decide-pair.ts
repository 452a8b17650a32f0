/**
 * A steward's decision on a duplicate pair (API.md 12.1, `POST /duplicates/{pairId}/decision`):
 * - `not-duplicate`: the pair is remembered as such, on the revision read (a check that rescored it
 *   in between makes the decision read it again), and no check proposes it again
 *   (lib/domain/duplicates.ts `pairChanges`);
 * - `merge`: the other person is merged into the survivor by the merge write of API.md 13 (its
 *   refusals answered as they are, nothing written then), and then the pair is `merged`. The detector
 *   may resolve the pair between the two (the merge's own events): the merge happened, so the pair
 *   becomes `merged` whatever status it reached meanwhile, and a merge sent again (the client's retry)
 *   merges nothing twice (section 13: a source merged into this survivor answers 200).
 */
import { jitteredBackoff, retrying } from '../db/write/send';
import {
  type DecisionBody,
  type DuplicatePair,
  decidedPair,
  decisionCheck,
  personsOfPairId,
} from '../domain/duplicates';
import { NotFound, PairDecided, ValidationFailed } from '../domain/errors';
import type { DuplicatePairs } from '../domain/ports/duplicates';
import type { PersonRepository } from '../domain/ports/persons';
import type { WriteOptions } from '../domain/ports/writes';

export interface DecisionDeps {
  pairs: DuplicatePairs;
  persons: Pick<PersonRepository, 'merge'>;
  now?: () => string;
}

/** The pair of this id as stored; 404 for an id of no pair (or no pair id at all). */
const storedPair = async (pairs: DuplicatePairs, pairId: string) => {
  const stored = personsOfPairId(pairId) ? await pairs.get(pairId) : undefined;
  if (!stored) throw new NotFound('DuplicatePair', pairId);
  return stored;
};

/** Marks the pair `merged` once its merge is written, on whatever revision it has reached. */
const markMerged = (
  { pairs, now }: Required<DecisionDeps>,
  pairId: string,
  requester: number,
  deadline: number,
): Promise<DuplicatePair> =>
  retrying({ deadline, backoff: jitteredBackoff }, async () => {
    const stored = await storedPair(pairs, pairId);
    if (stored.pair.status === 'merged') return stored.pair;
    const pair = decidedPair(stored.pair, 'merged', requester, now());
    return (await pairs.apply({ kind: 'update', before: stored, pair })) ? pair : undefined;
  });

export const decidePair = async (
  { pairs, persons, now = () => new Date().toISOString() }: DecisionDeps,
  pairId: string,
  body: DecisionBody,
  requester: number,
  write: WriteOptions & { deadline: number },
): Promise<DuplicatePair> => {
  const { deadline } = write;
  const decided = await retrying({ deadline, backoff: jitteredBackoff }, async () => {
    const stored = await storedPair(pairs, pairId);
    const check = decisionCheck(stored.pair, body);
    if (!check.ok) {
      if (check.problem === 'pair-decided') throw new PairDecided(pairId, check.status);
      throw new ValidationFailed([{ path: check.pointer, message: check.message }], check.message);
    }
    if (check.decision === 'merge') return check;
    const pair = decidedPair(stored.pair, 'not-duplicate', requester, now());
    return (await pairs.apply({ kind: 'update', before: stored, pair })) ? pair : undefined;
  });
  if ('@type' in decided) return decided;
  await persons.merge(decided.survivor, decided.source, requester, write);
  return markMerged({ pairs, persons, now }, pairId, requester, deadline);
};
