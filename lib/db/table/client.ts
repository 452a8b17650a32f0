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

/**
 * The DynamoDB client and the document client built on it, which share its connections: repositories
 * take the document client; a library that marshals items itself (Powertools' persistence layers)
 * takes the raw one.
 */
export interface DynamoClients {
  raw: DynamoDBClient;
  document: DynamoDBDocumentClient;
}

export const dynamoClients = (config: DynamoDBClientConfig = {}): DynamoClients => {
  const raw = new DynamoDBClient(config);
  return {
    raw,
    document: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }),
  };
};

export const documentClient = (config: DynamoDBClientConfig = {}): DynamoDBDocumentClient =>
  dynamoClients(config).document;
