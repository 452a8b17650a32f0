/**
 * The projection of a sort key range's read (lib/db/table/sort-key-range.ts): attributes and document
 * paths, every name a placeholder, so a reserved word (`record`) is asked for as any other.
 */
import { describe, expect, it } from 'vitest';
import { projectionOf } from '../../../../lib/db/table/sort-key-range';

describe('projectionOf', () => {
  it('names every attribute by a placeholder', () => {
    expect(projectionOf(['pk', 'sk'])).toEqual({
      ProjectionExpression: '#a0, #a1',
      ExpressionAttributeNames: { '#a0': 'pk', '#a1': 'sk' },
    });
  });

  it('asks for a document path, a reserved word in it, each name once', () => {
    expect(projectionOf(['sourceId', 'record.local_reference_id', 'record.moved'])).toEqual({
      ProjectionExpression: '#a0, #a1.#a2, #a1.#a3',
      ExpressionAttributeNames: {
        '#a0': 'sourceId',
        '#a1': 'record',
        '#a2': 'local_reference_id',
        '#a3': 'moved',
      },
    });
  });
});
