import { personRepositoryFromEnv } from '../lib/db/from-env';
import { erasePersonHandler } from '../lib/http/person-handlers';

/** DELETE /Person/{id} */
export const buildHandler = erasePersonHandler;

export const handler = buildHandler({ persons: personRepositoryFromEnv() });
