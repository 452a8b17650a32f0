/**
 * The change feed's pure parts (API.md 14): the event of each kind of change, its CloudEvents 1.0
 * shape (checked against the spec's JSON Schema, as the `cloudevents` package ships it), the cursor,
 * and how a page is read from the shards and put together.
 */
import { CloudEvent as SpecEvent, ValidationError } from 'cloudevents';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChangeEntry } from '../../../lib/domain/change-history';
import { NO_ORIGIN } from '../../../lib/domain/change-history';
import { type DuplicatePair, GRADES, pairIdOf } from '../../../lib/domain/duplicates';
import {
  assemblePage,
  cloudEventOf,
  decodeFeedCursor,
  duplicateEventOf,
  duplicateShardOf,
  EVENT_TYPES,
  encodeFeedCursor,
  FEED_SHARDS,
  FEED_START,
  feedEventOf,
  feedShardOf,
  type PlacedEvent,
  pageShares,
  shardOfEvent,
} from '../../../lib/domain/feed';
import { FEED_DEFAULTS } from '../../../lib/domain/listing';
import { examplePair } from '../../support/fixtures';
import { fuzzRuns } from '../../support/fuzz-runs';

const BASE = 'http://127.0.0.1:3000';
const runs = { numRuns: fuzzRuns(200) };

const entry = (overrides: Partial<ChangeEntry> = {}): ChangeEntry => ({
  id: 30911,
  endpoint: 'Person',
  object_id: 30863,
  version: 3,
  action: 'update',
  requester: 30863,
  at: '2026-11-21T15:04:05.123Z',
  changed: ['/Emails'],
  provider_data: { ...NO_ORIGIN, caller: 'arn:aws:iam::123456789012:user/secret-holder' },
  ...overrides,
});

