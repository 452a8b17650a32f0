import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PersonTable, tableShapeFrom } from '../../infra/table';
import { TIME_TO_LIVE_ATTRIBUTE, tableDefinition, timeToLiveDefinition } from '../../lib/db/table/definition';
import { CHANGE_ID_INDEX, CHANGE_LIST_INDEX, PERSON_LIST_INDEX } from '../../lib/db/table/keys';
import { only, type Resource } from './support';

const tableOf = (devStack: boolean, withholdIndexes?: string[]): Resource => {
  const stack = new Stack(new App(), 'TableOnly');
  new PersonTable(stack, 'Table', { devStack, ...(withholdIndexes ? { withholdIndexes } : {}) });
  return only(Template.fromStack(stack).findResources('AWS::DynamoDB::Table'))[1] as Resource;
};

const sortedBy = <T>(items: T[] | undefined, key: (item: T) => string) =>
  [...(items ?? [])].sort((a, b) => key(a).localeCompare(key(b)));

describe('the CDK table', () => {
  const definition = tableDefinition('unused');
  const table = tableOf(false);

  it('has the key schema of the table definition', () => {
    expect(table.Properties.KeySchema).toEqual(definition.KeySchema);
  });

  it('defines the attributes of the table definition, and no others', () => {
    const byName = (attribute: { AttributeName?: string }) => attribute.AttributeName ?? '';
    expect(sortedBy(table.Properties.AttributeDefinitions, byName)).toEqual(
      sortedBy(definition.AttributeDefinitions, byName),
    );
  });

  it('deletes expired items by the TTL attribute of the table definition (idempotency records)', () => {
    expect(table.Properties.TimeToLiveSpecification).toEqual({
      AttributeName: timeToLiveDefinition('unused').TimeToLiveSpecification?.AttributeName,
      Enabled: true,
    });
    expect(TIME_TO_LIVE_ATTRIBUTE).toBe('expiration');
  });

  it('has the global secondary indexes of the table definition, projection included', () => {
    expect(table.Properties.GlobalSecondaryIndexes).toEqual(definition.GlobalSecondaryIndexes);
  });

  it('has the ChangeHistory indexes: byChange by partition and time, byChangeId by numeric id, keys only', () => {
    const indexes = table.Properties.GlobalSecondaryIndexes as Resource[];
    const index = (name: string) => indexes.find((candidate) => candidate.IndexName === name);
    expect(indexes.map((candidate) => candidate.IndexName).sort()).toEqual(
      [PERSON_LIST_INDEX, CHANGE_LIST_INDEX, CHANGE_ID_INDEX].sort(),
    );
    expect(index(CHANGE_LIST_INDEX)).toEqual({
      IndexName: CHANGE_LIST_INDEX,
      KeySchema: [
        { AttributeName: 'changePk', KeyType: 'HASH' },
        { AttributeName: 'changeSk', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    });
    expect(index(CHANGE_ID_INDEX)).toEqual({
      IndexName: CHANGE_ID_INDEX,
      KeySchema: [{ AttributeName: 'changeId', KeyType: 'HASH' }],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    });
    const types = Object.fromEntries(
      (table.Properties.AttributeDefinitions as { AttributeName: string; AttributeType: string }[]).map(
        ({ AttributeName, AttributeType }) => [AttributeName, AttributeType],
      ),
    );
    expect(types).toMatchObject({ changePk: 'S', changeSk: 'S', changeId: 'N' });
  });

  it('bills on demand, streams new and old images, and keeps point-in-time recovery', () => {
    expect(table.Properties.BillingMode).toBe(definition.BillingMode);
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(definition.StreamSpecification?.StreamViewType).toBe('NEW_AND_OLD_IMAGES');
    expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
  });

  it('is deletion-protected and retained by default', () => {
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
  });

  it('is unprotected and destroyed with a dev stack', () => {
    const dev = tableOf(true);
    expect(dev.Properties.DeletionProtectionEnabled).toBe(false);
    expect(dev.DeletionPolicy).toBe('Delete');
  });

  it('lets CloudFormation name the table rather than taking the definition’s local name', () => {
    expect(table.Properties.TableName).toBeUndefined();
  });
});

describe('withholdIndexes', () => {
  it('leaves the named indexes and their key attributes out, for an existing table that gains two at once', () => {
    const staged = tableOf(false, [CHANGE_ID_INDEX]);
    expect(
      (staged.Properties.GlobalSecondaryIndexes as Resource[]).map((index) => index.IndexName).sort(),
    ).toEqual([PERSON_LIST_INDEX, CHANGE_LIST_INDEX].sort());
    expect(
      (staged.Properties.AttributeDefinitions as { AttributeName: string }[]).map(
        ({ AttributeName }) => AttributeName,
      ),
    ).not.toContain('changeId');
  });

  it('refuses a name the table definition does not have', () => {
    expect(() => tableOf(false, ['byChanges'])).toThrow(/no index byChanges/);
  });
});

describe('tableShapeFrom', () => {
  it('refuses a definition it cannot map rather than dropping part of it', () => {
    const definition = tableDefinition('t');
    expect(() =>
      tableShapeFrom({
        ...definition,
        LocalSecondaryIndexes: [
          { IndexName: 'x', KeySchema: definition.KeySchema, Projection: { ProjectionType: 'ALL' } },
        ],
      }),
    ).toThrow(/Local secondary indexes/);
    expect(() => tableShapeFrom({ ...definition, BillingMode: 'PROVISIONED' })).toThrow(/on-demand/);
    expect(() =>
      tableShapeFrom({
        ...definition,
        AttributeDefinitions: definition.AttributeDefinitions?.filter((a) => a.AttributeName !== 'listSk'),
      }),
    ).toThrow(/listSk/);
  });
});
