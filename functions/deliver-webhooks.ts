import { eventSourceFromEnv } from '../lib/bus/publisher';
import { feedLogFromEnv, laneStoreFromEnv, subscriptionStoreFromEnv } from '../lib/db/from-env';
import { laneRunner } from '../lib/webhooks/deliver-lane';
import { countPause, laneHandler } from '../lib/webhooks/lane-handler';
import { secretBoxFromEnv } from '../lib/webhooks/secret-box';
import { allowsLoopback } from '../lib/webhooks/url-guard';

/** Invoked asynchronously by wake-webhooks, one subscription a time: delivers its lane (API.md 16). */
export const handler = laneHandler(
  laneRunner({
    subscriptions: subscriptionStoreFromEnv(),
    lanes: laneStoreFromEnv(),
    feed: feedLogFromEnv(),
    box: secretBoxFromEnv(),
    baseUrl: eventSourceFromEnv(),
    guard: { allowLoopback: allowsLoopback() },
    paused: countPause,
  }),
);