describe('the event of a change', () => {
  it('is the example of API.md 14 for a PATCH of a person', () => {
    expect(cloudEventOf(feedEventOf(entry()), BASE)).toEqual({
      specversion: '1.0',
      id: '30911',
      source: BASE,
      type: 'person.updated',
      subject: 'Person/30863',
      time: '2026-11-21T15:04:05.123Z',
      datacontenttype: 'application/json',
      data: {
        id: 30863,
        version: 3,
        changed: ['/Emails'],
        requester: 30863,
        changeHistory: `${BASE}/ChangeHistory/30911`,
      },
    });
  });

  it.each([
    ['Person', 'create', null, 'person.created'],
    ['Person', 'update', null, 'person.updated'],
    ['Person', 'enrich', null, 'person.enriched'],
    // The survivor of a merge is updated; the source is merged, and says into whom.
    ['Person', 'merge', null, 'person.updated'],
    ['Person', 'merge', 30001, 'person.merged'],
    // An unmerge (API.md 13.1): the survivor is updated; the source, which lost its link, is unmerged.
    ['Person', 'unmerge', null, 'person.updated'],
    // An erasure (API.md 15): thin like every event, nothing of the person but its id.
    ['Person', 'erase', null, 'person.erased'],
    ['NamePrefix', 'create', null, 'nameprefix.created'],
    ['NamePrefix', 'update', null, 'nameprefix.updated'],
    ['NameSuffix', 'create', null, 'namesuffix.created'],
    ['NameSuffix', 'update', null, 'namesuffix.updated'],
  ] as const)('%s %s (superceded_by %s) is %s', (endpoint, action, supercededBy, type) => {
    const event = cloudEventOf(feedEventOf(entry({ endpoint, action }), supercededBy), BASE);
    expect(event.type).toBe(type);
    expect(event.subject).toBe(`${endpoint}/30863`);
    if (type === 'person.merged') expect(event.data.superceded_by).toBe(30001);
    else expect(event.data).not.toHaveProperty('superceded_by');
  });

  it('is person.unmerged on the source of an unmerge, which lost its link (API.md 13.1)', () => {
    const source = entry({ action: 'unmerge', changed: ['/Names', '/Emails', '/superceded_by'] });
    const event = cloudEventOf(feedEventOf(source), BASE);
    expect(event.type).toBe('person.unmerged');
    expect(event.data).not.toHaveProperty('superceded_by');
    expect(feedEventOf({ ...source, changed: ['/Names', '/Emails'] }).type).toBe('person.updated');
  });

  it('carries nothing personal: no snapshot, no provider data, no caller', () => {
    const text = JSON.stringify(cloudEventOf(feedEventOf(entry()), BASE));
    expect(text).not.toContain('secret-holder');
    expect(text).not.toContain('provider_data');
  });

  it('is a valid CloudEvents 1.0 event, of every type, by the spec’s JSON Schema', () => {
    fc.assert(
      fc.property(
        // Every change there is: a person's five kinds, a vocabulary entry's create and update.
        fc.oneof(
          fc.tuple(
            fc.constant('Person' as const),
            fc.constantFrom(...(['create', 'update', 'enrich', 'merge', 'unmerge', 'erase'] as const)),
          ),
          fc.tuple(
            fc.constantFrom(...(['NamePrefix', 'NameSuffix'] as const)),
            fc.constantFrom(...(['create', 'update'] as const)),
          ),
        ),
        fc.option(fc.integer({ min: 1, max: 2 ** 40 }), { nil: null }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.option(fc.integer({ min: 1 }), { nil: null }),
        ([endpoint, action], supercededBy, id, requester) => {
          const event = cloudEventOf(
            feedEventOf(entry({ endpoint, action, id, requester }), supercededBy),
            BASE,
          );
          expect(EVENT_TYPES).toContain(event.type);
          // strict: the package validates against the spec's schema and throws on a violation.
          expect(() => new SpecEvent(event as never, true)).not.toThrow();
        },
      ),
      runs,
    );
    // And the schema does refuse what is not an event: the check has teeth.
    expect(
      () => new SpecEvent({ ...cloudEventOf(feedEventOf(entry()), BASE), source: '' } as never, true),
    ).toThrow(ValidationError);
  });
});

describe('the event of a duplicate pair found', () => {
  /** The pair of API.md 12.1's example, as the detector stores it. */
  const pair: DuplicatePair = examplePair();

  it('is duplicate.detected on duplicates/<pair id>, its data the pair’s id, persons, grade and score (API.md 12.1)', () => {
    expect(cloudEventOf(duplicateEventOf(pair, 30950), BASE)).toEqual({
      specversion: '1.0',
      id: '30950',
      source: BASE,
      type: 'duplicate.detected',
      subject: 'duplicates/30863-41207',
      time: '2026-11-21T15:04:05.123Z',
      datacontenttype: 'application/json',
      data: { id: '30863-41207', persons: [30863, 41207], grade: 'probable', score: 91 },
    });
  });

  it('names no ChangeHistory entry, version, change or requester, and none of the pair’s evidence', () => {
    const event = cloudEventOf(duplicateEventOf(pair, 30950), BASE);
    expect(Object.keys(event.data).sort()).toEqual(['grade', 'id', 'persons', 'score']);
    expect(JSON.stringify(event)).not.toMatch(/ChangeHistory|features|phones|status/);
  });

  it('is one of the feed’s event types, beside every change’s', () => {
    expect(EVENT_TYPES).toContain('duplicate.detected');
    expect(EVENT_TYPES.filter((type) => !type.startsWith('duplicate.'))).toHaveLength(10);
  });

  it('is a valid CloudEvents 1.0 event, for any pair, by the spec’s JSON Schema', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.constantFrom(...GRADES),
        fc.integer({ min: 0, max: 1000 }),
        (a, b, eventId, grade, tenths) => {
          fc.pre(a !== b);
          const persons: [number, number] = [Math.min(a, b), Math.max(a, b)];
          const event = cloudEventOf(
            duplicateEventOf({ ...pair, id: pairIdOf(a, b), persons, grade, score: tenths / 10 }, eventId),
            BASE,
          );
          expect(event.subject).toBe(`duplicates/${persons[0]}-${persons[1]}`);
          expect(() => new SpecEvent(event as never, true)).not.toThrow();
        },
      ),
      runs,
    );
  });
});

