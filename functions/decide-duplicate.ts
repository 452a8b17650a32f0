import { idempotencyStoreFromEnv, pairStoreFromEnv, personRepositoryFromEnv } from '../lib/db/from-env';
import { decideDuplicateHandler } from '../lib/http/duplicate-handlers';

/** POST /duplicates/{pairId}/decision: a steward's decision on a duplicate pair (API.md 12.1) */
export const buildHandler = decideDuplicateHandler;

export const handler = buildHandler({
  pairs: pairStoreFromEnv(),
  persons: personRepositoryFromEnv(),
  idempotency: { store: idempotencyStoreFromEnv() },
});
