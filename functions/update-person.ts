import { idempotencyStoreFromEnv, personRepositoryFromEnv } from '../lib/db/from-env';
import { updatePersonHandler } from '../lib/http/person-handlers';

/** PATCH /Person/{id} */
export const buildHandler = updatePersonHandler;

export const handler = buildHandler({
  persons: personRepositoryFromEnv(),
  idempotency: { store: idempotencyStoreFromEnv() },
});
