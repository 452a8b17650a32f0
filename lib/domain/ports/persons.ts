/**
 * The persons port: what the handlers ask of the person store (API.md 3 to 9, 13), declared where it is
 * used. `lib/db/person-repository.ts` implements it on the table; tests may hand the handlers their own.
 */
import type { ErasedPerson } from '../erasure';
import type { MergedPerson } from '../merge';
import type { Tombstones } from '../patch';
import type { Person } from '../person';
import type { Preconditions } from '../preconditions';
import type { Principal } from '../principal';
import type { PersonBody } from '../schemas';
import type { UpdateOptions, WriteOptions } from './writes';

export interface WriteOutcome {
  person: Person;
  tombstones: Tombstones;
}

/**
 * A person as GET finds it: live, merged into another (API.md 13) with the live end of its chain, or
 * erased (API.md 15).
 */
export type FoundPerson =
  | { person: Person }
  | { merged: MergedPerson; liveEnd: number }
  | { erased: ErasedPerson };

/** How a merge is sent: as a write, and only over the survivor's version If-Match names. */
export interface MergeOptions extends WriteOptions {
  conditions?: Preconditions;
  /** Answer what the merge would make, and write nothing. */
  preview?: boolean;
}

/** An unmerge's answer (API.md 13.1): both persons as GET now shows them. */
export interface UnmergeOutcome {
  survivor: Person;
  source: Person;
}

/** Who changes a binding (a delegate, kept on the binding's items) and until when it may retry. */
export interface BindingOptions {
  by: Principal;
  deadline?: number;
}

export interface PersonRepository {
  /** The live person; one merged into another is `PersonMerged` (its survivor, the chain's live end). */
  get(id: number): Promise<Person>;
  find(id: number): Promise<FoundPerson>;
  /** The person `principal` is bound to (API.md 9.1), if any. */
  ownPerson(principal: Principal): Promise<number | undefined>;
  create(body: PersonBody, requester: number, options?: WriteOptions): Promise<WriteOutcome>;
  update(id: number, body: PersonBody, requester: number, options?: UpdateOptions): Promise<WriteOutcome>;
  /** Merges person `source` into person `survivor` (API.md 13) and answers the survivor. */
  merge(survivor: number, source: number, requester: number, options?: MergeOptions): Promise<Person>;
  /** Undoes the merge of person `source` into person `survivor` (API.md 13.1) and answers both. */
  unmerge(
    survivor: number,
    source: number,
    requester: number,
    options?: MergeOptions,
  ): Promise<UnmergeOutcome>;
  /**
   * Erases person `id` (API.md 15) and answers its tombstone; one erased already answers the same
   * tombstone, and nothing is written.
   */
  erase(id: number, requester: number, options?: UpdateOptions): Promise<ErasedPerson>;
  /**
   * Finishes the erasure of person `id` whose chain was cut short (its history and stored answers still
   * to erase), retrying until `deadline`: true when there was something to finish.
   */
  finishErasure(id: number, deadline?: number): Promise<boolean>;
  /**
   * Binds `principal` to live person `id` (API.md 9.1), `by` the delegate that asks: true when bound
   * now, false when it was bound to it already; either side bound elsewhere is `PrincipalAlreadyBound`.
   */
  bind(id: number, principal: Principal, options: BindingOptions): Promise<boolean>;
  /** Unbinds live person `id`'s principal: the principal it had, null when it had none. */
  unbind(id: number, options?: Pick<BindingOptions, 'deadline'>): Promise<Principal | null>;
}
