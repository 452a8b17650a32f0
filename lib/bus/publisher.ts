/**
 * Puts the change feed's events on the event bus (API.md 14), for every consumer that reacts to a
 * change (lib/api/bus-subscriptions.ts): deployed, the stack's EventBridge bus, ten entries a
 * PutEvents call; under `npm start`, its in-process bus (lib/local/bus.ts), which routes them to the
 * same consumers through queues of their own. The feed's appender is the one publisher, once its
 * batch is appended: at least once (a batch delivered again is put again), so a consumer tells
 * repeats apart by the event's `id`.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { EventPublisher } from '../domain/ports/feed';
import { traceClient } from '../tracer';
import { busEntryOf } from './envelope';

/** PutEvents takes at most this many entries a call. */
const PUT_EVENTS_LIMIT = 10;

export interface EventBridgeConfig {
  /** The bus's name or ARN. */
  busName: string;
  /** The service's base URL: each event's `source`, and the root of its links. */
  baseUrl: string;
  client?: EventBridgeClient;
}

export const eventBridgePublisher =
  ({
    busName,
    baseUrl,
    client = traceClient(new EventBridgeClient({})),
  }: EventBridgeConfig): EventPublisher =>
  async (events) => {
    const entries = events.map((event) => ({ EventBusName: busName, ...busEntryOf(event, baseUrl) }));
    for (let start = 0; start < entries.length; start += PUT_EVENTS_LIMIT) {
      const { FailedEntryCount = 0, Entries = [] } = await client.send(
        new PutEventsCommand({ Entries: entries.slice(start, start + PUT_EVENTS_LIMIT) }),
      );
      // A partial failure (throttled, say) fails the batch: it comes again, and events already put
      // are put twice, which a consumer tells apart by `id`.
      if (FailedEntryCount > 0)
        throw new Error(
          `EventBridge refused ${FailedEntryCount} events: ${Entries.flatMap(({ ErrorCode }) => ErrorCode ?? []).join(', ')}`,
        );
    }
  };

/** `npm start`'s in-process bus, while it runs (lib/local/service.ts sets it). */
let localBus: EventPublisher | undefined;
export const useLocalBus = (publish: EventPublisher | undefined) => {
  localBus = publish;
};

/** The events' `source` a deployed function is configured with: the service's base URL (`PUBLIC_BASE_URL`). */
export const eventSourceFromEnv = (env: NodeJS.ProcessEnv = process.env) => env.PUBLIC_BASE_URL ?? '';

/**
 * The bus of this container: the stack's (`EVENT_BUS_NAME`, with `PUBLIC_BASE_URL` the events'
 * source) or, without one, `npm start`'s; with neither, publishing fails, so no event is dropped.
 */
export const publisherFromEnv = (): EventPublisher => {
  const busName = process.env.EVENT_BUS_NAME;
  if (busName) return eventBridgePublisher({ busName, baseUrl: eventSourceFromEnv() });
  return async (events) => {
    if (!localBus) throw new Error('No event bus: EVENT_BUS_NAME is not set and no local bus runs');
    await localBus(events);
  };
};
