import { pairStoreFromEnv } from '../lib/db/from-env';
import { getDuplicateHandler } from '../lib/http/duplicate-handlers';

/** GET /duplicates/{pairId}: one duplicate pair (API.md 12.1) */
export const buildHandler = getDuplicateHandler;

export const handler = buildHandler({ pairs: pairStoreFromEnv() });
