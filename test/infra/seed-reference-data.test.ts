/** The reference-data custom resource's handler, against DynamoDB Local: what a deploy writes. */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { SEEDED_ID_CEILING, SEEDED_VOCABULARY } from '../../infra/handlers/seed/vocabulary-seed';
import { buildHandler } from '../../infra/handlers/seed-reference-data';
import { changeHistory } from '../../lib/db/history/change-history';
import { documentClient } from '../../lib/db/table/client';
import { tableDefinition } from '../../lib/db/table/definition';
import { idCounterKey } from '../../lib/db/table/keys';
import { vocabularyReader } from '../../lib/db/vocabulary/vocabulary-repository';
import { VOCABULARY_KINDS } from '../../lib/domain/vocabulary';
import { localClientConfig } from '../../lib/local/dynamo-local';

const client = documentClient(localClientConfig(inject('dynamoEndpoint')));

const event = (
  RequestType: 'Create' | 'Update' | 'Delete',
  TableName: string,
  PhysicalResourceId?: string,
): CloudFormationCustomResourceEvent =>
  ({
    RequestType,
    ServiceToken: 'arn:aws:lambda:local:0:function:framework',
    ResponseURL: 'https://example.invalid/response',
    StackId: 'arn:aws:cloudformation:local:0:stack/PersonServiceStack/1',
    RequestId: randomUUID(),
    LogicalResourceId: 'ReferenceData',
    ResourceType: 'Custom::ReferenceData',
    ResourceProperties: { ServiceToken: 'arn:aws:lambda:local:0:function:framework', TableName },
    ...(PhysicalResourceId ? { PhysicalResourceId, OldResourceProperties: {} } : {}),
  }) as CloudFormationCustomResourceEvent;

const emptyTable = async () => {
  const tableName = `seed-${randomUUID()}`;
  await client.send(new CreateTableCommand(tableDefinition(tableName)));
  return tableName;
};

const itemCount = async (TableName: string) => (await client.send(new ScanCommand({ TableName }))).Count;

const SEEDED = VOCABULARY_KINDS.reduce((sum, kind) => sum + SEEDED_VOCABULARY[kind].length, 0);

describe('seed-reference-data (custom resource)', () => {
  const handler = buildHandler({ client });
  let tableName: string;
  let itemsAfterCreate: number | undefined;

  beforeAll(async () => {
    tableName = await emptyTable();
  });

  it('writes every seeded NamePrefix and NameSuffix on create, as the service reads them', async () => {
    const result = await handler(event('Create', tableName));
    expect(result).toEqual({ PhysicalResourceId: `reference-data:${tableName}` });
    const vocabulary = vocabularyReader({ client, tableName });
    for (const kind of VOCABULARY_KINDS)
      expect(
        (await vocabulary.list(kind)).map(({ id, term, abbreviation }) => ({ id, term, abbreviation })),
      ).toEqual(SEEDED_VOCABULARY[kind]);
    itemsAfterCreate = await itemCount(tableName);
  });

  it('gives each entry its create in ChangeHistory, by nobody', async () => {
    const history = changeHistory({ client, tableName });
    const { total, changes } = await history.page({
      descending: false,
      window: { offset: 0, limit: SEEDED + 1 },
    });
    expect(total).toBe(SEEDED);
    expect(changes.map(({ entry }) => [entry.action, entry.version, entry.requester])).toEqual(
      Array.from({ length: SEEDED }, () => ['create', 1, null]),
    );
  });

  it('raises the id counter past the seeded ids, so no allocated id repeats one', async () => {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: idCounterKey }));
    expect(Item?.value).toBeGreaterThanOrEqual(SEEDED_ID_CEILING);
  });

  it('writes nothing more on update, keeping the physical id', async () => {
    const result = await handler(event('Update', tableName, `reference-data:${tableName}`));
    expect(result).toEqual({ PhysicalResourceId: `reference-data:${tableName}` });
    expect(await itemCount(tableName)).toBe(itemsAfterCreate);
  });

  it('leaves the data with the table on delete, keeping the physical id', async () => {
    const result = await handler(event('Delete', tableName, 'reference-data:old'));
    expect(result).toEqual({ PhysicalResourceId: 'reference-data:old' });
    expect(await itemCount(tableName)).toBe(itemsAfterCreate);
  });
});
