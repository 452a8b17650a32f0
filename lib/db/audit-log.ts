/**
 * A person's change history. AuditEntry sort keys are the person's versions (keys.ts), and every
 * stored change writes exactly one, so the total is the person's version and any page is one key
 * range: two calls whatever the history's length.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '../domain/audit';
import { PersonNotFound } from '../domain/errors';
import type { Window } from '../domain/listing';
import type { Storage } from './client';
import { auditKey, personKey } from './keys';
import { storageCall } from './storage-errors';

export interface AuditPage {
  total: number;
  entries: AuditEntry[];
}

export interface AuditLog {
  /** Entries newest first; `window.offset` counts from the newest. */
  page(personId: number, window: Window): Promise<AuditPage>;
}

export const auditLog = ({ client, tableName }: Storage): AuditLog => ({
  async page(personId, { offset, limit }) {
    const { Item } = await storageCall(() =>
      client.send(
        new GetCommand({
          TableName: tableName,
          Key: personKey(personId),
          ProjectionExpression: 'CoreMetaData.version',
          ConsistentRead: true,
        }),
      ),
    );
    if (!Item) throw new PersonNotFound(personId);
    const total = (Item.CoreMetaData as { version: number }).version;
    const newest = total - offset;
    const oldest = Math.max(1, newest - limit + 1);
    if (newest < 1 || limit === 0) return { total, entries: [] };
    const { Items } = await storageCall(() =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :oldest AND :newest',
          ExpressionAttributeValues: {
            ':pk': personKey(personId).pk,
            ':oldest': auditKey(personId, oldest).sk,
            ':newest': auditKey(personId, newest).sk,
          },
          ScanIndexForward: false,
          ConsistentRead: true,
        }),
      ),
    );
    return {
      total,
      entries: (Items ?? []).map(({ id, person_id, action, requester, at, changed }) => ({
        id,
        person_id,
        action,
        requester,
        at,
        changed,
      })) as AuditEntry[],
    };
  },
});
