import { reconcileReaderFromEnv } from '../lib/db/from-env';
import { previewHandler, reconcileVisibilityFromEnv } from '../lib/http/reconcile-handlers';

/** GET /reconcile/preview: the HTML card OpenRefine shows of a candidate. */
export const buildHandler = previewHandler;

export const handler = buildHandler({
  reader: reconcileReaderFromEnv(),
  visibility: reconcileVisibilityFromEnv(),
});
