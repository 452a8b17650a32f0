import { idempotencyStoreFromEnv, subscriptionStoreFromEnv } from '../lib/db/from-env';
import { rotateSubscriptionHandler } from '../lib/http/subscription-handlers';
import { secretBoxFromEnv } from '../lib/webhooks/secret-box';

/** POST /Subscription/{id}/rotate: a new signing secret; the old one signs on for 24 hours (API.md 16) */
export const buildHandler = rotateSubscriptionHandler;

export const handler = buildHandler({
  subscriptions: subscriptionStoreFromEnv(),
  box: secretBoxFromEnv(),
  idempotency: { store: idempotencyStoreFromEnv() },
});
