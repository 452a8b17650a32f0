import { reconcileReaderFromEnv } from '../lib/db/from-env';
import { reconcileVisibilityFromEnv, suggestHandler } from '../lib/http/reconcile-handlers';

/** GET /reconcile/suggest/{kind} and GET /reconcile/properties: OpenRefine's autocomplete. */
export const buildHandler = suggestHandler;

export const handler = buildHandler({
  reader: reconcileReaderFromEnv(),
  visibility: reconcileVisibilityFromEnv(),
});
