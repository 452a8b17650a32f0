/**
 * A webhook subscription's deliveries (API.md 16): the attempts it made, and a replay from a feed
 * cursor. Apart from the subscription's own handlers, so that their bundles carry neither the feed's
 * cursor key nor the list's query code.
 */
import { NotFound, ValidationFailed } from '../domain/errors';
import { decodeFeedCursor, type FeedCursorKey } from '../domain/feed';
import { NOT_A_FEED_CURSOR } from '../domain/listing';
import type { LaneStore } from '../domain/ports/subscriptions';
import {
  DELIVERIES_DEFAULTS,
  DeliveriesQuery,
  deliveryPage,
  ReplayBody,
  replayOut,
} from '../domain/subscriptions';
import { feedCursorKeyFromEnv } from '../secrets';
import type { HttpConfig } from './config';
import { readHandler, writeHandler } from './handler';
import { type IdempotencyOptions, keyedWrites } from './idempotency';
import { queryOf } from './request';
import { ok } from './responses';
import { type SubscriptionDeps, subscriptionIdOf } from './subscription-handlers';

/** GET /Subscription/{id}/deliveries: every attempt (event, time, status, duration), newest first. */
export const listDeliveriesHandler = ({
  subscriptions,
  lanes,
}: SubscriptionDeps & { lanes: Pick<LaneStore, 'deliveries'> }) =>
  readHandler().handler(async ({ event }) => {
    const id = subscriptionIdOf(event);
    const { limit = DELIVERIES_DEFAULTS.limit, after } = queryOf(event, DeliveriesQuery);
    // A subscription that is not there is 404, not an empty list.
    await subscriptions.get(id);
    const page = await lanes.deliveries(id, limit, after);
    return ok(deliveryPage(page.deliveries, page.next));
  });

/**
 * POST /Subscription/{id}/replay: its lane goes back to the position a feed cursor holds (a `next` of
 * `GET /events`), and delivers again from there, its retries forgotten; 202, as the deliveries follow.
 */
export const replaySubscriptionHandler = ({
  lanes,
  cursorKey = feedCursorKeyFromEnv(),
  idempotency,
  config,
}: {
  lanes: Pick<LaneStore, 'replay'>;
  cursorKey?: () => Promise<FeedCursorKey>;
  idempotency?: IdempotencyOptions;
  config?: HttpConfig;
}) =>
  writeHandler(ReplayBody, 'update', { once: keyedWrites(idempotency), config }).handler(
    async ({ event, body, requester, write, links }) => {
      const id = subscriptionIdOf(event);
      const position = decodeFeedCursor(body.after, await cursorKey());
      if (!position) throw new ValidationFailed([{ path: '/after', message: NOT_A_FEED_CURSOR }]);
      if (!(await lanes.replay(id, position, requester, { ruling: write.ruling })))
        throw new NotFound('Subscription', id);
      return { status: 202, body: replayOut(id, body.after, links) };
    },
  );
