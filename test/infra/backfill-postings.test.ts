/**
 * The postings backfill custom resource's handler (onEvent and isComplete), against DynamoDB Local:
 * a call with too little time left says it is not complete and keeps its place; the next finishes.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { BACKFILL_SEGMENTS, buildHandler } from '../../infra/handlers/backfill-postings';
import { personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { createTestTable, testRepository } from '../support/dynamo';
import { checkInvariants, scanAll } from '../support/invariants';

const event = (RequestType: 'Create' | 'Delete', TableName: string): CloudFormationCustomResourceEvent =>
  ({
    RequestType,
    ServiceToken: 'arn:aws:lambda:local:0:function:framework',
    ResponseURL: 'https://example.invalid/response',
    StackId: 'arn:aws:cloudformation:local:0:stack/PersonServiceStack/1',
    RequestId: randomUUID(),
    LogicalResourceId: 'PostingsBackfill',
    ResourceType: 'Custom::PostingsBackfill',
    ResourceProperties: {
      ServiceToken: 'arn:aws:lambda:local:0:function:framework',
      TableName,
      BackfillVersion: '1',
    },
    ...(RequestType === 'Delete' ? { PhysicalResourceId: `postings-backfill:${TableName}` } : {}),
  }) as CloudFormationCustomResourceEvent;

const withTime = (ms: number) => ({ getRemainingTimeInMillis: () => ms });

describe('backfill-postings (custom resource)', () => {
  it('works while it has time, says whether it is done, and the next call goes on to the end', async () => {
    const table = await createTestTable();
    const api = personApi(testRepository(table));
    for (let n = 0; n < 5; n++) await api.post(personBody('Ada', uniqueTag('Byron'), uniqueEmail()));
    for (const { pk, sk } of (await scanAll(table)).filter((item) => item.type === 'Posting'))
      await table.client.send(new DeleteCommand({ TableName: table.tableName, Key: { pk, sk } }));
    const handler = buildHandler({ client: table.client });

    // Less than the minute it keeps in hand: no page taken.
    expect(await handler(event('Create', table.tableName), withTime(30_000))).toEqual({
      PhysicalResourceId: `postings-backfill:${table.tableName}`,
      IsComplete: false,
    });
    expect((await scanAll(table)).filter((item) => item.type === 'Posting')).toEqual([]);

    expect(await handler(event('Create', table.tableName), withTime(600_000))).toMatchObject({
      IsComplete: true,
    });
    expect(await checkInvariants(table)).toEqual([]);
    const positions = (await scanAll(table)).filter((item) => item.type === 'Backfill');
    expect(positions).toHaveLength(BACKFILL_SEGMENTS);
    expect(positions.reduce((sum, item) => sum + (item.progress as { persons: number }).persons, 0)).toBe(5);
  });

  it('leaves everything as it is on delete', async () => {
    const table = await createTestTable();
    const before = await scanAll(table);
    expect(
      await buildHandler({ client: table.client })(event('Delete', table.tableName), withTime(600_000)),
    ).toEqual({
      PhysicalResourceId: `postings-backfill:${table.tableName}`,
      IsComplete: true,
    });
    expect(await scanAll(table)).toEqual(before);
  });
});
