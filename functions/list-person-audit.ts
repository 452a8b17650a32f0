import { auditLogFromEnv } from '../lib/db/from-env';
import { listPersonAuditHandler } from '../lib/http/person-handlers';

/** GET /Person/{id}/audit */
export const buildHandler = listPersonAuditHandler;

export const handler = buildHandler({ audit: auditLogFromEnv() });
