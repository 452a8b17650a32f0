import { idempotencyStoreFromEnv, personRepositoryFromEnv } from '../lib/db/from-env';
import { mergePersonHandler } from '../lib/http/person-handlers';

/** POST /Person/{id}/merge */
export const buildHandler = mergePersonHandler;

export const handler = buildHandler({
  persons: personRepositoryFromEnv(),
  idempotency: { store: idempotencyStoreFromEnv() },
});
