/**
 * The change feed's appender (API.md 14): the table's stream hands it the ChangeHistory entries as
 * they are committed, per object in commit order, and the duplicate pairs as they are first found
 * (API.md 12.1), and it appends each one's event to the feed (feed-log.ts) once, however often a batch
 * is delivered, then puts the batch's events on the event bus (the port's `EventPublisher`,
 * lib/bus/publisher.ts), the one fan-out every consumer of changes reads through a queue of its own.
 * Deployed it is a Lambda on the stream; `npm start`'s stream poller feeds it the same records.
 * An event is put on the bus only once appended, and again when its batch comes again (at least once).
 *
 * A record that cannot be read as an entry or a pair is reported as the batch's failure (`batchItemFailures`):
 * the records before it are appended, it and those after are delivered again, and after the event
 * source's retries it goes to the dead-letter queue (with its alarm), so it never holds its shard up
 * for ever. A storage failure throws: the batch comes again and appends only what it had not.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { CHANGE_TYPES, type ChangeEntry, RESOURCE_TYPES } from '../../domain/change-history';
import { DUPLICATE_PAIR_TYPE, DuplicatePairOut, personsOfPairId } from '../../domain/duplicates';
import { type DuplicateEvent, duplicateEventOf, type FeedEvent, feedEventOf } from '../../domain/feed';
import type { MergedPerson } from '../../domain/merge';
import type { EventPublisher } from '../../domain/ports/feed';
import { positiveId } from '../../domain/schemas';
import { logger as defaultLogger } from '../../logger';
import { retryDeadline } from '../../timeouts';
import { decodeSnapshot } from '../history/snapshots';
import type { Storage } from '../table/client';
import { feedLog } from './feed-log';

const ACTIONS = Object.keys(CHANGE_TYPES);

/** A snapshot as the stream hands it over: bytes from the SDK, base64 in a Lambda event's JSON. */
const bytesOf = (value: unknown): Uint8Array | undefined =>
  value instanceof Uint8Array ? value : typeof value === 'string' ? Buffer.from(value, 'base64') : undefined;

/**
 * What the feed reads of a duplicate pair's item: what its event carries, each as the pair's own
 * schema says (API.md 12.1), the id agreeing with the persons, and the event id the detector took.
 */
const PairItem = DuplicatePairOut.pick({ id: true, persons: true, grade: true, score: true, detected: true })
  .extend({ eventId: positiveId })
  .refine(({ id, persons }) => personsOfPairId(id)?.every((person, index) => person === persons[index]), {
    error: 'The pair id is not its persons, lower first',
  });

/** The event of a duplicate pair's INSERT; throws on a record that is not a readable pair. */
const duplicateEventOfItem = (item: Record<string, unknown>): DuplicateEvent => {
  const parsed = PairItem.safeParse(item);
  if (!parsed.success) throw new Error(`The record is not a duplicate pair: ${parsed.error.message}`);
  return duplicateEventOf(parsed.data, parsed.data.eventId);
};

/**
 * The event of a ChangeHistory entry's or a duplicate pair's INSERT; throws on a record that is not a
 * readable entry or pair.
 */
export const eventOfRecord = (record: DynamoDBRecord): FeedEvent => {
  const image = record.dynamodb?.NewImage;
  if (!image) throw new Error('The record has no new image');
  const { snapshot, ...item } = unmarshall(image as never);
  if (item.type === DUPLICATE_PAIR_TYPE) return duplicateEventOfItem(item);
  const entry = item as ChangeEntry;
  const valid =
    Number.isSafeInteger(entry.id) &&
    Number.isSafeInteger(entry.object_id) &&
    Number.isSafeInteger(entry.version) &&
    (RESOURCE_TYPES as readonly string[]).includes(entry.endpoint) &&
    ACTIONS.includes(entry.action) &&
    typeof entry.at === 'string' &&
    Array.isArray(entry.changed);
  if (!valid) throw new Error('The record is not a ChangeHistory entry');
  // Only a merge's source says whom it was merged into; no other entry's snapshot is opened.
  const merged = entry.action === 'merge' ? decodeSnapshot<Partial<MergedPerson>>(bytesOf(snapshot)) : null;
  return feedEventOf(entry, typeof merged?.superceded_by === 'number' ? merged.superceded_by : null);
};

export interface AppenderOptions {
  /** Where the appended events go on: the bus. */
  publish: EventPublisher;
  logger?: Pick<typeof defaultLogger, 'error'>;
}

export const appendEvents =
  (storage: Storage, { publish, logger = defaultLogger }: AppenderOptions) =>
  async (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => {
    const events: FeedEvent[] = [];
    let failed: DynamoDBRecord | undefined;
    for (const record of event.Records) {
      try {
        events.push(eventOfRecord(record));
      } catch (error) {
        logger.error('feed: a stream record is not a ChangeHistory entry or a duplicate pair', {
          eventID: record.eventID,
          error,
        });
        failed = record;
        break;
      }
    }
    await feedLog(storage).append(events, { deadline: retryDeadline(context?.getRemainingTimeInMillis()) });
    if (events.length > 0) await publish(events);
    return {
      batchItemFailures: failed ? [{ itemIdentifier: failed.dynamodb?.SequenceNumber ?? '' }] : [],
    };
  };
