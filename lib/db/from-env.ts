/**
 * What a Lambda container builds once, outside the handler: one DynamoDB client for the table named
 * by `TABLE_NAME` (and `DYNAMODB_ENDPOINT` for DynamoDB Local), shared by every repository.
 */
import { auditLog } from './audit-log';
import { changeHistory } from './change-history';
import { documentClient, type Storage, storageConfigFromEnv } from './client';
import { personList } from './person-list';
import { personRepository } from './person-repository';
import { socialAddressWriter } from './social-address-writer';
import { vocabularyRepository } from './vocabulary-repository';

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
export const vocabularyRepositoryFromEnv = () => vocabularyRepository(storageFromEnv());
export const changeHistoryFromEnv = () => changeHistory(storageFromEnv());
export const auditLogFromEnv = () => auditLog(storageFromEnv());
export const socialAddressWriterFromEnv = () => socialAddressWriter(storageFromEnv());
