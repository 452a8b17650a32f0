/**
 * What starts delivery lanes (API.md 16): the change feed's events on the bus wake the lanes of the
 * subscriptions that take them, and a sweep every so often starts every lane that is not paused (a
 * retry's time come, a resume, a wake missed while another runner held the lane, a restart). A lane
 * started twice runs once: it takes its lease first (lib/webhooks/deliver-lane.ts).
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { SubscriptionStore } from '../domain/ports/subscriptions';
import { takesType } from '../domain/subscriptions';
import { RETRY_POLICY, type RetryPolicy } from '../domain/webhook-delivery';
import { cachedValue } from '../secrets';

/** Starts a subscription's lane: deployed an asynchronous invocation, locally a run in process. */
export type LaneStarter = (subscriptionId: string) => Promise<void>;

/** How long a container trusts its list of subscriptions: a new one is woken at most this late (the sweep catches it). */
const LIST_MAX_AGE_MS = 10_000;

/**
 * Wakes and sweeps lanes from a list of subscriptions read at most every `maxAgeMs` (a container
 * deployed asks once per 10 s; `npm start`, where reading it costs nothing, each time).
 */
export const laneWaker = (
  subscriptions: Pick<SubscriptionStore, 'list'>,
  start: LaneStarter,
  { maxAgeMs = LIST_MAX_AGE_MS, now = Date.now }: { maxAgeMs?: number; now?: () => number } = {},
) => {
  const list = cachedValue(() => subscriptions.list(), maxAgeMs, now);
  const live = async () => (await list()).filter((subscription) => !subscription.paused);
  return {
    /** The lanes of the subscriptions that take any of these event types. */
    async wake(types: readonly string[]) {
      const woken = (await live()).filter((subscription) =>
        types.some((type) => takesType(subscription.types, type)),
      );
      await Promise.all(woken.map((subscription) => start(subscription.id)));
      return woken.length;
    },
    /** Every lane that is not paused. */
    async sweep() {
      const all = await live();
      await Promise.all(all.map((subscription) => start(subscription.id)));
      return all.length;
    },
  };
};

/**
 * The `detail-type` of EventBridge's scheduled events: the stack's schedule puts one on the waking
 * queue every minute, and it sweeps.
 */
export const SWEEP_DETAIL_TYPE = 'Scheduled Event';

/**
 * The waking queue's consumer (the stack's `wake-webhooks`, `npm start`'s in-process one): a batch of
 * the bus's events wakes the lanes that take their types, and a batch that holds the schedule's event
 * sweeps instead (which starts every lane those would). A failure fails the batch, which comes again:
 * a lane woken twice runs once.
 */
export const wakeOnMessages =
  (waker: ReturnType<typeof laneWaker>) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const types = event.Records.map((record) => JSON.parse(record.body)['detail-type'] as string);
    if (types.includes(SWEEP_DETAIL_TYPE)) await waker.sweep();
    else await waker.wake(types);
    return { batchItemFailures: [] };
  };

/** The retry policy, shortened by `npm start`'s variables for tests that fail receivers on purpose. */
export const retryPolicyFromEnv = (env: NodeJS.ProcessEnv = process.env): RetryPolicy => {
  const of = (name: string, fallback: number) => {
    const value = Number(env[name]);
    return env[name] !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
  };
  return {
    baseMs: of('WEBHOOKS_RETRY_BASE_MS', RETRY_POLICY.baseMs),
    maxMs: of('WEBHOOKS_RETRY_MAX_MS', RETRY_POLICY.maxMs),
    retryForMs: of('WEBHOOKS_RETRY_FOR_MS', RETRY_POLICY.retryForMs),
  };
};
