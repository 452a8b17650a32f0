import { batchHandler } from '../lib/batch-handler';
import { personRepositoryFromEnv } from '../lib/db/from-env';
import { finishErasures } from '../lib/erasure/finish-erasures';
import { logger } from '../lib/logger';

/** SQS, fed by the bus's `person.erased`: finishes an erasure whose chain was cut short (API.md 15). */
export const handler = batchHandler(finishErasures({ persons: personRepositoryFromEnv(), logger }));
