/**
 * `npm start`'s webhook lanes (API.md 16): each subscription's lane run in process, one run of a lane
 * at a time and any number of lanes at once, so a slow receiver holds up only its own. A lane woken
 * while it runs runs again after; one that waits for a retry is started again at its time; a sweep
 * every `sweepMs` starts every lane that is not paused (a resume, a restart on a data folder whose
 * lanes stopped mid-way, a lease left by a run that died).
 */
import { WAKE_WEBHOOKS } from '../api/bus-subscriptions';
import { feedLogFromEnv, laneStoreFromEnv, subscriptionStoreFromEnv } from '../db/from-env';
import { type LaneOutcome, laneRunner } from '../webhooks/deliver-lane';
import { secretBoxFromEnv } from '../webhooks/secret-box';
import { allowsLoopback } from '../webhooks/url-guard';
import { type LaneStarter, laneWaker, retryPolicyFromEnv, wakeOnMessages } from '../webhooks/wake-lanes';
import type { LocalBusConsumer } from './bus';

interface LocalLane {
  running?: Promise<void>;
  again: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

export interface LocalLanesOptions {
  run: (subscriptionId: string) => Promise<LaneOutcome>;
  sweep: (start: LaneStarter) => Promise<unknown>;
  sweepMs?: number;
  log?: (message: string, details?: unknown) => void;
}

export const startLocalLanes = ({ run, sweep, sweepMs = 2_000, log }: LocalLanesOptions) => {
  const lanes = new Map<string, LocalLane>();
  let stopped = false;

  const runOnce = async (id: string) => {
    try {
      return await run(id);
    } catch (error) {
      log?.(`webhook lane ${id} failed; the sweep starts it again`, error);
      return { kind: 'idle' } as const;
    }
  };

  const start: LaneStarter = async (id) => {
    if (stopped) return;
    const lane = lanes.get(id) ?? { again: false };
    lanes.set(id, lane);
    if (lane.running) {
      lane.again = true;
      return;
    }
    clearTimeout(lane.timer);
    lane.running = (async () => {
      do {
        lane.again = false;
        const outcome = await runOnce(id);
        if (outcome.kind === 'more') lane.again = true;
        if (outcome.kind === 'waiting' && !stopped) {
          clearTimeout(lane.timer);
          lane.timer = setTimeout(() => void start(id), Math.max(0, outcome.until - Date.now()));
        }
      } while (lane.again && !stopped);
    })().finally(() => {
      lane.running = undefined;
    });
  };

  const sweeping = setInterval(() => {
    sweep(start).catch((error: unknown) => log?.('webhook sweep failed', error));
  }, sweepMs);
  // The first sweep at once: lanes a stop left mid-way go on as soon as the server is up.
  void sweep(start).catch((error: unknown) => log?.('webhook sweep failed', error));

  return {
    start,
    async stop() {
      stopped = true;
      clearInterval(sweeping);
      for (const lane of lanes.values()) clearTimeout(lane.timer);
      await Promise.all([...lanes.values()].map((lane) => lane.running));
    },
  };
};

/**
 * Webhooks in `npm start`: the lanes, run in process on the table `npm start` uses (deployed, each run
 * is an invocation of functions/deliver-webhooks.ts), and the consumer of the local bus that wakes them
 * (`wake-webhooks` of lib/api/bus-subscriptions.ts, as the stack's rule and queue feed it). `WEBHOOKS_SWEEP_MS`
 * sets how often every lane is started (2 s by default); `WEBHOOKS_RETRY_BASE_MS`, `..._MAX_MS` and
 * `..._FOR_MS` shorten the retries, for tests that fail receivers on purpose.
 */
export const startWebhooks = ({ baseUrl, log }: { baseUrl: string; log?: LocalLanesOptions['log'] }) => {
  const subscriptions = subscriptionStoreFromEnv();
  const runner = laneRunner({
    subscriptions,
    lanes: laneStoreFromEnv(),
    feed: feedLogFromEnv(),
    box: secretBoxFromEnv(),
    baseUrl,
    guard: { allowLoopback: allowsLoopback() },
    policy: retryPolicyFromEnv(),
  });
  let waker: ReturnType<typeof laneWaker> | undefined;
  const sweepMs =
    Number(process.env.WEBHOOKS_SWEEP_MS) > 0 ? Number(process.env.WEBHOOKS_SWEEP_MS) : undefined;
  const lanes = startLocalLanes({
    run: (id) => runner.run(id),
    sweep: async (start) => {
      waker ??= laneWaker(subscriptions, start, { maxAgeMs: 0 });
      return waker.sweep();
    },
    ...(sweepMs ? { sweepMs } : {}),
    ...(log ? { log } : {}),
  });
  waker ??= laneWaker(subscriptions, lanes.start, { maxAgeMs: 0 });
  const { handler: name, eventTypes, batchSize, maxReceiveCount } = WAKE_WEBHOOKS;
  const consumer: LocalBusConsumer = {
    name,
    eventTypes,
    batchSize,
    maxReceiveCount,
    handler: wakeOnMessages(waker),
  };
  return { consumer, stop: () => lanes.stop() };
};
