import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { documentClient } from '../../lib/db/client';
import { type PersonRepositoryDeps, personRepository } from '../../lib/db/person-repository';
import { seedReferenceData } from '../../lib/db/reference-data';
import { tableDefinition } from '../../lib/db/table';

export const localClientConfig = (endpoint: string): DynamoDBClientConfig => ({
  endpoint,
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

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
  await seedReferenceData(client, tableName);
  return { client, tableName };
};

/** A document client on the same engine whose middleware stack a test may add faults to. */
export const separateClient = (): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(new DynamoDBClient(localClientConfig(inject('dynamoEndpoint'))), {
    marshallOptions: { removeUndefinedValues: true },
  });

export const testRepository = (table: TestTable, deps: Partial<PersonRepositoryDeps> = {}) =>
  personRepository({ client: table.client, tableName: table.tableName, ...deps });
