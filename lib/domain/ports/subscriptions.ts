/** Webhook subscriptions' ports (API.md 16): their store (lib/db/webhooks/) and the box their secrets are kept in. */
import type { FeedPosition } from '../feed';
import type { Preconditions } from '../preconditions';
import type { RequesterRuling } from '../principal';
import type { StoredSubscription } from '../subscriptions';

/**
 * Seals a subscription's signing secret before it is stored, and opens it to sign: KMS deployed, a
 * key of the data folder locally (lib/webhooks/secret-box.ts). `context` is the subscription's id: a
 * sealed secret opens only for the subscription it was sealed for.
 */
export interface SecretBox {
  seal(secret: string, context: string): Promise<string>;
  open(sealed: string, context: string): Promise<string>;
}

/** Who writes, as a person write is authorized (API.md 16, 9.1): the requester, checked in the write. */
export interface SubscriptionWriteOptions {
  ruling?: RequesterRuling;
  conditions?: Preconditions;
}

export interface SubscriptionStore {
  /** Every subscription, oldest first: they are few (a service's consumers, not its persons). */
  list(): Promise<StoredSubscription[]>;
  /** One subscription; NotFound when there is none. */
  get(id: string): Promise<StoredSubscription>;
  /**
   * Stores a new subscription, with its requester (`created_by`) checked as a person write's; a
   * requester merged into another writes as its survivor (API.md 13). Answers what is stored.
   */
  create(subscription: StoredSubscription, options?: SubscriptionWriteOptions): Promise<StoredSubscription>;
  /**
   * Stores `change(stored)` over the version it was made from (read again when another write landed
   * first); `change` answers null when nothing changes, and nothing is written. Answers what is stored.
   */
  update(
    id: string,
    requester: number,
    change: (
      stored: StoredSubscription,
      requester: number,
    ) => Promise<StoredSubscription | null> | StoredSubscription | null,
    options?: SubscriptionWriteOptions,
  ): Promise<StoredSubscription>;
  /**
   * Pauses a subscription for the service, saying why, when it is still at `version` (a change made
   * meanwhile, a resume or a new URL, wins); false when it was not.
   */
  pause(id: string, reason: string, version: number): Promise<boolean>;
  /** Deletes a subscription; NotFound when there is none. */
  remove(id: string, requester: number, options?: SubscriptionWriteOptions): Promise<void>;
}

/** Where a subscription's deliveries stand (API.md 16): the feed position delivered up to, and retries. */
export interface Lane {
  position: FeedPosition;
  /** Failed attempts of the event at `position`. */
  attempt: number;
  /** When its first attempt failed (epoch ms). */
  first_failure?: number;
  /** When it may be tried again (epoch ms). */
  next_attempt?: number;
}

/** One delivery attempt, as `GET /Subscription/{id}/deliveries` lists it. */
export interface DeliveryRecord {
  /** The event's id (its ChangeHistory entry's, or a duplicate pair's). */
  event: number;
  type: string;
  /** When the attempt started. */
  at: string;
  /** The receiver's HTTP status; null when it gave none. */
  status: number | null;
  outcome: 'delivered' | 'failed' | 'timeout' | 'refused' | 'forbidden';
  duration_ms: number;
  /** Its number for this event, from 1. */
  attempt: number;
  /** What went wrong, when anything did. */
  error?: string;
}

export interface DeliveryPage {
  deliveries: DeliveryRecord[];
  /** Where the next page starts; null after the last. */
  next: string | null;
}

/** The lanes and their attempts (lib/db/webhooks/lane-store.ts). */
export interface LaneStore {
  get(id: string): Promise<Lane | undefined>;
  /** The lane with a lease of `token` when no one else holds it; undefined when someone does. */
  take(id: string, now: number): Promise<{ lane: Lane; token: string } | undefined>;
  /** Stores the lane and renews the lease; false when the lease was lost (a replay took the lane). */
  save(id: string, token: string, lane: Lane, now: number): Promise<boolean>;
  release(id: string, token: string): Promise<void>;
  /**
   * Delivers again from `position`, retries forgotten, for `requester` (checked as a person write's);
   * false when the subscription has no lane.
   */
  replay(
    id: string,
    position: FeedPosition,
    requester: number,
    options?: Pick<SubscriptionWriteOptions, 'ruling'>,
  ): Promise<boolean>;
  record(id: string, record: DeliveryRecord): Promise<void>;
  /** Attempts newest first, `limit` at most, after the `next` of an earlier page. */
  deliveries(id: string, limit: number, after?: string): Promise<DeliveryPage>;
}
