import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { seedVocabulary } from '../../infra/handlers/seed/seed-vocabulary';
import { type PersonRepositoryDeps, personRepository } from '../../lib/db/person-repository';
import { documentClient, type Storage } from '../../lib/db/table/client';
import { tableDefinition } from '../../lib/db/table/definition';
import type { Key } from '../../lib/db/table/keys';
import { ensureTimeToLive, localClientConfig } from '../../lib/local/dynamo-local';
import { type StreamConsumer, startStreamPoller } from '../../lib/local/streams';

export interface TestTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * A fresh table in the run's DynamoDB Local, built from the table definition and seeded, without its
 * stream: these tests call the handlers themselves and read no stream (those that do start the local
 * server, which has a DynamoDB Local of its own). DynamoDB Local 10.3.0 makes every write 45 times
 * slower in each table created after some 40 000 stream records exist in the process (measured: 5 000
 * writes in 1.5 s before, 67 s after; a table without a stream still 0.9 s), and the suite's postings
 * are several times that. A test of a stream consumer asks for the stream (`stream: true`) and keeps
 * its records to a few thousand.
 */
export const createTestTable = async (
  clientConfig: Partial<DynamoDBClientConfig> = {},
  { stream = false }: { stream?: boolean } = {},
): Promise<TestTable> => {
  const client = documentClient({ ...localClientConfig(inject('dynamoEndpoint')), ...clientConfig });
  const tableName = `test-${randomUUID()}`;
  const { StreamSpecification, ...definition } = tableDefinition(tableName);
  await client.send(new CreateTableCommand(stream ? { ...definition, StreamSpecification } : definition));
  await ensureTimeToLive(client, tableName);
  await seedVocabulary({ client, tableName });
  return { client, tableName };
};

/**
 * Writes items straight into a test table, 25 to a BatchWriteItem and `concurrency` batches at a time,
 * asking again for what DynamoDB Local leaves unprocessed: thousands of persons seeded in seconds,
 * without the creates that would take minutes.
 */
export const putItems = async (
  table: TestTable,
  items: readonly object[],
  { concurrency }: { concurrency: number },
) => {
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, n) =>
    items.slice(n * 25, n * 25 + 25),
  );
  const writeBatch = async (batch: readonly object[]) => {
    let pending: Record<string, unknown>[] = batch.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const { UnprocessedItems } = await table.client.send(
        new BatchWriteCommand({ RequestItems: { [table.tableName]: pending as never } }),
      );
      pending = (UnprocessedItems?.[table.tableName] ?? []) as Record<string, unknown>[];
    }
  };
  for (let start = 0; start < batches.length; start += concurrency)
    await Promise.all(batches.slice(start, start + concurrency).map(writeBatch));
};

export const testRepository = (table: TestTable, deps: Partial<PersonRepositoryDeps> = {}) =>
  personRepository({ client: table.client, tableName: table.tableName, ...deps });

/**
 * A table of its own with a stream, fed to one consumer by the local stream poller as `npm start` feeds
 * it (Lambda's event source mapping, locally); stop the poller when the file is done.
 */
export const createStreamFedTable = async (
  consumerOf: (table: TestTable) => StreamConsumer,
  intervalMs: number,
) => {
  const table = await createTestTable({}, { stream: true });
  const poller = await startStreamPoller({
    endpoint: inject('dynamoEndpoint'),
    tableName: table.tableName,
    consumers: [consumerOf(table)],
    intervalMs,
  });
  return { table, poller };
};

/**
 * A survivor's link to a merged person (`mergedFromKey`) as a merge made before records were kept left
 * it: without the merge's record, which is then rebuilt from the MERGE entries (issue #58).
 */
export const forgetMergeRecord = (storage: Storage, link: Key) =>
  storage.client.send(
    new UpdateCommand({
      TableName: storage.tableName,
      Key: { pk: link.pk, sk: link.sk },
      UpdateExpression: 'REMOVE #record',
      ExpressionAttributeNames: { '#record': 'record' },
    }),
  );
