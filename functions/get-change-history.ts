import type { ChangeHistory } from '../lib/db/change-history';
import { changeHistoryFromEnv } from '../lib/db/from-env';
import { changeHistoryItemHandler } from '../lib/http/change-history-handlers';

/** GET /ChangeHistory/{id} */
export const buildHandler = ({ history }: { history: ChangeHistory }) => changeHistoryItemHandler(history);

export const handler = buildHandler({ history: changeHistoryFromEnv() });
