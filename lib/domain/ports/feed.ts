/** The change feed's port (API.md 14); lib/db/feed/feed-log.ts implements it. */
import type { FeedEvent, FeedPosition, PlacedEvent } from '../feed';

export interface FeedPage {
  events: PlacedEvent[];
  next: FeedPosition;
}

export interface FeedLog {
  /**
   * Appends each event once: one appended before (a stream batch delivered again) is skipped. The
   * events of one object must come in version order, as the table's stream delivers them. Answers
   * how many were new.
   */
  append(events: readonly FeedEvent[], options?: { deadline?: number }): Promise<number>;
  /** The position after every event appended so far: where a reader that wants only new events starts. */
  head(): Promise<FeedPosition>;
  /** Up to `limit` events after `position`, oldest first, and the position after them. */
  page(position: FeedPosition, limit: number): Promise<FeedPage>;
}

/**
 * Puts events on the event bus, where every consumer of changes reads them (lib/bus/publisher.ts):
 * throws when any was not taken, so that their batch is delivered again.
 */
export type EventPublisher = (events: readonly FeedEvent[]) => Promise<void>;
