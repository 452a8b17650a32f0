/**
 * The functions subscribed to the table's stream, and which records each wants. The CDK stack
 * subscribes them with an event filter saying the same; the local runtime feeds them from DynamoDB
 * Local's stream. Beside the key design, as a filter on keys reads the prefixes keys.ts spells.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { CHANGE_HISTORY_TYPE } from '../../domain/change-history';
import { FEED_EVENT_TYPE } from '../../domain/feed';
import { PERSON_TYPE } from '../../domain/person';
import { POSTING_PARTITION_PREFIX } from './keys';

/** Which records enrichment wants: new Person items (the filter pattern below says the same). */
export const isPersonInsert = (record: DynamoDBRecord): boolean =>
  record.eventName === 'INSERT' && record.dynamodb?.NewImage?.type?.S === PERSON_TYPE;

/** Which records the change feed wants: new ChangeHistory entries, one per stored change (API.md 14). */
export const isChangeHistoryInsert = (record: DynamoDBRecord): boolean =>
  record.eventName === 'INSERT' && record.dynamodb?.NewImage?.type?.S === CHANGE_HISTORY_TYPE;

/** Which records the event bus wants: the events the change feed took (API.md 14). */
export const isFeedEventInsert = (record: DynamoDBRecord): boolean =>
  record.eventName === 'INSERT' && record.dynamodb?.NewImage?.type?.S === FEED_EVENT_TYPE;

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
   * other work, which only enrichment's tests and the deployed stack need); `always`, or `never` for
   * what only a deployed stack has (an event bus).
   */
  locally?: 'always' | 'never';
}

export const STREAM_SUBSCRIPTIONS: readonly StreamSubscription[] = [
  {
    handler: 'enrich-person',
    accepts: isPersonInsert,
    filterPattern: { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: [PERSON_TYPE] } } } },
  },
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
    accepts: isChangeHistoryInsert,
    filterPattern: { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: [CHANGE_HISTORY_TYPE] } } } },
    // A batch's events of one shard go in one transaction (up to 49); gathered for at most a second,
    // well inside the feed's 5 s (API.md 14).
    batching: { size: 100, windowSeconds: 1 },
    locally: 'always',
  },
  {
    handler: 'publish-events',
    accepts: isFeedEventInsert,
    filterPattern: { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: [FEED_EVENT_TYPE] } } } },
    // Ten events a PutEvents call; gathered for at most a second, as the feed's appends are.
    batching: { size: 100, windowSeconds: 1 },
    locally: 'never',
  },
];
