import { pairStoreFromEnv } from '../lib/db/from-env';
import { listDuplicatesHandler } from '../lib/http/duplicate-handlers';

/** GET /duplicates: the duplicates queue (API.md 12.1), best first, a page at a time */
export const buildHandler = listDuplicatesHandler;

export const handler = buildHandler({ pairs: pairStoreFromEnv() });
