import { batchHandler } from '../lib/batch-handler';
import { duplicateReadsFromEnv, pairStoreFromEnv } from '../lib/db/from-env';
import { detectDuplicates } from '../lib/duplicates/detect-duplicates';
import { logger } from '../lib/logger';

/** SQS, fed by the bus's person events: checks the changed person for duplicates (API.md 12.1). */
export const handler = batchHandler(
  detectDuplicates({ reads: duplicateReadsFromEnv(), pairs: pairStoreFromEnv(), logger }),
);
