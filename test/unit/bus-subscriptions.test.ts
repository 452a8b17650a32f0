/**
 * The consumers of the bus (lib/api/bus-subscriptions.ts) and the readers of the table's stream
 * (issue #55): two stream readers at most, every consumer a function that exists, on event types the
 * feed has, within what Lambda's SQS event source takes, and stated in docs/change-feed.md with why a
 * repeat or a late event does no harm to it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUS_SUBSCRIPTIONS } from '../../lib/api/bus-subscriptions';
import { STREAM_SUBSCRIPTIONS } from '../../lib/db/table/stream-subscriptions';
import { EVENT_TYPES } from '../../lib/domain/feed';

const ROOT = join(__dirname, '..', '..');

describe('the readers of changes', () => {
  it('has at most two readers of the table’s stream', () => {
    expect(STREAM_SUBSCRIPTIONS.map(({ handler }) => handler)).toEqual(['count-postings', 'append-events']);
  });

  it('names for each consumer of the bus a function, event types of the feed and a queue Lambda can read', () => {
    for (const { handler, eventTypes, batchSize, maxReceiveCount, deliverySafety } of BUS_SUBSCRIPTIONS) {
      expect({ handler, exists: existsSync(join(ROOT, 'functions', `${handler}.ts`)) }).toEqual({
        handler,
        exists: true,
      });
      expect(eventTypes.length).toBeGreaterThan(0);
      for (const type of eventTypes) expect(EVENT_TYPES).toContain(type);
      // Lambda's SQS event source takes 1 to 10 messages a batch without a batching window.
      expect(batchSize).toBeGreaterThanOrEqual(1);
      expect(batchSize).toBeLessThanOrEqual(10);
      expect(maxReceiveCount).toBeGreaterThanOrEqual(2);
      expect(deliverySafety.length).toBeGreaterThan(20);
    }
    expect(new Set(BUS_SUBSCRIPTIONS.map(({ handler }) => handler)).size).toBe(BUS_SUBSCRIPTIONS.length);
  });

  it('states each consumer in docs/change-feed.md: its events and why a repeat or a late event does no harm', () => {
    const page = readFileSync(join(ROOT, 'docs', 'change-feed.md'), 'utf8');
    const rows = page.split('\n').filter((line) => /^\s*\| `[a-z-]+` \|/.test(line));
    expect(rows.map((row) => row.trim())).toEqual(
      BUS_SUBSCRIPTIONS.map(
        ({ handler, eventTypes, deliverySafety }) =>
          `| \`${handler}\` | ${eventTypes.map((type) => `\`${type}\``).join(', ')} | ${deliverySafety} |`,
      ),
    );
  });
});
