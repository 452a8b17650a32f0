/**
 * One run of a subscription's delivery lane (API.md 16): with the lane's lease, the feed is read from
 * the lane's position, each event the subscription takes is POSTed (signed, through the SSRF guard)
 * and the position moves past it only once it is delivered; an event it does not take is passed over.
 * So a subscription's events go out in feed order, none is skipped, and its receiver being slow or
 * down holds up its own lane and no other. A failure stops the run until the retry's time; a 410, an
 * address refused at delivery or retries spent for 24 hours pause the subscription, saying why.
 *
 * Why a cursor into the feed rather than a queue per subscription: the feed is already the ordered,
 * kept log of every event (API.md 14), so the lane is one position, a replay is that position set
 * back, and nothing is lost across a restart or a deploy; a FIFO queue would keep a second copy of
 * every event per subscriber, and could not replay what it had delivered.
 */
import { NotFound } from '../domain/errors';
import { cloudEventOf, type FeedPosition, type PlacedEvent } from '../domain/feed';
import type { FeedLog } from '../domain/ports/feed';
import type { Lane, LaneStore, SecretBox, SubscriptionStore } from '../domain/ports/subscriptions';
import { type StoredSubscription, signingSecrets, takesType } from '../domain/subscriptions';
import {
  type AttemptResult,
  describeResult,
  RETRY_POLICY,
  type RetryPolicy,
  signedHeaders,
  verdictOf,
} from '../domain/webhook-delivery';
import { deliver, type GuardOptions } from './url-guard';

/** Events read from the feed at a time. */
const PAGE = 100;

export interface LaneDeps {
  subscriptions: Pick<SubscriptionStore, 'get' | 'pause'>;
  lanes: LaneStore;
  feed: Pick<FeedLog, 'page'>;
  box: SecretBox;
  /** The events' `source`: the service's base URL, as the feed shows it. */
  baseUrl: string;
  guard?: GuardOptions;
  policy?: RetryPolicy;
  now?: () => number;
  /** Told of each pause the lane makes (the delivering function counts them for its alarm). */
  paused?: (subscriptionId: string, reason: string) => void;
}

export interface RunOptions {
  /** Milliseconds left to run (the invocation's remaining time); a run stops well before none. */
  timeLeft?: () => number;
}

/**
 * How a run ended: nothing more to deliver (`idle`), another runner holds the lane (`busy`), an event
 * waits for its retry (`waiting`, until when), the subscription is paused or gone, or time ran out with
 * more to do (`more`).
 */
export type LaneOutcome =
  | { kind: 'idle' | 'busy' | 'paused' | 'gone' | 'more' }
  | { kind: 'waiting'; until: number };

/** Leave a run with this much time left: one more attempt takes up to 10 s. */
const MARGIN_MS = 15_000;

/** The position past one event: its shard's count at its number. */
const past = (position: FeedPosition, event: PlacedEvent): FeedPosition =>
  position.map((seq, shard) => (shard === event.shard ? event.seq : seq));

/** The secrets that sign now, opened (each sealed one opened once per container). */
const openedSecrets = (box: SecretBox) => {
  const opened = new Map<string, Promise<string>>();
  return (subscription: StoredSubscription, now: number) =>
    Promise.all(
      signingSecrets(subscription, new Date(now)).map(({ sealed }) => {
        let secret = opened.get(sealed);
        if (!secret) {
          secret = box.open(sealed, subscription.id);
          opened.set(sealed, secret);
          secret.catch(() => opened.delete(sealed));
        }
        return secret;
      }),
    );
};

/** A delivery's result as the retry rules read it, `Retry-After` included. */
const resultOf = (delivery: Awaited<ReturnType<typeof deliver>>): AttemptResult => {
  if (delivery.kind !== 'answered') return { kind: delivery.kind, reason: delivery.reason };
  const retryAfter = delivery.headers['retry-after'];
  return {
    kind: 'answered',
    status: delivery.status,
    ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
  };
};

