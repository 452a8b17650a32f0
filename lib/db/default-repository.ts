/**
 * What a Lambda container builds once, outside the handler: the DynamoDB client and the repository,
 * from `TABLE_NAME` (and `DYNAMODB_ENDPOINT` for DynamoDB Local).
 */
import { documentClient, storageConfigFromEnv } from './client';
import { type PersonRepository, personRepository } from './person-repository';

export const personRepositoryFromEnv = (env: NodeJS.ProcessEnv = process.env): PersonRepository => {
  const { tableName, endpoint } = storageConfigFromEnv(env);
  return personRepository({ client: documentClient(endpoint ? { endpoint } : {}), tableName });
};
