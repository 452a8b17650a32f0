/**
 * The change feed (API.md 14): one CloudEvents 1.0 event per stored change, thin (ids, version, which
 * parts changed; no personal values), and one per duplicate pair found (API.md 12.1), read oldest
 * first with a cursor that never skips and never repeats. Pure: what an event is made of, the cursor,
 * and how a page is read from the feed's shards and put together. Storage (db/feed/feed-log.ts)
 * appends the events and reads the shards.
 *
 * The feed is `FEED_SHARDS` logs. An object's events all go to one shard (`feedShardOf`), in the
 * order its changes were committed; each shard numbers its own events 1, 2, 3, ... without gaps. A
 * cursor is a position per shard: the number of that shard's events already read. So a consumer that
 * resumes from a cursor it was given reads every event after it exactly once, whatever lands between
 * two pages, and an object's events in `version` order.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AuditAction } from './audit';
import type { ChangeEntry, ResourceType } from './change-history';
import type { DuplicatePair, Grade } from './duplicates';

/** The `type` of a feed event's item in the table: what the event bus's stream filter selects. */
export const FEED_EVENT_TYPE = 'FeedEvent';

/** How many logs the feed is spread over: each takes a share of the appends (db/table/keys.ts). */
export const FEED_SHARDS = 8;

/** The `type` of each kind of change (API.md 14): a ChangeHistory entry's event. */
export const CHANGE_EVENT_TYPES = [
  'person.created',
  'person.updated',
  'person.enriched',
  'person.merged',
  'person.unmerged',
  'person.erased',
  'nameprefix.created',
  'nameprefix.updated',
  'namesuffix.created',
  'namesuffix.updated',
] as const;
export type ChangeEventType = (typeof CHANGE_EVENT_TYPES)[number];

/** The one event that is no ChangeHistory entry's: a duplicate pair found (API.md 12.1). */
export const DUPLICATE_DETECTED = 'duplicate.detected';

/** The `type` of every event of the feed (API.md 14). */
export const EVENT_TYPES = [...CHANGE_EVENT_TYPES, DUPLICATE_DETECTED] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as the feed keeps it: a change's, or a duplicate pair's (told apart by `type`). */
export type FeedEvent = ChangeEvent | DuplicateEvent;

/** A change's event: its ChangeHistory entry, without anything personal. */
export interface ChangeEvent {
  /** The ChangeHistory entry's id. */
  id: number;
  type: ChangeEventType;
  endpoint: ResourceType;
  object_id: number;
  version: number;
  changed: string[];
  requester: number | null;
  /** When the change was written (the entry's time). */
  time: string;
  /** On a merged person's event: the person it was merged into. */
  superceded_by?: number;
}

/**
 * A duplicate pair's event, when the pair is first found (API.md 12.1): which pair, of whom, how
 * sure. A pair has no ChangeHistory entry; its `id` is the one the detector took for it from the
 * same allocator, so no other event of the feed has it, and its mark keeps it appended once.
 */
export interface DuplicateEvent {
  /** The pair's event id (the pair item's `eventId`). */
  id: number;
  type: typeof DUPLICATE_DETECTED;
  /** The pair's id: its two person ids, lower first (`30863-41207`). */
  pair: string;
  persons: [number, number];
  grade: Grade;
  score: number;
  /** When the pair was found (its `detected`). */
  time: string;
}

/** An event where it sits in the feed: its shard, and its number there (from 1). */
export type PlacedEvent = FeedEvent & {
  shard: number;
  seq: number;
};

const VERB: Record<AuditAction, 'created' | 'updated' | 'enriched' | 'erased'> = {
  create: 'created',
  update: 'updated',
  enrich: 'enriched',
  // The survivor's side of a merge; the source's is `person.merged` (below).
  merge: 'updated',
  // The survivor's side of an unmerge; the source's is `person.unmerged` (below).
  unmerge: 'updated',
  erase: 'erased',
};

/**
 * The event of a ChangeHistory entry. `supercededBy` is what the entry's object says after the
 * change: a person merged into another has it (the source of a merge), every other object none. The
 * source of an unmerge is told by its entry's changes: it lost its `/superceded_by`.
 */
export const feedEventOf = (entry: ChangeEntry, supercededBy: number | null = null): ChangeEvent => {
  const isPerson = entry.endpoint === 'Person';
  const merged = isPerson && entry.action === 'merge' && supercededBy !== null;
  const unmerged = isPerson && entry.action === 'unmerge' && entry.changed.includes('/superceded_by');
  const type = merged
    ? 'person.merged'
    : unmerged
      ? 'person.unmerged'
      : (`${entry.endpoint.toLowerCase()}.${VERB[entry.action]}` as ChangeEventType);
  return {
    id: entry.id,
    type,
    endpoint: entry.endpoint,
    object_id: entry.object_id,
    version: entry.version,
    changed: entry.changed,
    requester: entry.requester,
    time: entry.at,
    ...(merged ? { superceded_by: supercededBy } : {}),
  };
};

/**
 * The event of a duplicate pair first found, from the pair as stored: `eventId` is the id the detector
 * took for its event, `detected` its time.
 */
