import { idempotencyStoreFromEnv, subscriptionStoreFromEnv } from '../lib/db/from-env';
import { updateSubscriptionHandler } from '../lib/http/subscription-handlers';

/** PATCH /Subscription/{id}: its URL, types, description, or paused (API.md 16) */
export const buildHandler = updateSubscriptionHandler;

export const handler = buildHandler({
  subscriptions: subscriptionStoreFromEnv(),
  idempotency: { store: idempotencyStoreFromEnv() },
});
