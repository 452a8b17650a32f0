import type { AuditLog } from '../lib/db/audit-log';
import { auditLogFromEnv } from '../lib/db/from-env';
import { auditEntryOut } from '../lib/domain/representation';
import { readHandler } from '../lib/http/handler';
import { pagedResponse } from '../lib/http/paged';
import { personIdOf } from '../lib/http/request';

/** GET /Person/{id}/audit: the person's AuditEntries, newest first, in the PaginatedList envelope. */
export const buildHandler = ({ audit }: { audit: AuditLog }) =>
  readHandler().handler(async ({ event, links }) => {
    const personId = personIdOf(event);
    return pagedResponse(event, links, 'AuditEntry', async (window) => {
      const { total, entries } = await audit.page(personId, window);
      return { total, items: entries.map((entry) => auditEntryOut(entry, links.baseUrl)) };
    });
  });

export const handler = buildHandler({ audit: auditLogFromEnv() });
