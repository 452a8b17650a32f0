/**
 * The functions subscribed to the table's stream, and which records each wants. The CDK stack
 * subscribes them with these filters; the local runtime feeds them from DynamoDB Local's stream.
 */
import type { DynamoDBRecord } from 'aws-lambda';

export interface StreamSubscription {
  /** The handler module: `functions/<handler>.ts`, exporting `handler`. */
  handler: string;
  /** Which records the function receives (the stack's event filter says the same). */
  accepts: (record: DynamoDBRecord) => boolean;
}

export const STREAM_SUBSCRIPTIONS: readonly StreamSubscription[] = [];
