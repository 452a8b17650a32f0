import { personRepositoryFromEnv } from '../lib/db/from-env';
import { getPersonHandler } from '../lib/http/person-handlers';

/** GET /Person/{id} */
export const buildHandler = getPersonHandler;

export const handler = buildHandler({ persons: personRepositoryFromEnv() });
