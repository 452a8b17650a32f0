import { personRepositoryFromEnv } from '../lib/db/from-env';
import { getOwnPersonHandler } from '../lib/http/person-handlers';

/** GET /Person/me */
export const buildHandler = getOwnPersonHandler;

export const handler = buildHandler({ persons: personRepositoryFromEnv() });
