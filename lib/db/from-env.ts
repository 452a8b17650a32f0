/**
 * What a Lambda container builds once, outside the handler: one DynamoDB client for the table named
 * by `TABLE_NAME` (and `DYNAMODB_ENDPOINT` for DynamoDB Local), shared by every repository.
 */
import { auditLog } from './audit-log';
import { documentClient, type Storage, storageConfigFromEnv } from './client';
import { personList } from './person-list';
import { personRepository } from './person-repository';
import { referenceData } from './reference-data';
import { socialAddressWriter } from './social-address-writer';

let storage: Storage | undefined;

const storageFromEnv = (): Storage => {
  if (!storage) {
    const { tableName, endpoint } = storageConfigFromEnv();
    storage = { client: documentClient(endpoint ? { endpoint } : {}), tableName };
  }
  return storage;
};

export const personRepositoryFromEnv = () => personRepository(storageFromEnv());
export const personListFromEnv = () => personList(storageFromEnv());
export const referenceDataFromEnv = () => referenceData(storageFromEnv());
export const auditLogFromEnv = () => auditLog(storageFromEnv());
export const socialAddressWriterFromEnv = () => socialAddressWriter(storageFromEnv());
