import { batchHandler } from '../lib/batch-handler';
import { subscriptionStoreFromEnv } from '../lib/db/from-env';
import { invokedLanesFromEnv } from '../lib/webhooks/lane-invoker';
import { laneWaker, wakeOnMessages } from '../lib/webhooks/wake-lanes';

/**
 * SQS, fed by the bus's events and by a schedule every minute: starts the webhook lanes of the
 * subscriptions that take them, or every lane on the schedule's sweep (API.md 16).
 */
export const handler = batchHandler(
  wakeOnMessages(laneWaker(subscriptionStoreFromEnv(), invokedLanesFromEnv())),
);
