/**
 * The duplicate pairs port (API.md 12.1): what the detector and the queue's routes ask of the store of
 * pairs. `lib/db/duplicates/pair-store.ts` implements it on the table.
 */
import type { DuplicatePair, PairChange, PairQuery, StoredPair } from '../duplicates';
import type { ErasedPerson } from '../erasure';
import type { MergedPerson } from '../merge';
import type { Person } from '../person';
import type { MatchRequest } from '../reconcile';

export interface DuplicatePairs {
  /** Every pair person `personId` is in, whatever its status, as stored now (a consistent read). */
  pairsOf(personId: number): Promise<StoredPair[]>;
  /** The pair of this id, if the store holds it. */
  get(pairId: string): Promise<StoredPair | undefined>;
  /**
   * Writes one change of a check: true when it landed, false when the pair was written by another
   * check since it was read (read again and plan again).
   */
  apply(change: PairChange): Promise<boolean>;
  /** A page of the queue (API.md 12.1): the pairs the query asks for, best first, and the next cursor. */
  page(query: PairQuery): Promise<{ pairs: DuplicatePair[]; next: string | null }>;
}

/** What the detector reads of persons to check one against the store. */
export interface DuplicateReads {
  /** The person as stored now (live, merged or erased: a consistent read), undefined when none is. */
  stored(id: number): Promise<Person | MergedPerson | ErasedPerson | undefined>;
  /**
   * The live persons section 12's matcher finds for person `self`'s request (reconciliation's
   * candidates, read whole), other than `self`: its own name is not taken for another's.
   */
  candidates(request: MatchRequest, self: number): Promise<Person[]>;
  /** The live persons of these ids (the other persons of the pairs a person is in already). */
  persons(ids: readonly number[]): Promise<Map<number, Person>>;
}

/** How far a scan of every person came: the export cursor after its last page checked whole. */
export interface ScanPosition {
  cursor?: string;
  checked: number;
  done: boolean;
}

/** Where a scan keeps its position, so that a run stopped anywhere goes on. */
export interface ScanPositions {
  read(): Promise<ScanPosition | undefined>;
  write(position: ScanPosition): Promise<void>;
}
