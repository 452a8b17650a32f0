/** The reference-data custom resource's handler, against DynamoDB Local: what a deploy writes. */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { buildHandler } from '../../infra/handlers/seed-reference-data';
import { documentClient } from '../../lib/db/client';
import { referenceData } from '../../lib/db/reference-data';
import { tableDefinition } from '../../lib/db/table';
import { PREFIXES, SUFFIXES } from '../../lib/domain/reference-data';
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

describe('seed-reference-data (custom resource)', () => {
  const handler = buildHandler({ client });
  let tableName: string;

  beforeAll(async () => {
    tableName = await emptyTable();
  });

  it('writes every Prefix and Suffix on create, as the service reads them', async () => {
    const result = await handler(event('Create', tableName));
    expect(result).toEqual({ PhysicalResourceId: `reference-data:${tableName}` });
    const reference = referenceData({ client, tableName });
    expect(await reference.list('Prefix')).toEqual(PREFIXES.map(({ id, prefix }) => ({ id, prefix })));
    expect(await reference.list('Suffix')).toEqual(SUFFIXES.map(({ id, suffix }) => ({ id, suffix })));
  });

  it('writes them again on update, leaving the same items', async () => {
    const result = await handler(event('Update', tableName, `reference-data:${tableName}`));
    expect(result).toEqual({ PhysicalResourceId: `reference-data:${tableName}` });
    expect(await itemCount(tableName)).toBe(PREFIXES.length + SUFFIXES.length);
  });

  it('leaves the data with the table on delete, keeping the physical id', async () => {
    const result = await handler(event('Delete', tableName, 'reference-data:old'));
    expect(result).toEqual({ PhysicalResourceId: 'reference-data:old' });
    expect(await itemCount(tableName)).toBe(PREFIXES.length + SUFFIXES.length);
  });
});