export const duplicateEventOf = (
  pair: Pick<DuplicatePair, 'id' | 'persons' | 'grade' | 'score' | 'detected'>,
  eventId: number,
): DuplicateEvent => ({
  id: eventId,
  type: DUPLICATE_DETECTED,
  pair: pair.id,
  persons: [pair.persons[0], pair.persons[1]],
  grade: pair.grade,
  score: pair.score,
  time: pair.detected,
});

/** What every CloudEvents 1.0 event of the feed is in JSON (structured mode), whatever its data. */
interface CloudEventBase {
  specversion: '1.0';
  id: string;
  source: string;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
}

/** A change's event on the wire: the changed object, its version, and its ChangeHistory entry. */
export interface ChangeCloudEvent extends CloudEventBase {
  type: ChangeEventType;
  data: {
    id: number;
    version: number;
    changed: string[];
    requester: number | null;
    changeHistory: string;
    superceded_by?: number;
  };
}

/** A pair's event on the wire (API.md 12.1): the pair, no version and no ChangeHistory entry. */
export interface DuplicateCloudEvent extends CloudEventBase {
  type: typeof DUPLICATE_DETECTED;
  data: { id: string; persons: [number, number]; grade: Grade; score: number };
}

/** A CloudEvents 1.0 event in JSON (structured mode), as `GET /events` and the event bus carry it. */
export type CloudEvent = ChangeCloudEvent | DuplicateCloudEvent;

/** A pair's subject and link path: `duplicates/<pair id>`, as `GET /duplicates/{pairId}` reads it. */
export const duplicateSubjectOf = (pairId: string) => `duplicates/${pairId}`;

/**
 * The event on the wire: `source` is the service's base URL; a change's entry is linked from it, and
 * a pair's subject names the pair.
 */
export function cloudEventOf(event: ChangeEvent, baseUrl: string): ChangeCloudEvent;
export function cloudEventOf(event: DuplicateEvent, baseUrl: string): DuplicateCloudEvent;
export function cloudEventOf(event: FeedEvent, baseUrl: string): CloudEvent;
export function cloudEventOf(event: FeedEvent, baseUrl: string): CloudEvent {
  const common = {
    specversion: '1.0',
    id: String(event.id),
    source: baseUrl,
    time: event.time,
    datacontenttype: 'application/json',
  } as const;
  if (event.type === DUPLICATE_DETECTED)
    return {
      ...common,
      type: event.type,
      subject: duplicateSubjectOf(event.pair),
      data: { id: event.pair, persons: event.persons, grade: event.grade, score: event.score },
    };
  return {
    ...common,
    type: event.type,
    subject: `${event.endpoint}/${event.object_id}`,
    data: {
      id: event.object_id,
      version: event.version,
      changed: event.changed,
      requester: event.requester,
      changeHistory: `${baseUrl}/ChangeHistory/${event.id}`,
      ...(event.superceded_by === undefined ? {} : { superceded_by: event.superceded_by }),
    },
  };
}

/**
 * A page of `GET /events` (API.md 14): its events oldest first, and `next`, the cursor a consumer keeps
 * and asks again with (`after`); on an empty page, a cursor at least as far as the one it sent.
 */
export const eventPage = (contextUrl: string, events: CloudEvent[], next: string) => ({
  '@context': contextUrl,
  '@type': 'EventPage' as const,
  events,
  next,
});

/** FNV-1a (32 bits) of an ASCII text: a cheap, stable spread, not a secret. */
const fnv1a = (text: string) => {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
};

/** The shard an object's events go to, by its endpoint and id, so every shard takes a share. */
export const feedShardOf = (endpoint: ResourceType, objectId: number): number =>
  fnv1a(`${endpoint}#${objectId}`) % FEED_SHARDS;

/** The shard of a duplicate pair's events, by its id: a pair's all go to one, as an object's do. */
export const duplicateShardOf = (pairId: string): number => fnv1a(`duplicates#${pairId}`) % FEED_SHARDS;

/** The shard an event goes to: its object's, or its pair's. */
export const shardOfEvent = (event: FeedEvent): number =>
  event.type === DUPLICATE_DETECTED
    ? duplicateShardOf(event.pair)
    : feedShardOf(event.endpoint, event.object_id);

/** A position per shard: how many of its events the reader has had. */
export type FeedPosition = readonly number[];

/** Where a reader without a cursor starts: before every shard's first event. */
export const FEED_START: FeedPosition = Array.from({ length: FEED_SHARDS }, () => 0);

/**
 * A cursor's version: a cursor of another layout (another shard count, say) is not this feed's. `f1`
 * cursors carried an unkeyed check anyone could recompute; `f2` carries a keyed one.
 */
const CURSOR_VERSION = 'f2';

/**
 * The key a feed signs its cursors with: the stack's secret deployed, a random one per `npm start --data`
 * folder (or per process in memory) locally. Cursors signed with another key are not this feed's.
 */
export type FeedCursorKey = string;

/** How much of the HMAC a cursor carries: 128 bits, 22 characters of base64url. */
const MAC_BYTES = 16;

