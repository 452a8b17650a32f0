import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface StorageConfig {
  tableName: string;
  /** Overrides the DynamoDB endpoint, for DynamoDB Local. */
  endpoint?: string;
}

/** Reads the storage settings a Lambda container is given: `TABLE_NAME` and, locally, `DYNAMODB_ENDPOINT`. */
export const storageConfigFromEnv = (env: NodeJS.ProcessEnv = process.env): StorageConfig => {
  const tableName = env.TABLE_NAME;
  if (!tableName) throw new Error('TABLE_NAME is not set');
  return { tableName, ...(env.DYNAMODB_ENDPOINT ? { endpoint: env.DYNAMODB_ENDPOINT } : {}) };
};

/** A document client and the table it works on: what every repository is built from. */
export interface Storage {
  client: DynamoDBDocumentClient;
  tableName: string;
}

export const documentClient = (config: DynamoDBClientConfig = {}): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
