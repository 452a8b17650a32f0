import { toAuditEntry } from '../../domain/change-history';
import { PersonNotFound } from '../../domain/errors';
import type { AuditLog } from '../../domain/ports/history';
import type { Storage } from '../table/client';
import { changeHistory } from './change-history';

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
