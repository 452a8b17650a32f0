import { describe, expect, it } from 'vitest';
import {
  type ActionRole,
  claimActions,
  existsCheck,
  MAX_ITEM_BYTES,
  objectPut,
  transactionOf,
  withinItemLimit,
} from '../../../../lib/db/write/actions';
import type { ChangeEntry } from '../../../../lib/domain/change-history';
import { ValidationFailed } from '../../../../lib/domain/errors';
import type { ClaimToTake } from '../../../../lib/domain/patch';
import type { Claim } from '../../../../lib/domain/person';
import type { VocabularyKind } from '../../../../lib/domain/vocabulary';
import { doctor } from '../../../support/fixtures';

const TABLE = 'people-test';

describe('objectPut', () => {
  const item = { pk: 'VOCABULARY#NamePrefix', sk: 'ENTRY#0000000021', type: 'NamePrefix', ...doctor };

  it('creates only where nothing is', () => {
    expect(objectPut(TABLE, item, null)).toEqual([
      { Put: { TableName: TABLE, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      { kind: 'object' },
    ]);
  });

  it('updates only an existing object still at the version the change was merged onto', () => {
    expect(objectPut(TABLE, item, 2)).toEqual([
      {
        Put: {
          TableName: TABLE,
          Item: item,
          ConditionExpression: 'attribute_exists(pk) AND #meta.#version = :previous',
          ExpressionAttributeNames: { '#meta': 'CoreMetaData', '#version': 'version' },
          ExpressionAttributeValues: { ':previous': 2 },
        },
      },
      { kind: 'object' },
    ]);
  });
});

describe('claimActions', () => {
  it.each<[VocabularyKind, string]>([
    ['NamePrefix', 'dr.'],
    ['NameSuffix', 'phd'],
  ])('takes and releases the abbreviation claim of a %s entry under entryId', (kind, value) => {
    const claim: ClaimToTake = { field: kind, value, path: '/abbreviation' };
    const released: Claim = { field: kind, value: 'doc' };

    expect(claimActions(TABLE, { type: kind, id: 21 }, [claim], [released])).toEqual([
      [
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: `ABBREVIATION#${kind}#${value}`,
              sk: 'CLAIM',
              type: 'Claim',
              field: kind,
              value,
              entryId: 21,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        { kind: 'take', claim },
      ],
      [
        {
          Delete: {
            TableName: TABLE,
            Key: { pk: `ABBREVIATION#${kind}#doc`, sk: 'CLAIM' },
            ConditionExpression: '#owner = :me',
            ExpressionAttributeNames: { '#owner': 'entryId' },
            ExpressionAttributeValues: { ':me': 21 },
          },
        },
        { kind: 'release', claim: released },
      ],
    ]);
  });

  it.each<[ChangeEntry['endpoint'], string]>([
    ['Person', 'personId'],
    ['NamePrefix', 'entryId'],
    ['NameSuffix', 'entryId'],
  ])('names a %s owner in the %s attribute, in the claim and in the release condition', (type, attribute) => {
    const [take, release] = claimActions(
      TABLE,
      { type, id: 30 },
      [{ field: 'email', value: 'a@example.org', path: '/Emails/@set/0/email' }],
      [{ field: 'email', value: 'b@example.org' }],
    ).map(([item]) => item);

    expect(take?.Put?.Item?.[attribute]).toBe(30);
    expect(release?.Delete?.ExpressionAttributeNames).toEqual({ '#owner': attribute });
  });
});

describe('existsCheck and transactionOf', () => {
  it('checks that an item exists without writing it', () => {
    const role: ActionRole = { kind: 'requester', requester: 5 };

    expect(existsCheck(TABLE, { pk: 'PERSON#5', sk: 'PERSON' }, role)).toEqual([
      {
        ConditionCheck: {
          TableName: TABLE,
          Key: { pk: 'PERSON#5', sk: 'PERSON' },
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      role,
    ]);
  });

  it('sends the actions in order and keeps their roles in the same order', () => {
    const put = objectPut(TABLE, { pk: 'PERSON#1', sk: 'PERSON' }, null);
    const check = existsCheck(TABLE, { pk: 'PERSON#5', sk: 'PERSON' }, { kind: 'requester', requester: 5 });

    expect(transactionOf([put, check])).toEqual({
      input: { TransactItems: [put[0], check[0]] },
      roles: [put[1], check[1]],
    });
  });
});

describe('withinItemLimit', () => {
  it('passes an item within the limit through unchanged', () => {
    const item = { pk: 'PERSON#1', sk: 'PERSON', text: 'x'.repeat(1_000) };

    expect(withinItemLimit(item, 'person')).toBe(item);
  });

  it('refuses an item over the limit with a validation error, not a storage failure', () => {
    const item = { pk: 'PERSON#1', sk: 'PERSON', text: 'x'.repeat(MAX_ITEM_BYTES) };

    expect(() => withinItemLimit(item, 'person')).toThrow(ValidationFailed);
  });

  it('measures bytes, not characters', () => {
    const item = { pk: 'PERSON#1', sk: 'PERSON', text: '名'.repeat(MAX_ITEM_BYTES / 3) };

    expect(item.text.length).toBeLessThan(MAX_ITEM_BYTES);
    expect(() => withinItemLimit(item, 'person')).toThrow(ValidationFailed);
  });
});