/** Runs lanes: `run(id)` delivers what a subscription's lane holds, as far as it can go now. */
export const laneRunner = (deps: LaneDeps) => {
  const { subscriptions, lanes, feed, baseUrl, guard = {}, policy = RETRY_POLICY } = deps;
  const now = deps.now ?? Date.now;
  const secretsOf = openedSecrets(deps.box);

  /** One attempt of one event: POSTed, recorded, and what it decides. */
  const attempt = async (subscription: StoredSubscription, lane: Lane, event: PlacedEvent) => {
    const startedAt = now();
    const body = JSON.stringify(cloudEventOf(event, baseUrl));
    const headers = signedHeaders(
      String(event.id),
      body,
      await secretsOf(subscription, startedAt),
      new Date(startedAt),
    );
    const delivery = await deliver(subscription.url, { ...guard, body, headers });
    const result = resultOf(delivery);
    const number = lane.attempt + 1;
    const verdict = verdictOf(result, {
      attempt: number,
      firstFailure: lane.first_failure ?? startedAt,
      now: now(),
      policy,
    });
    await lanes.record(subscription.id, {
      event: event.id,
      type: event.type,
      at: new Date(startedAt).toISOString(),
      status: delivery.kind === 'answered' ? delivery.status : null,
      outcome:
        verdict.kind === 'delivered' ? 'delivered' : delivery.kind === 'answered' ? 'failed' : delivery.kind,
      duration_ms: delivery.durationMs,
      attempt: number,
      ...(verdict.kind === 'delivered' ? {} : { error: describeResult(result) }),
    });
    return { verdict, startedAt };
  };

  /** Delivers one page of the feed; the outcome when the run ends here, else the lane to go on with. */
  const deliverPage = async (
    id: string,
    token: string,
    subscription: StoredSubscription,
    start: Lane,
    timeLeft: () => number,
  ): Promise<{ lane: Lane } | { outcome: LaneOutcome }> => {
    const page = await feed.page(start.position, PAGE);
    if (page.events.length === 0) return { outcome: { kind: 'idle' } };
    let lane = start;
    for (const event of page.events) {
      if (!takesType(subscription.types, event.type)) {
        lane = { ...lane, position: past(lane.position, event) };
        continue;
      }
      const { verdict, startedAt } = await attempt(subscription, lane, event);
      if (verdict.kind === 'delivered') lane = { position: past(lane.position, event), attempt: 0 };
      else if (verdict.kind === 'retry')
        lane = {
          ...lane,
          attempt: lane.attempt + 1,
          first_failure: lane.first_failure ?? startedAt,
          next_attempt: verdict.at,
        };
      else {
        await subscriptions.pause(id, verdict.reason, subscription.CoreMetaData.version);
        deps.paused?.(id, verdict.reason);
      }
      // A pause forgets the retries: a resume tries the event afresh.
      if (verdict.kind === 'pause') lane = { position: lane.position, attempt: 0 };
      if (!(await lanes.save(id, token, lane, now()))) return { outcome: { kind: 'busy' } };
      if (verdict.kind === 'retry') return { outcome: { kind: 'waiting', until: verdict.at } };
      if (verdict.kind === 'pause') return { outcome: { kind: 'paused' } };
      if (timeLeft() < MARGIN_MS) return { outcome: { kind: 'more' } };
    }
    if (!(await lanes.save(id, token, lane, now()))) return { outcome: { kind: 'busy' } };
    return { lane };
  };

  const run = async (
    id: string,
    { timeLeft = () => Number.POSITIVE_INFINITY }: RunOptions = {},
  ): Promise<LaneOutcome> => {
    const taken = await lanes.take(id, now());
    if (!taken) return { kind: 'busy' };
    const { token } = taken;
    let lane = taken.lane;
    try {
      for (;;) {
        const subscription = await subscriptions.get(id).catch((error: unknown) => {
          if (error instanceof NotFound) return undefined;
          throw error;
        });
        if (!subscription) return { kind: 'gone' };
        if (subscription.paused) return { kind: 'paused' };
        if (lane.next_attempt !== undefined && lane.next_attempt > now())
          return { kind: 'waiting', until: lane.next_attempt };
        if (timeLeft() < MARGIN_MS) return { kind: 'more' };
        const step = await deliverPage(id, token, subscription, lane, timeLeft);
        if ('outcome' in step) return step.outcome;
        lane = step.lane;
      }
    } finally {
      await lanes.release(id, token);
    }
  };

  return { run };
};
