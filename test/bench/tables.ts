/**
 * The benchmark's tables: the stack's table definition (lib/db/table/definition.ts) without its
 * stream, but for the change feed's (`{ stream: true }`: the section measures what the stream
 * delivers). DynamoDB Local keeps stream records in the same in-memory database and slows every write
 * down the more it holds (seeding 5 000 persons took 51 s with the stream, 3.5 s without); in AWS the stream costs a
 * write nothing, so a floor measured with it would flatter the handlers.
 */
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { seedVocabulary } from '../../infra/handlers/seed/seed-vocabulary';
import { markPostingCountsIfEmpty } from '../../lib/db/person/read/posting-counts';
import { tableDefinition } from '../../lib/db/table/definition';
import { ensureTimeToLive } from '../../lib/local/dynamo-local';

export const createBenchTable = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  { stream = false }: { stream?: boolean } = {},
) => {
  const { StreamSpecification, ...definition } = tableDefinition(tableName);
  await client.send(new CreateTableCommand(stream ? { ...definition, StreamSpecification } : definition));
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await new Promise((wait) => setTimeout(wait, 100));
  }
  await ensureTimeToLive(client, tableName);
  await seedVocabulary({ client, tableName });
  // The seeding counts its postings as the stream would (seed.ts, `countPostings`); a bench handler's
  // own writes are not counted (no stream), which leaves the counts a few postings short.
  await markPostingCountsIfEmpty({ client, tableName }, new Date().toISOString());
};
