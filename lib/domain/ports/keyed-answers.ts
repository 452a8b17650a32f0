/**
 * What a replay of a keyed write (API.md 5.6) asks of where the answers are kept, declared where it is
 * used (lib/http/idempotency.ts); lib/db/idempotency/idempotency-store.ts implements it.
 */
import type { ErasedPerson } from '../erasure';

export interface KeyedAnswers {
  /**
   * The tombstone of the person a stored answer is about (the Person it is), when that person is
   * erased now (API.md 15): one consistent read of the person. Undefined for an answer about no
   * person (no read) or about one that is not erased.
   */
  erasedAbout(answer: unknown): Promise<ErasedPerson | undefined>;
}
