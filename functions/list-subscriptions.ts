import { subscriptionStoreFromEnv } from '../lib/db/from-env';
import { listSubscriptionsHandler } from '../lib/http/subscription-handlers';

/** GET /Subscription: every webhook subscription (API.md 16) */
export const buildHandler = listSubscriptionsHandler;

export const handler = buildHandler({ subscriptions: subscriptionStoreFromEnv() });
