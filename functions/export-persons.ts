import { personExportFromEnv } from '../lib/db/from-env';
import { exportPersonsHandler } from '../lib/http/person-handlers';

/** GET /Person/export */
export const buildHandler = exportPersonsHandler;

export const handler = buildHandler({ personExport: personExportFromEnv() });
