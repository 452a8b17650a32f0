/** An AuditEntry: one per stored change of a Person (API.md 6). */
export type AuditAction = 'create' | 'update' | 'enrich' | 'merge' | 'unmerge' | 'erase';

export interface AuditEntry {
  id: number;
  person_id: number;
  action: AuditAction;
  /** The person who asked, or null for the service's own changes (enrichment). */
  requester: number | null;
  at: string;
  changed: string[];
}
