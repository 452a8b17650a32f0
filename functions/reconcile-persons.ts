import { reconcileReaderFromEnv } from '../lib/db/from-env';
import { reconcileHandler, reconcileVisibilityFromEnv } from '../lib/http/reconcile-handlers';

/** GET|POST /reconcile: the Reconciliation API's manifest, query batches and data extension. */
export const buildHandler = reconcileHandler;

export const handler = buildHandler({
  reader: reconcileReaderFromEnv(),
  visibility: reconcileVisibilityFromEnv(),
});
