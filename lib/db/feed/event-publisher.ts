/**
 * Puts the change feed's events on an EventBridge bus as well (API.md 14), for AWS consumers that
 * route them with rules: the table's stream hands it each event the feed took (a `FeedEvent` item's
 * INSERT), and it puts them, ten an entry list, with `source` the service, `detail-type` the event's
 * type and `detail` the CloudEvent. At least once: a batch that fails is delivered again, so a rule's
 * target may see an event twice and tells them apart by its `id`.
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { cloudEventOf, type PlacedEvent } from '../../domain/feed';
import { traceClient } from '../../tracer';

/** PutEvents takes at most this many entries a call. */
const PUT_EVENTS_LIMIT = 10;

export interface PublisherConfig {
  /** The bus's name or ARN. */
  busName: string;
  /** The service's base URL: each event's `source`, and the root of its links. */
  baseUrl: string;
  client?: EventBridgeClient;
}

const storedEventOf = (record: DynamoDBRecord): PlacedEvent => {
  const {
    pk: _pk,
    sk: _sk,
    type: _type,
    eventType,
    ...event
  } = unmarshall(record.dynamodb?.NewImage as never);
  return { ...event, type: eventType } as PlacedEvent;
};

export const publishEvents =
  ({ busName, baseUrl, client = traceClient(new EventBridgeClient({})) }: PublisherConfig) =>
  async (event: DynamoDBStreamEvent): Promise<void> => {
    const entries: PutEventsRequestEntry[] = event.Records.map((record) => {
      const cloudEvent = cloudEventOf(storedEventOf(record), baseUrl);
      return {
        EventBusName: busName,
        Source: baseUrl,
        DetailType: cloudEvent.type,
        Detail: JSON.stringify(cloudEvent),
        Time: new Date(cloudEvent.time),
      };
    });
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
