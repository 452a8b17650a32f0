import { subscriptionStoreFromEnv } from '../lib/db/from-env';
import { getSubscriptionHandler } from '../lib/http/subscription-handlers';

/** GET /Subscription/{id}: one webhook subscription (API.md 16) */
export const buildHandler = getSubscriptionHandler;

export const handler = buildHandler({ subscriptions: subscriptionStoreFromEnv() });
