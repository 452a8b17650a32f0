import { personRepositoryFromEnv } from '../lib/db/from-env';
import { bindPrincipalHandler } from '../lib/http/person-handlers';

/** PUT /Person/{id}/principal */
export const buildHandler = bindPrincipalHandler;

export const handler = buildHandler({ persons: personRepositoryFromEnv() });
