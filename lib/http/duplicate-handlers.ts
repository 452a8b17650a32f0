/**
 * Duplicates under review (API.md 12.1): the queue a page at a time, one pair, and a steward's decision
 * on a pair (lib/duplicates/decide-pair.ts).
 */
import {
  DecisionBody,
  DuplicatesQuery,
  duplicatePage,
  pairQueryOf,
  personsOfPairId,
} from '../domain/duplicates';
import { NotFound } from '../domain/errors';
import type { DuplicatePairs } from '../domain/ports/duplicates';
import type { PersonRepository } from '../domain/ports/persons';
import { decidePair } from '../duplicates/decide-pair';
import type { HttpConfig } from './config';
import { readHandler, writeHandler } from './handler';
import { type IdempotencyOptions, keyedWrites } from './idempotency';
import { queryOf } from './request';
import { ok } from './responses';

/** The `{pairId}` of the path, as sent: an id of no pair is a 404, as an unknown one is. */
const pairIdOf = (event: { pathParameters?: Record<string, string | undefined> }) =>
  event.pathParameters?.pairId ?? '';

/** GET /duplicates: the pairs of a status and grades (or of one person), best first, a page at a time. */
export const listDuplicatesHandler = ({ pairs }: { pairs: Pick<DuplicatePairs, 'page'> }) =>
  readHandler().handler(async ({ event }) => {
    const page = await pairs.page(pairQueryOf(queryOf(event, DuplicatesQuery)));
    return ok(duplicatePage(page.pairs, page.next));
  });

/** GET /duplicates/{pairId}: the pair, whatever its status; 404 when there is none. */
export const getDuplicateHandler = ({ pairs }: { pairs: Pick<DuplicatePairs, 'get'> }) =>
  readHandler().handler(async ({ event }) => {
    const pairId = pairIdOf(event);
    const stored = personsOfPairId(pairId) ? await pairs.get(pairId) : undefined;
    if (!stored) throw new NotFound('DuplicatePair', pairId);
    return ok(stored.pair);
  });

/**
 * POST /duplicates/{pairId}/decision: `not-duplicate`, or `merge` into one of the two (API.md 13's
 * merge, its refusals included); the pair as decided, with who and when. With requester binding on, a
 * delegate's, as a merge is (API.md 9.1).
 */
export const decideDuplicateHandler = ({
  pairs,
  persons,
  idempotency,
  config,
}: {
  pairs: DuplicatePairs;
  persons: Pick<PersonRepository, 'merge'>;
  /** Without it `Idempotency-Key` is not honoured: the deployed function has it. */
  idempotency?: IdempotencyOptions;
  config?: HttpConfig;
}) =>
  writeHandler(DecisionBody, 'delegate', { once: keyedWrites(idempotency), config }).handler(
    async ({ event, body, requester, write }) =>
      ok(await decidePair({ pairs, persons }, pairIdOf(event), body, requester, write)),
  );
