import { idempotencyStoreFromEnv, subscriptionStoreFromEnv } from '../lib/db/from-env';
import { createSubscriptionHandler } from '../lib/http/subscription-handlers';
import { secretBoxFromEnv } from '../lib/webhooks/secret-box';

/** POST /Subscription: a webhook subscription, its signing secret shown once (API.md 16) */
export const buildHandler = createSubscriptionHandler;

export const handler = buildHandler({
  subscriptions: subscriptionStoreFromEnv(),
  box: secretBoxFromEnv(),
  idempotency: { store: idempotencyStoreFromEnv() },
});
