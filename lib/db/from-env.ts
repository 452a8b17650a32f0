/**
 * What a Lambda container builds once, outside the handler: one DynamoDB client for the table named
 * by `TABLE_NAME` (and `DYNAMODB_ENDPOINT` for DynamoDB Local), shared by every repository.
 */
import { auditLog } from './history/audit-log';
import { changeHistory } from './history/change-history';
import { personList } from './person/person-list';
import { personRepository } from './person/person-repository';
import { socialAddressWriter } from './person/social-address-writer';
import { documentClient, type Storage, storageConfigFromEnv } from './table/client';
import { vocabularyRepository } from './vocabulary/vocabulary-repository';

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
