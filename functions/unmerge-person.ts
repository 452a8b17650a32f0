import { idempotencyStoreFromEnv, personRepositoryFromEnv } from '../lib/db/from-env';
import { unmergePersonHandler } from '../lib/http/person-handlers';

/** POST /Person/{id}/unmerge */
export const buildHandler = unmergePersonHandler;

export const handler = buildHandler({
  persons: personRepositoryFromEnv(),
  idempotency: { store: idempotencyStoreFromEnv() },
});
