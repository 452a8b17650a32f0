import { idempotencyStoreFromEnv, laneStoreFromEnv } from '../lib/db/from-env';
import { replaySubscriptionHandler } from '../lib/http/delivery-handlers';
import { feedCursorKeyFromEnv } from '../lib/secrets';

/** POST /Subscription/{id}/replay: deliver again after a feed cursor (API.md 16) */
export const buildHandler = replaySubscriptionHandler;

export const handler = buildHandler({
  lanes: laneStoreFromEnv(),
  cursorKey: feedCursorKeyFromEnv(),
  idempotency: { store: idempotencyStoreFromEnv() },
});
