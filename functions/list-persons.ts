import { personListFromEnv } from '../lib/db/from-env';
import { listPersonsHandler } from '../lib/http/person-handlers';

/** GET /Person */
export const buildHandler = listPersonsHandler;

export const handler = buildHandler({ personList: personListFromEnv() });
