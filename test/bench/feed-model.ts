/**
 * The change feed section's settings and keys.ts's model of a page (feed.ts measures, report.ts
 * checks): pure, so the report imports no handler.
 */
import { feedPageRcu } from '../../lib/capacity/operations';
import { FEED_EVENT_BYTES } from '../../lib/db/table/keys';
import { FEED_SHARDS } from '../../lib/domain/feed';

/** The poller's interval, as `npm start` runs it (lib/local/service.ts takes streams.ts's default). */
export const POLLER_INTERVAL_MS = 250;
/** How often a reader waiting for an event asks again after a page without it. */
export const POLL_MS = 25;
/** API.md 14: a change is in the feed within 5 s of its write's answer when the system is idle. */
export const IDLE_LAG_LIMIT_MS = 5_000;
/** A write whose event is not readable after this long stops the bench: the feed is stuck. */
export const GIVE_UP_MS = 120_000;

/**
 * keys.ts's model of a page (search "The change feed"): one BatchGetItem of the `FEED_SHARDS` heads,
 * eventually consistent (half a unit each), and at most one Query per shard for its share of the page,
 * of events of about 0.3 KB, eventually consistent: half a unit per started 4 KB of each Query.
 */
export const PAGE_MODEL = {
  maxCalls: 1 + FEED_SHARDS,
  eventBytes: FEED_EVENT_BYTES,
  headsRcu: FEED_SHARDS * 0.5,
} as const;

/** keys.ts's "about L / 26 read units": L events of ~0.3 KB, half a unit per 4 KB, summed. */
export const modelEventsRcu = (events: number) => (events * PAGE_MODEL.eventBytes) / 4096 / 2;

/**
 * The read units the model allows a page whose Queries asked for `shares` events each: the heads, and
 * each Query's share of ~0.3 KB events rounded up to the half unit it is charged (the model's L / 26
 * summed before rounding; each Query is charged on its own). The capacity model's own page price.
 */
export const modelPageRcu = (shares: readonly number[]) => feedPageRcu(shares);
