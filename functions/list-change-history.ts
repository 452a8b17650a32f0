import type { ChangeHistory } from '../lib/db/change-history';
import { changeHistoryFromEnv } from '../lib/db/from-env';
import { changeHistoryListHandler } from '../lib/http/change-history-handlers';

/** GET /ChangeHistory: entries across objects, newest first */
export const buildHandler = ({ history }: { history: ChangeHistory }) => changeHistoryListHandler(history);

export const handler = buildHandler({ history: changeHistoryFromEnv() });
