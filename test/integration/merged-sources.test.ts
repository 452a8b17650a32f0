/**
 * The persons merged into a survivor (lib/db/person/merged-from.ts) against DynamoDB Local:
 * each merge leaves a link in its survivor's partition, and the read follows the links through a
 * chain of merges, nearest first, without a Scan.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { mergedSources } from '../../lib/db/person/merged-from';
import { mergedFromKey } from '../../lib/db/table/keys';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

const create = async (label: string) => {
  const { status, body } = await suite.api.post(personBody(label, uniqueTag('Chain'), uniqueEmail()), {
    requester: 0,
  });
  expect(status).toBe(201);
  return body.id;
};

const merge = async (survivor: number, source: number) =>
  expect((await suite.api.merge(survivor, { source })).status).toBe(200);

describe('mergedSources', () => {
  it('answers nothing for a person nothing was merged into', async () => {
    expect(await mergedSources(suite.table, await create('Alone'))).toEqual([]);
  });

  it('puts a link in the survivor’s partition naming the source', async () => {
    const [survivor, source] = [await create('Kept'), await create('Gone')];
    await merge(survivor, source);
    const { Item } = await suite.table.client.send(
      new GetCommand({ TableName: suite.table.tableName, Key: mergedFromKey(survivor, source) }),
    );
    expect(Item).toEqual({
      ...mergedFromKey(survivor, source),
      type: 'MergedFrom',
      sourceId: source,
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      // What the merge did, for its undo (test/integration/merge-record.test.ts).
      record: expect.objectContaining({ moved: expect.any(Array), dropped: [] }),
    });
    expect(await mergedSources(suite.table, survivor)).toEqual([source]);
    expect(await mergedSources(suite.table, source)).toEqual([]);
  });

  it('follows a chain of three merges: A into B, B into C, D into C gives C B and D, then A', async () => {
    const [a, b, c, d] = [await create('A'), await create('B'), await create('C'), await create('D')];
    await merge(b, a);
    await merge(c, b);
    await merge(c, d);
    const sources = await mergedSources(suite.table, c);
    // Nearest first: C's own links (in id order), then B's.
    expect(sources).toEqual([...[b, d].sort((x, y) => x - y), a]);
    expect(await mergedSources(suite.table, b)).toEqual([a]);
  });
});
