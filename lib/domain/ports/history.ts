/** The ChangeHistory ports the handlers call (API.md 6, 10); lib/db/history/ implements them. */
import type { AuditEntry } from '../audit';
import type { ChangeEntry, ResourceType } from '../change-history';
import type { Window } from '../listing';

/** An entry with the object before and after its change, as stored (null before a create). */
export interface StoredChange {
  entry: ChangeEntry;
  previous: unknown;
  current: unknown;
}

export interface ChangeFilter {
  endpoint?: ResourceType | undefined;
  object_id?: number | undefined;
}

export interface ChangeQuery extends ChangeFilter {
  /** Newest first (the default), or oldest first. */
  descending: boolean;
  window: Window;
}

export interface ChangePage<T> {
  total: number;
  changes: T[];
}

export interface ChangeHistory {
  page(query: ChangeQuery): Promise<ChangePage<StoredChange>>;
  get(id: number): Promise<StoredChange>;
  /** One object's entries without the stored objects (the per-person audit view); undefined when no such object. */
  entriesOf(
    endpoint: ResourceType,
    objectId: number,
    window: Window,
  ): Promise<ChangePage<ChangeEntry> | undefined>;
}

export interface AuditPage {
  total: number;
  entries: AuditEntry[];
}

export interface AuditLog {
  /** Entries newest first; `window.offset` counts from the newest. */
  page(personId: number, window: Window): Promise<AuditPage>;
}
