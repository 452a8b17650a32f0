import { personRepositoryFromEnv } from '../lib/db/from-env';
import { unbindPrincipalHandler } from '../lib/http/person-handlers';

/** DELETE /Person/{id}/principal */
export const buildHandler = unbindPrincipalHandler;

export const handler = buildHandler({ persons: personRepositoryFromEnv() });
