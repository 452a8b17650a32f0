/**
 * What a Lambda container builds once, outside the handler: one DynamoDB client for the table named
 * by `TABLE_NAME` (and `DYNAMODB_ENDPOINT` for DynamoDB Local), shared by every repository, and the
 * raw client under it for what takes one (Powertools' persistence layers); each command an X-Ray
 * subsegment where tracing is on (lib/tracer.ts).
 */

import type { EventPublisher } from '../domain/ports/feed';
import { traceClient } from '../tracer';
import { duplicateReads } from './duplicates/duplicate-reads';
import { pairStore } from './duplicates/pair-store';
import { appendEvents } from './feed/feed-appender';
import { feedLog } from './feed/feed-log';
import { auditLog } from './history/audit-log';
import { changeHistory } from './history/change-history';
import { idempotencyStore } from './idempotency/idempotency-store';
import { personExport } from './person/read/person-export';
import { personList } from './person/read/person-list';
import { countPostings } from './person/read/posting-counts';
import { reconcileReader } from './person/read/reconcile-candidates';
import { socialAddressWriter } from './person/write/social-address-writer';
import { personRepository } from './person-repository';
import { type DynamoClients, dynamoClients, type Storage, storageConfigFromEnv } from './table/client';
import { vocabularyRepository } from './vocabulary/vocabulary-repository';
import { laneStore } from './webhooks/lane-store';
import { subscriptionStore } from './webhooks/subscription-store';

let container: { storage: Storage; raw: DynamoClients['raw'] } | undefined;

const containerFromEnv = () => {
  if (!container) {
    const { tableName, endpoint } = storageConfigFromEnv();
    const { raw, document } = dynamoClients(endpoint ? { endpoint } : {});
    // The document client shares the raw client's middleware stack: both are traced.
    traceClient(raw);
    container = { storage: { client: document, tableName }, raw };
  }
  return container;
};

const storageFromEnv = (): Storage => containerFromEnv().storage;

/** The raw DynamoDB client under the container's document client (the same connections). */
export const rawClientFromEnv = () => containerFromEnv().raw;

export const personRepositoryFromEnv = () => personRepository(storageFromEnv());
export const personListFromEnv = () => personList(storageFromEnv());
export const personExportFromEnv = () => personExport(storageFromEnv());
export const vocabularyRepositoryFromEnv = () => vocabularyRepository(storageFromEnv());
export const changeHistoryFromEnv = () => changeHistory(storageFromEnv());
export const auditLogFromEnv = () => auditLog(storageFromEnv());
export const feedLogFromEnv = () => feedLog(storageFromEnv());
export const duplicateReadsFromEnv = () => duplicateReads(storageFromEnv());
export const pairStoreFromEnv = () => pairStore(storageFromEnv());
export const subscriptionStoreFromEnv = () => subscriptionStore(storageFromEnv());
export const laneStoreFromEnv = () => laneStore(storageFromEnv());
export const reconcileReaderFromEnv = () => reconcileReader(storageFromEnv());
export const socialAddressWriterFromEnv = () => socialAddressWriter(storageFromEnv());
export const postingCounterFromEnv = () => countPostings(storageFromEnv());
export const feedAppenderFromEnv = (publish: EventPublisher) => appendEvents(storageFromEnv(), { publish });
/** The idempotency records of keyed writes, in the same table, on the raw client (Powertools). */
export const idempotencyStoreFromEnv = () =>
  idempotencyStore({ client: rawClientFromEnv(), tableName: storageFromEnv().tableName });