/**
 * The cursor's MAC: HMAC-SHA256 over its version and positions with the feed's key, truncated, so a
 * cursor with anything changed, or made with another key, is refused rather than read.
 */
const macOf = (positions: FeedPosition, key: FeedCursorKey) =>
  createHmac('sha256', key)
    .update(`${CURSOR_VERSION}:${positions.join('.')}`)
    .digest()
    .subarray(0, MAC_BYTES);

/** The opaque cursor of a position: `f2.` then the positions in base 36, then their MAC (base64url). */
export const encodeFeedCursor = (positions: FeedPosition, key: FeedCursorKey): string =>
  [
    CURSOR_VERSION,
    ...positions.map((position) => position.toString(36)),
    macOf(positions, key).toString('base64url'),
  ].join('.');

/** The position a cursor holds, or null when it is not one this feed issued with this key. */
export const decodeFeedCursor = (cursor: string, key: FeedCursorKey): FeedPosition | null => {
  const parts = cursor.split('.');
  if (parts.length !== FEED_SHARDS + 2 || parts[0] !== CURSOR_VERSION) return null;
  const digits = parts.slice(1, -1);
  if (!digits.every((part) => /^(0|[1-9a-z][0-9a-z]{0,9})$/.test(part))) return null;
  const positions = digits.map((part) => Number.parseInt(part, 36));
  if (!positions.every(Number.isSafeInteger)) return null;
  const mac = parts.at(-1) ?? '';
  if (!/^[A-Za-z0-9_-]{22}$/.test(mac)) return null;
  const sent = Buffer.from(mac, 'base64url');
  // The canonical spelling only (a last character with other spare bits decodes alike), compared in
  // constant time.
  if (sent.toString('base64url') !== mac) return null;
  return timingSafeEqual(sent, macOf(positions, key)) ? positions : null;
};

/**
 * How many events to read from each shard for a page of `limit`, from how many each holds past the
 * position (`pending`): every one when they fit; else one from each shard that has any (its next
 * event, so the page knows which is oldest) and the rest of the limit in proportion to the backlogs.
 * So a page reads about what it returns: at most `limit`, or one per shard when that is more.
 */
export const pageShares = (pending: readonly number[], limit: number): number[] => {
  const total = pending.reduce((sum, count) => sum + count, 0);
  if (total <= limit) return [...pending];
  const shares = pending.map((count) => Math.min(count, 1));
  const room = limit - shares.reduce((sum, share) => sum + share, 0);
  if (room <= 0) return shares;
  const backlog = pending.map((count, shard) => count - (shares[shard] ?? 0));
  const left = backlog.reduce((sum, count) => sum + count, 0);
  backlog.forEach((count, shard) => {
    shares[shard] = (shares[shard] ?? 0) + Math.floor((count * room) / left);
  });
  // What rounding left goes to the shards with the most still unread, one each.
  let rest = limit - shares.reduce((sum, share) => sum + share, 0);
  const byBacklog = pending
    .map((count, shard) => ({ shard, unread: count - (shares[shard] ?? 0) }))
    .filter(({ unread }) => unread > 0)
    .sort((a, b) => b.unread - a.unread || a.shard - b.shard);
  for (const { shard } of byBacklog) {
    if (rest === 0) break;
    shares[shard] = (shares[shard] ?? 0) + 1;
    rest--;
  }
  return shares;
};

const older = (a: FeedEvent, b: FeedEvent) => a.time < b.time || (a.time === b.time && a.id < b.id);

/**
 * A page from what was read of each shard after `position` (`pending`: how many each holds past it),
 * merged oldest first as the shards' logs are merged: the oldest of the shards' next events each time.
 * A shard's events are taken in their order and only while they follow on from its position, so none
 * is ever skipped; the merge stops where a shard whose next event was not read (past its share, or
 * not readable yet) might hold an older one, so pages follow one another oldest first too. `next` is
 * the position after the events taken.
 */
export const assemblePage = (
  position: FeedPosition,
  read: readonly (readonly PlacedEvent[])[],
  pending: readonly number[],
  limit: number,
): { events: PlacedEvent[]; next: FeedPosition } => {
  const next = [...position];
  const queues = read.map((shardEvents) => [...shardEvents].sort((a, b) => a.seq - b.seq));
  const events: PlacedEvent[] = [];
  while (events.length < limit) {
    let oldest: { shard: number; event: PlacedEvent } | undefined;
    let blocked = false;
    for (let shard = 0; shard < next.length; shard++) {
      const at = next[shard] ?? 0;
      const event = queues[shard]?.find((candidate) => candidate.seq === at + 1);
      if (!event) {
        // Unread events of this shard (past its share, or not readable yet) may be older.
        if (at < (position[shard] ?? 0) + (pending[shard] ?? 0)) blocked = true;
        continue;
      }
      if (!oldest || older(event, oldest.event)) oldest = { shard, event };
    }
    if (!oldest || blocked) break;
    events.push(oldest.event);
    next[oldest.shard] = oldest.event.seq;
  }
  return { events, next };
};
