/**
 * The delivering function's handler (functions/deliver-webhooks.ts): one asynchronous invocation runs
 * one lane (lib/webhooks/lane-invoker.ts starts them) until it is idle, waits for a retry, pauses, or
 * has 15 s of its time left. Whatever it leaves (a retry's time, more than one invocation could
 * deliver) the next sweep, within a minute, starts again. A run that throws (storage failing) is not
 * retried by Lambda, as the sweep starts the lane again anyway: its invocation goes to the function's
 * on-failure destination, a queue that alarms.
 */
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logContext, logger } from '../logger';
import { addMetric, metricsFlush } from '../metrics';
import { tracer } from '../tracer';
import type { LaneOutcome, laneRunner } from './deliver-lane';
import type { LaneInvocation } from './lane-invoker';

export const laneHandler = (runner: ReturnType<typeof laneRunner>) =>
  middy<LaneInvocation, LaneOutcome, Error, Context>()
    .use(logContext<LaneInvocation, LaneOutcome>())
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(metricsFlush())
    .handler(async ({ subscriptionId }, context) => {
      if (typeof subscriptionId !== 'string') throw new TypeError('The invocation names no subscriptionId');
      logger.appendKeys({ subscription_id: subscriptionId });
      const outcome = await runner.run(subscriptionId, {
        timeLeft: () => context.getRemainingTimeInMillis(),
      });
      logger.info('Webhook lane ran', { outcome: outcome.kind });
      return outcome;
    });

/** Counts a pause for the paused-subscriptions alarm, and logs why. */
export const countPause = (subscriptionId: string, reason: string) => {
  addMetric('WebhookSubscriptionsPaused');
  logger.warn('Webhook subscription paused', { subscription_id: subscriptionId, reason });
};
