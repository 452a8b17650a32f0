/**
 * A person's change history in the older AuditEntry view (`GET /Person/{id}/audit`, API.md 6): the
 * person's ChangeHistory entries, read without the stored objects. Two calls whatever its length.
 */
import type { AuditEntry } from '../../domain/audit';
import { toAuditEntry } from '../../domain/change-history';
import { PersonNotFound } from '../../domain/errors';
import type { Window } from '../../domain/listing';
import type { Storage } from '../table/client';
import { changeHistory } from './change-history';

export interface AuditPage {
  total: number;
  entries: AuditEntry[];
}

export interface AuditLog {
  /** Entries newest first; `window.offset` counts from the newest. */
  page(personId: number, window: Window): Promise<AuditPage>;
}

export const auditLog = (storage: Storage): AuditLog => {
  const history = changeHistory(storage);
  return {
    async page(personId, window) {
      const page = await history.entriesOf('Person', personId, window);
      if (!page) throw new PersonNotFound(personId);
      return { total: page.total, entries: page.changes.map(toAuditEntry) };
    },
  };
};
