/**
 * The change feed's events on the event bus (API.md 14), both ways: the PutEvents entry that puts one
 * on the bus (`source` the service's base URL, `detail-type` the event's type, `detail` the
 * CloudEvent), and the event a rule's SQS target receives in a message's body, read back into the
 * CloudEvent (anything else is refused, so a stray message fails alone and ends in the dead-letter
 * queue). `npm start`'s in-process bus builds its messages with the same function EventBridge's shape
 * is checked against, so the consumers read the same bodies locally as deployed.
 */
import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { DuplicatePairOut } from '../domain/duplicates';
import {
  CHANGE_EVENT_TYPES,
  type CloudEvent,
  cloudEventOf,
  DUPLICATE_DETECTED,
  EVENT_TYPES,
  type FeedEvent,
} from '../domain/feed';

/** What PutEvents takes for one event (the bus named by the caller). */
export const busEntryOf = (event: FeedEvent, baseUrl: string) => {
  const cloudEvent = cloudEventOf(event, baseUrl);
  return {
    Source: baseUrl,
    DetailType: cloudEvent.type,
    Detail: JSON.stringify(cloudEvent),
    Time: new Date(cloudEvent.time),
  };
};

/** An EventBridge event as a rule's target receives it (the fields the consumers read, and the rest). */
export interface DeliveredEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: CloudEvent;
}

/** The event EventBridge delivers for a PutEvents entry: what `npm start`'s bus puts in a message. */
export const deliveredEventOf = (event: FeedEvent, baseUrl: string): DeliveredEvent => {
  const detail = cloudEventOf(event, baseUrl);
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': detail.type,
    source: baseUrl,
    account: '000000000000',
    time: detail.time,
    region: 'local',
    resources: [],
    detail,
  };
};

const cloudEventFields = {
  specversion: z.literal('1.0'),
  id: z.string().regex(/^\d+$/),
  source: z.string(),
  subject: z.string(),
  time: z.string(),
  datacontenttype: z.literal('application/json'),
};

/** A change's event or a duplicate pair's, told apart by `type` (lib/domain/feed.ts `CloudEvent`). */
const cloudEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...cloudEventFields,
    type: z.enum(CHANGE_EVENT_TYPES),
    data: z.looseObject({
      id: z.number().int().positive(),
      version: z.number().int().positive(),
      changed: z.array(z.string()),
      requester: z.number().int().nullable(),
      changeHistory: z.string(),
      superceded_by: z.number().int().positive().optional(),
    }),
  }),
  z.object({
    ...cloudEventFields,
    type: z.literal(DUPLICATE_DETECTED),
    data: z.looseObject({
      id: DuplicatePairOut.shape.id,
      persons: DuplicatePairOut.shape.persons,
      grade: DuplicatePairOut.shape.grade,
      score: DuplicatePairOut.shape.score,
    }),
  }),
]);

const deliveredSchema = z.looseObject({
  'detail-type': z.enum(EVENT_TYPES),
  detail: cloudEventSchema,
});

/** The CloudEvent a queue message carries; throws on a body that is not one of the feed's events. */
export const cloudEventOfMessage = (record: Pick<SQSRecord, 'body'>): CloudEvent => {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    throw new Error('The message body is not JSON');
  }
  const parsed = deliveredSchema.safeParse(body);
  if (!parsed.success)
    throw new Error(`The message is not an event of the change feed: ${parsed.error.message}`);
  if (parsed.data['detail-type'] !== parsed.data.detail.type)
    throw new Error('The message detail-type is not its event type');
  return parsed.data.detail as CloudEvent;
};
