import { changeHistoryFromEnv } from '../lib/db/from-env';
import { changeHistoryItemHandler } from '../lib/http/change-history-handlers';

/** GET /ChangeHistory/{id} */
export const buildHandler = changeHistoryItemHandler;

export const handler = buildHandler({ history: changeHistoryFromEnv() });
