/**
 * What a batch of stream records does to the posting counts (issue #36): a posting's INSERT adds one
 * to its gram, its REMOVE takes one away, a MODIFY (a posting put again) and any other item change
 * nothing, and the gram is read back from the posting's key whatever code points it holds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { postingCountChanges } from '../../../../../lib/db/person/read/posting-counts';
import {
  gramOfPostingKey,
  POSTING_PARTITION_PREFIX,
  personKey,
  postingCountKey,
  postingKey,
  postingPartition,
} from '../../../../../lib/db/table/keys';
import { isPostingInsertOrRemove } from '../../../../../lib/db/table/stream-subscriptions';
import { END_MARK, gramsOfValue } from '../../../../../lib/domain/search';
import { streamRecord } from '../../../../support/events';

const tableName = 'counts';
const posting = (gram: string, id: number) => ({ ...postingKey(gram, id), type: 'Posting', id });
const inserted = (gram: string, id: number) => streamRecord('INSERT', { tableName, item: posting(gram, id) });
const removed = (gram: string, id: number) =>
  streamRecord('REMOVE', { tableName, oldItem: posting(gram, id) });

/** A gram as values make them: 3 code points of any script, the end mark among them. */
const gram = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
      fc.constant(END_MARK),
      fc.constant('#'),
    ),
    {
      minLength: 3,
      maxLength: 3,
    },
  )
  .map((points) => points.map((point) => Array.from(point)[0]).join(''))
  .filter((text) => Array.from(text).length === 3);

describe('the posting counts kept from the stream', () => {
  it('read a posting key back to its gram, for any code points (a # or the end mark too)', () => {
    fc.assert(
      fc.property(gram, fc.integer({ min: 1, max: 2 ** 40 }), (text, id) => {
        expect(gramOfPostingKey(postingKey(text, id))).toBe(text);
        expect(postingCountKey(text).pk.startsWith('POSTINGCOUNT#')).toBe(true);
      }),
    );
    expect(gramsOfValue('ada').map((text) => gramOfPostingKey(postingKey(text, 7)))).toEqual([
      'ada',
      `da${END_MARK}`,
    ]);
    expect(gramOfPostingKey(personKey(7))).toBeNull();
  });

  it('keep the grams of one prefix in one partition, one item each', () => {
    expect(postingCountKey('mar')).toEqual({ pk: 'POSTINGCOUNT#ma', sk: 'r' });
    expect(postingCountKey('mat').pk).toBe(postingCountKey('mar').pk);
    expect(postingCountKey(`ia${END_MARK}`)).toEqual({ pk: 'POSTINGCOUNT#ia', sk: END_MARK });
  });

  it('add the inserts and take away the removes of a batch, per gram, and leave out what sums to nothing', () => {
    const changes = postingCountChanges([
      inserted('low', 1),
      inserted('low', 2),
      inserted('ows', 1),
      removed('ows', 3),
      removed('ski', 4),
      inserted('wsk', 5),
      removed('wsk', 5),
      streamRecord('MODIFY', { tableName, item: posting('low', 1), oldItem: posting('low', 1) }),
      streamRecord('INSERT', { tableName, item: { ...personKey(9), type: 'Person' } }),
    ]);
    expect(Object.fromEntries(changes)).toEqual({ low: 2, ski: -1 });
  });

  it('are subscribed to exactly the inserts and removes of postings', () => {
    expect(postingPartition('ab', 3).startsWith(POSTING_PARTITION_PREFIX)).toBe(true);
    expect(isPostingInsertOrRemove(inserted('low', 1))).toBe(true);
    expect(isPostingInsertOrRemove(removed('low', 1))).toBe(true);
    expect(
      isPostingInsertOrRemove(
        streamRecord('MODIFY', { tableName, item: posting('low', 1), oldItem: posting('low', 1) }),
      ),
    ).toBe(false);
    expect(
      isPostingInsertOrRemove(
        streamRecord('INSERT', { tableName, item: { ...personKey(9), type: 'Person' } }),
      ),
    ).toBe(false);
  });
});
