/**
 * The export's cursor (person-export.ts): a position round-trips through it, and only a position the
 * service wrote comes back out of it; anything else is a validation error naming `/cursor`, never a
 * Query that reads elsewhere or fails in storage. And the Query a position makes.
 */
import { describe, expect, it } from 'vitest';
import {
  buildExportQuery,
  decodeExportCursor,
  type ExportPosition,
  encodeExportCursor,
  type IndexKey,
} from '../../../../../lib/db/person/read/person-export';
import { PERSON_LIST_PARTITIONS, personKey, personListKey } from '../../../../../lib/db/table/keys';
import { ValidationFailed } from '../../../../../lib/domain/errors';

/** The index key of person `id` named `name`, as the index holds it. */
const keyOf = (id: number, name: string, listPk?: string): IndexKey => {
  const { listPk: own, listSk } = personListKey(name, id);
  return { ...personKey(id), listPk: listPk ?? own, listSk };
};

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const refusal = (cursor: string) => {
  try {
    decodeExportCursor(cursor);
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('the export cursor', () => {
  const inside = keyOf(30711, 'ada lovelace');
  const partition = PERSON_LIST_PARTITIONS.indexOf(inside.listPk);

  it.each<[string, ExportPosition]>([
    ['the start of the first partition', { partition: 0 }],
    ['the start of the legacy partition', { partition: PERSON_LIST_PARTITIONS.length - 1 }],
    ['after a person inside a partition', { partition, after: inside }],
    [
      'after a person in the legacy partition',
      { partition: 8, after: keyOf(12, 'grace hopper', PERSON_LIST_PARTITIONS[8]) },
    ],
    [
      'after a person whose name holds characters beyond ASCII',
      { partition: 0, after: keyOf(7, 'zoë ñandú 😀', PERSON_LIST_PARTITIONS[0]) },
    ],
  ])('round-trips %s, as base64url that needs no escaping in a query', (_, position) => {
    const cursor = encodeExportCursor(position);

    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeExportCursor(cursor)).toEqual(position);
  });

  const other = PERSON_LIST_PARTITIONS[(partition + 1) % 8] as string;
  it.each<[string, string]>([
    ['not base64url', 'abc+/='],
    ['an empty cursor', ''],
    ['base64url of no JSON', Buffer.from('not json').toString('base64url')],
    ['JSON that is no object', base64url([0])],
    ['null', base64url(null)],
    ['no partition', base64url({ k: inside })],
    ['a partition past the last', base64url({ p: PERSON_LIST_PARTITIONS.length })],
    ['a negative partition', base64url({ p: -1 })],
    ['a partition that is no integer', base64url({ p: 1.5 })],
    ['a partition as a string', base64url({ p: '1' })],
    ['an attribute of its own', base64url({ p: 0, x: 1 })],
    ['a key that is null', base64url({ p: partition, k: null })],
    ['a key without an attribute', base64url({ p: partition, k: { ...inside, listSk: undefined } })],
    ['a key with another attribute', base64url({ p: partition, k: { ...inside, data: 'x' } })],
    ['a key attribute that is no string', base64url({ p: partition, k: { ...inside, sk: 1 } })],
    ['a key attribute as DynamoDB JSON', base64url({ p: partition, k: { ...inside, pk: { S: inside.pk } } })],
    ['an empty key attribute', base64url({ p: partition, k: { ...inside, listSk: '' } })],
    ['a sort key past 1024 bytes', base64url({ p: partition, k: { ...inside, listSk: 'x'.repeat(1025) } })],
    ['a key of another partition', base64url({ p: partition, k: { ...inside, listPk: other } })],
    ['a key of the partition after its own', base64url({ p: (partition + 1) % 8, k: inside })],
    ['a key of no person', base64url({ p: partition, k: { ...inside, pk: 'EMAIL#a@b.c', sk: 'CLAIM' } })],
    ['a person key with another sort key', base64url({ p: partition, k: { ...inside, sk: 'AUDIT#1' } })],
    ['a person id with leading zeros', base64url({ p: partition, k: { ...inside, pk: 'PERSON#0012' } })],
  ])('refuses %s with a validation error naming /cursor', (_, cursor) => {
    const error = refusal(cursor);

    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).errors).toEqual([
      { path: '/cursor', message: expect.stringMatching(/cursor/) },
    ]);
  });

  it('refuses a real cursor edited in a character or cut short', () => {
    const cursor = encodeExportCursor({ partition, after: inside });
    const flipped = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;

    for (const tampered of [flipped, cursor.slice(0, -4), cursor.slice(8)])
      expect(refusal(tampered)).toBeInstanceOf(ValidationFailed);
  });
});

describe('the Query of a page', () => {
  it('reads one partition of the byName index from the position, one entry more than the page takes, keys only', () => {
    const after = keyOf(30711, 'ada lovelace');
    const partition = PERSON_LIST_PARTITIONS.indexOf(after.listPk);

    expect(buildExportQuery('people', { partition, after }, 100)).toEqual({
      TableName: 'people',
      IndexName: 'byName',
      KeyConditionExpression: 'listPk = :partition',
      ExpressionAttributeValues: { ':partition': after.listPk },
      ProjectionExpression: 'id, pk, sk, listPk, listSk',
      Limit: 101,
      ReturnConsumedCapacity: 'TOTAL',
      ExclusiveStartKey: after,
    });
    expect(buildExportQuery('people', { partition: 0 }, 7)).not.toHaveProperty('ExclusiveStartKey');
  });
});
