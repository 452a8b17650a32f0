/**
 * The functions subscribed to the table's stream, and which records each wants. The CDK stack
 * subscribes them with an event filter saying the same; the local runtime feeds them from DynamoDB
 * Local's stream. Beside the key design, as a filter on keys reads the prefixes keys.ts spells.
 *
 * Two readers, and no more: DynamoDB Streams throttles a shard read by more than two processes at
 * once. They are what must see items: the posting counts (posting records) and the feed's appender
 * (ChangeHistory entries and new duplicate pairs), which puts each event on the bus; everything that
 * reacts to a change reads the bus through a queue of its own (lib/api/bus-subscriptions.ts).
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { CHANGE_HISTORY_TYPE } from '../../domain/change-history';
import { DUPLICATE_PAIR_TYPE } from '../../domain/duplicates';
import { POSTING_PARTITION_PREFIX } from './keys';

/**
 * The item types whose INSERT is an event of the change feed: a ChangeHistory entry (one per stored
 * change, API.md 14) and a duplicate pair found for the first time (API.md 12.1). A pair is inserted
 * once and only updated afterwards, so its MODIFY (a new score, a decision) is no event.
 */
export const FEED_SOURCE_TYPES = [CHANGE_HISTORY_TYPE, DUPLICATE_PAIR_TYPE] as const;

/** Which records the change feed wants: a new ChangeHistory entry or a new duplicate pair. */
export const isFeedSourceInsert = (record: DynamoDBRecord): boolean =>
  record.eventName === 'INSERT' &&
  (FEED_SOURCE_TYPES as readonly string[]).includes(record.dynamodb?.NewImage?.type?.S ?? '');

/** Which records the posting counts want: a posting stored or deleted (a MODIFY changes no count). */
export const isPostingInsertOrRemove = (record: DynamoDBRecord): boolean =>
  (record.eventName === 'INSERT' || record.eventName === 'REMOVE') &&
  record.dynamodb?.Keys?.pk?.S?.startsWith(POSTING_PARTITION_PREFIX) === true;

export interface StreamSubscription {
  /** The handler module: `functions/<handler>.ts`, exporting `handler`. */
  handler: string;
  /** Which records the function receives. */
  accepts: (record: DynamoDBRecord) => boolean;
  /** The same, as a Lambda event filter pattern (the stack's `FilterCriteria`). */
  filterPattern: Record<string, unknown>;
  /**
   * Records per invocation and how long Lambda may gather them, where not the stack's default (a few,
   * at once): the counts sum a batch per gram, so a larger batch costs fewer writes.
   */
  batching?: { size: number; windowSeconds: number };
  /**
   * Whether `npm start` runs it: by default with enrichment (`ENRICHMENT=off` stops the stream's
   * other work, which only enrichment's tests and the deployed stack need), or `always`.
   */
  locally?: 'always';
}

export const STREAM_SUBSCRIPTIONS: readonly StreamSubscription[] = [
  {
    handler: 'count-postings',
    accepts: isPostingInsertOrRemove,
    filterPattern: {
      eventName: ['INSERT', 'REMOVE'],
      dynamodb: { Keys: { pk: { S: [{ prefix: POSTING_PARTITION_PREFIX }] } } },
    },
    batching: { size: 1_000, windowSeconds: 10 },
  },
  {
    handler: 'append-events',
    accepts: isFeedSourceInsert,
    filterPattern: { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: [...FEED_SOURCE_TYPES] } } } },
    // A batch's events of one shard go in one transaction (up to 49); gathered for at most a second,
    // well inside the feed's 5 s (API.md 14).
    batching: { size: 100, windowSeconds: 1 },
    locally: 'always',
  },
];
