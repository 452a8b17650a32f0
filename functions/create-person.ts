import { idempotencyStoreFromEnv, personRepositoryFromEnv } from '../lib/db/from-env';
import { createPersonHandler } from '../lib/http/person-handlers';

/** POST /Person */
export const buildHandler = createPersonHandler;

export const handler = buildHandler({
  persons: personRepositoryFromEnv(),
  idempotency: { store: idempotencyStoreFromEnv() },
});
