import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { documentClient } from '../../lib/db/client';
import { type PersonRepositoryDeps, personRepository } from '../../lib/db/person-repository';
import { tableDefinition } from '../../lib/db/table';
import { seedVocabulary } from '../../lib/db/vocabulary-repository';
import { localClientConfig } from '../../lib/local/dynamo-local';

export interface TestTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/** A fresh table in the run's DynamoDB Local, built from the table definition and seeded. */
export const createTestTable = async (
  clientConfig: Partial<DynamoDBClientConfig> = {},
): Promise<TestTable> => {
  const client = documentClient({ ...localClientConfig(inject('dynamoEndpoint')), ...clientConfig });
  const tableName = `test-${randomUUID()}`;
  await client.send(new CreateTableCommand(tableDefinition(tableName)));
  await seedVocabulary({ client, tableName });
  return { client, tableName };
};

export const testRepository = (table: TestTable, deps: Partial<PersonRepositoryDeps> = {}) =>
  personRepository({ client: table.client, tableName: table.tableName, ...deps });
