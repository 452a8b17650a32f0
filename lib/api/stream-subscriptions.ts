/**
 * The functions subscribed to the table's stream, and which records each wants. The CDK stack
 * subscribes them with an event filter saying the same; the local runtime feeds them from DynamoDB
 * Local's stream.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { PERSON_TYPE } from '../domain/person';

/** Which records enrichment wants: new Person items (the filter pattern below says the same). */
export const isPersonInsert = (record: DynamoDBRecord): boolean =>
  record.eventName === 'INSERT' && record.dynamodb?.NewImage?.type?.S === PERSON_TYPE;

export interface StreamSubscription {
  /** The handler module: `functions/<handler>.ts`, exporting `handler`. */
  handler: string;
  /** Which records the function receives. */
  accepts: (record: DynamoDBRecord) => boolean;
  /** The same, as a Lambda event filter pattern (the stack's `FilterCriteria`). */
  filterPattern: Record<string, unknown>;
}

export const STREAM_SUBSCRIPTIONS: readonly StreamSubscription[] = [
  {
    handler: 'enrich-person',
    accepts: isPersonInsert,
    filterPattern: { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: [PERSON_TYPE] } } } },
  },
];
