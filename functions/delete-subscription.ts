import { subscriptionStoreFromEnv } from '../lib/db/from-env';
import { deleteSubscriptionHandler } from '../lib/http/subscription-handlers';

/** DELETE /Subscription/{id}: nothing more is delivered to it (API.md 16) */
export const buildHandler = deleteSubscriptionHandler;

export const handler = buildHandler({ subscriptions: subscriptionStoreFromEnv() });
