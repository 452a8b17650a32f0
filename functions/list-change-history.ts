import { changeHistoryFromEnv } from '../lib/db/from-env';
import { changeHistoryListHandler } from '../lib/http/change-history-handlers';

/** GET /ChangeHistory: entries across objects, newest first */
export const buildHandler = changeHistoryListHandler;

export const handler = buildHandler({ history: changeHistoryFromEnv() });
