/**
 * The consumers of the change feed's events on the event bus (API.md 14), as data: each its own
 * EventBridge rule on the events' `detail-type`, its own SQS queue with a dead-letter queue, and its
 * function reading the queue with partial batch responses. The stack builds them from this list (one
 * construct per consumer, infra/bus-consumer.ts), `npm start`'s in-process bus routes the feed's
 * events to the same functions with the same filters (lib/local/bus.ts), and the capacity model
 * prices them. The table's stream keeps two readers whatever this list grows to
 * (lib/db/table/stream-subscriptions.ts).
 *
 * EventBridge and standard SQS deliver at least once and in no set order: each consumer says why
 * that is safe for it.
 */

import { DETECTOR_EVENTS } from '../domain/duplicates';
import { EVENT_TYPES, type EventType } from '../domain/feed';

export interface BusSubscription {
  /** The consumer module: `functions/<handler>.ts`, exporting an SQS `handler`. */
  handler: string;
  /** The events it is sent: its rule's `detail-type` filter. */
  eventTypes: readonly EventType[];
  /** Why an event delivered twice, or after a later one, does no harm (one line). */
  deliverySafety: string;
  /** Messages per invocation at most. */
  batchSize: number;
  /** Receives of a message before it goes to the dead-letter queue. */
  maxReceiveCount: number;
  /**
   * Whether `npm start` runs it: by default with enrichment (`ENRICHMENT=off` stops the work only
   * enrichment's tests and the deployed stack need), `always`, or `apart`: always, its own way
   * (the webhook lanes run in process, lib/local/webhook-lanes.ts, not as invocations of a function).
   */
  locally?: 'always' | 'apart';
}

/**
 * The consumer that wakes the webhook lanes (API.md 16) of the subscriptions that take an event's
 * type; deployed, the stack's schedule also puts a sweep on its queue every minute
 * (lib/webhooks/wake-lanes.ts).
 */
export const WAKE_WEBHOOKS: BusSubscription = {
  handler: 'wake-webhooks',
  eventTypes: EVENT_TYPES,
  deliverySafety:
    'It only starts the lanes, which deliver from the feed at their own positions: a second wake, or one after a later event, starts a lane that finds nothing new or is already running',
  // A wake reads the subscriptions (cached) and starts lanes: cheap, so the largest batch.
  batchSize: 10,
  maxReceiveCount: 5,
  locally: 'apart',
};

export const BUS_SUBSCRIPTIONS: readonly BusSubscription[] = [
  {
    handler: 'enrich-person',
    eventTypes: ['person.created'],
    deliverySafety:
      'It reads the person as it is now and writes only on the version it read and where no enrichment mark is: a second delivery, or one after later changes, writes nothing twice',
    // Each message may wait on the provider: a few at a time, as the stream gave them.
    batchSize: 5,
    maxReceiveCount: 5,
  },
  {
    handler: 'finish-erasure',
    eventTypes: ['person.erased'],
    deliverySafety:
      'It acts only while the tombstone keeps its mark, and every step of the chain writes the same again: a second delivery, or one after the chain finished, writes nothing',
    // An erasure's chain is a few transactions; a message that runs out of time comes again.
    batchSize: 10,
    maxReceiveCount: 10,
    locally: 'always',
  },
  {
    handler: 'detect-duplicates',
    eventTypes: [...DETECTOR_EVENTS],
    deliverySafety:
      'It checks the person as it is now, whichever event brought it, and writes a pair only where it changed, on the revision it read: a second delivery, or one after later changes, writes nothing twice',
    // A check is a few reads and a write per changed pair: a batch of them fits an invocation.
    batchSize: 10,
    maxReceiveCount: 5,
    locally: 'always',
  },
  WAKE_WEBHOOKS,
];

/** The subscription of a consumer, by handler name. */
export const busSubscriptionOf = (handler: string): BusSubscription | undefined =>
  BUS_SUBSCRIPTIONS.find((subscription) => subscription.handler === handler);