describe('feed shards', () => {
  it('puts every change of one object in one shard, and spreads objects over all of them', () => {
    const counts = Array.from({ length: FEED_SHARDS }, () => 0);
    for (let id = 1; id <= 8_000; id++) {
      const shard = feedShardOf('Person', id);
      expect(shard).toBe(feedShardOf('Person', id));
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    // Within 10% of an even share each.
    for (const count of counts) expect(Math.abs(count - 1_000)).toBeLessThan(100);
  });

  it('puts a duplicate pair’s events in one shard by its id, and spreads pairs over all of them', () => {
    const counts = Array.from({ length: FEED_SHARDS }, () => 0);
    for (let lower = 1; lower <= 8_000; lower++) {
      const pairId = pairIdOf(lower, lower + 1 + (lower % 97));
      const shard = duplicateShardOf(pairId);
      expect(shard).toBe(duplicateShardOf(pairId));
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    for (const count of counts) expect(Math.abs(count - 1_000)).toBeLessThan(100);
    // An event goes to its pair's shard, a change's to its object's (unchanged).
    const pairEvent = duplicateEventOf(
      {
        id: '30863-41207',
        persons: [30863, 41207],
        grade: 'certain',
        score: 100,
        detected: '2026-11-21T15:04:05.123Z',
      },
      30950,
    );
    expect(shardOfEvent(pairEvent)).toBe(duplicateShardOf('30863-41207'));
    expect(shardOfEvent(feedEventOf(entry()))).toBe(feedShardOf('Person', 30863));
  });
});

describe('the cursor', () => {
  const positions = fc.array(fc.integer({ min: 0, max: 2 ** 40 }), {
    minLength: FEED_SHARDS,
    maxLength: FEED_SHARDS,
  });
  const keys = fc.string({ minLength: 1, maxLength: 64 });
  const KEY = 'this feed’s key';
  /** Every character a cursor is written with. */
  const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_.';

  it('gives back the position it holds, with the key it was signed with', () => {
    fc.assert(
      fc.property(positions, keys, (held, key) => {
        const cursor = encodeFeedCursor(held, key);
        expect(cursor).toMatch(/^f2(\.[0-9a-z]+){8}\.[A-Za-z0-9_-]{22}$/);
        expect(cursor.length).toBeLessThanOrEqual(FEED_DEFAULTS.maxCursorLength);
        expect(decodeFeedCursor(cursor, key)).toEqual(held);
      }),
      runs,
    );
  });

  it('refuses a cursor with any one character changed, positions and MAC alike', () => {
    fc.assert(
      fc.property(positions, fc.nat(), fc.nat({ max: ALPHABET.length - 1 }), (held, at, pick) => {
        const cursor = encodeFeedCursor(held, KEY);
        const index = at % cursor.length;
        const edited = `${cursor.slice(0, index)}${ALPHABET[pick]}${cursor.slice(index + 1)}`;
        if (edited !== cursor) expect(decodeFeedCursor(edited, KEY)).toBeNull();
      }),
      runs,
    );
  });

  it('refuses a cursor cut short anywhere', () => {
    fc.assert(
      fc.property(positions, fc.nat(), (held, at) => {
        const cursor = encodeFeedCursor(held, KEY);
        expect(decodeFeedCursor(cursor.slice(0, at % cursor.length), KEY)).toBeNull();
      }),
      runs,
    );
  });

  it('refuses a cursor signed with another key: another server’s', () => {
    fc.assert(
      fc.property(positions, keys, keys, (held, mine, theirs) => {
        fc.pre(mine !== theirs);
        expect(decodeFeedCursor(encodeFeedCursor(held, theirs), mine)).toBeNull();
      }),
      runs,
    );
  });

  it.each([
    ['empty', ''],
    ['garbage', 'not-a-cursor'],
    // docs/change-feed.md's example before cursors were signed: its check anyone could compute.
    ['the old unkeyed cursor of the docs', 'f1.3.3.2.5.3.3.7.2.1t8cvxy'],
    ['another version', encodeFeedCursor(FEED_START, KEY).replace(/^f2/, 'f1')],
    ['one shard short', encodeFeedCursor(FEED_START, KEY).replace(/^f2\.0\./, 'f2.')],
    ['a leading zero', encodeFeedCursor(FEED_START, KEY).replace(/^f2\.0/, 'f2.00')],
    ['a negative position', encodeFeedCursor(FEED_START, KEY).replace(/^f2\.0/, 'f2.-1')],
    ['no MAC', encodeFeedCursor(FEED_START, KEY).replace(/\.[^.]+$/, '')],
    ['the MAC in padded base64', `${encodeFeedCursor(FEED_START, KEY)}==`],
  ])('is refused when %s', (_label, cursor) => {
    expect(decodeFeedCursor(cursor, KEY)).toBeNull();
  });
});

describe('a page from the shards', () => {
  const pendings = fc.array(fc.nat({ max: 1_000 }), { minLength: FEED_SHARDS, maxLength: FEED_SHARDS });

  it('reads every pending event when they fit, else the limit with the next event of every shard', () => {
    fc.assert(
      fc.property(pendings, fc.integer({ min: 1, max: 500 }), (pending, limit) => {
        const shares = pageShares(pending, limit);
        const total = pending.reduce((sum, count) => sum + count, 0);
        const active = pending.filter((count) => count > 0).length;
        expect(shares.reduce((sum, share) => sum + share, 0)).toBe(Math.min(total, Math.max(limit, active)));
        shares.forEach((share, shard) => {
          expect(share).toBeGreaterThanOrEqual(Math.min(pending[shard] ?? 0, 1));
          expect(share).toBeLessThanOrEqual(pending[shard] ?? 0);
        });
      }),
      runs,
    );
  });

  it('gives a shard with a backlog a share in proportion to it', () => {
    expect(pageShares([901, 101, 0, 0, 0, 0, 0, 0], 100)).toEqual([90, 10, 0, 0, 0, 0, 0, 0]);
    expect(pageShares([1, 1, 1, 1, 1, 1, 1, 1], 3)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  });

  const placed = (shard: number, seq: number, time: string, id = shard * 1_000 + seq): PlacedEvent => ({
    ...feedEventOf(entry({ id, at: time })),
    shard,
    seq,
  });
  const reads = (...byShard: [number, PlacedEvent[]][]) => {
    const read = Array.from({ length: FEED_SHARDS }, (): PlacedEvent[] => []);
    for (const [shard, events] of byShard) read[shard] = events;
    return read;
  };
  const at = (second: number) => `2026-11-21T10:00:${String(second).padStart(2, '0')}Z`;

  it('merges the shards oldest first, each shard’s events in their order', () => {
    const position = [2, 0, 5, 0, 0, 0, 0, 0];
    const read = reads(
      [0, [placed(0, 3, at(1)), placed(0, 4, at(4))]],
      [2, [placed(2, 6, at(2)), placed(2, 7, at(3))]],
    );
    const { events, next } = assemblePage(position, read, [2, 0, 2, 0, 0, 0, 0, 0], 10);
    expect(events.map(({ shard, seq }) => [shard, seq])).toEqual([
      [0, 3],
      [2, 6],
      [2, 7],
      [0, 4],
    ]);
    expect(next).toEqual([4, 0, 7, 0, 0, 0, 0, 0]);
    expect(assemblePage(position, read, [2, 0, 2, 0, 0, 0, 0, 0], 2).next).toEqual([3, 0, 6, 0, 0, 0, 0, 0]);
  });

  it('stops where a shard’s next event was not read, since it may be older than the rest', () => {
    // Shard 1 holds two events past the position; only its first was read (its share).
    const read = reads([0, [placed(0, 1, at(1)), placed(0, 2, at(5))]], [1, [placed(1, 1, at(3))]]);
    const { events, next } = assemblePage(FEED_START, read, [2, 2, 0, 0, 0, 0, 0, 0], 10);
    expect(events.map(({ shard, seq }) => [shard, seq])).toEqual([
      [0, 1],
      [1, 1],
    ]);
    expect(next).toEqual([1, 1, 0, 0, 0, 0, 0, 0]);
  });

  it('never skips an event that is not readable yet: the events after it wait', () => {
    const read = reads([0, [placed(0, 1, at(1))]], [1, [placed(1, 2, at(2))]]);
    const { events, next } = assemblePage(FEED_START, read, [1, 2, 0, 0, 0, 0, 0, 0], 10);
    expect(events).toEqual([]);
    expect(next).toEqual(FEED_START);
  });

  it('answers an empty page with the position it was given', () => {
    const position = [3, 1, 4, 1, 5, 9, 2, 6];
    expect(assemblePage(position, reads(), [0, 0, 0, 0, 0, 0, 0, 0], 100)).toEqual({
      events: [],
      next: position,
    });
  });
});
