/**
 * The read ports of persons the handlers call (lists, the export, reconciliation's candidates), declared
 * where they are used; lib/db/person/read/ implements them.
 */
import type { ExportRequest, PersonListRequest, PersonSummary } from '../listing';
import type { Person } from '../person';
import type { CandidateFacts, MatchRequest } from '../reconcile';

export interface ListCost {
  calls: number;
  itemsRead: number;
  capacityUnits: number;
}

export interface PersonListResult {
  count: number;
  persons: PersonSummary[];
  cost: ListCost;
  /** What the read went through, for the cost log line (posting-search.ts: the probe read whole). */
  detail?: Record<string, string | number>;
}

export interface PersonList {
  list(request: PersonListRequest): Promise<PersonListResult>;
}

export interface ExportPage {
  persons: Person[];
  /** The cursor of the next page; null on the last. */
  next: string | null;
  cost: ListCost;
}

export interface PersonExport {
  page(request: ExportRequest): Promise<ExportPage>;
}

export interface CandidateRead {
  candidates: CandidateFacts[];
  cost: ListCost;
  /** What the read went through, for the cost log line. */
  detail: Record<string, number | string>;
}

export interface ReconcileReader {
  /** The persons a match request may be about, with what they are scored on. */
  candidates(request: MatchRequest): Promise<CandidateRead>;
  /** Stubs of the persons one of whose names or emails holds the (folded) text, best first. */
  suggest(text: string, limit: number): Promise<PersonSummary[]>;
  /** These persons, by id; an id no person has is absent. */
  persons(ids: readonly number[]): Promise<Map<number, Person>>;
}
