import { laneStoreFromEnv, subscriptionStoreFromEnv } from '../lib/db/from-env';
import { listDeliveriesHandler } from '../lib/http/delivery-handlers';

/** GET /Subscription/{id}/deliveries: every delivery attempt of a webhook subscription (API.md 16) */
export const buildHandler = listDeliveriesHandler;

export const handler = buildHandler({ subscriptions: subscriptionStoreFromEnv(), lanes: laneStoreFromEnv() });
