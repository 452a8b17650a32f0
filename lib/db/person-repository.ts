/**
 * The Person repository: reads, and writes through one transaction per request (Person, claims,
 * audit entry). Builders in person-items.ts decide what is sent; this file only sends and retries.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '../domain/audit';
import {
  PersonNotFound,
  PreconditionFailed,
  RequesterUnknown,
  ServiceUnavailable,
  ValidationFailed,
} from '../domain/errors';
import { countNewIds, type MergeResult, mergePerson, type Tombstones } from '../domain/merge';
import type { Person } from '../domain/person';
import type { PersonBody } from '../domain/schemas';
import { decodeCancellation } from './cancellation';
import { type IdAllocator, idAllocator } from './ids';
import { personKey } from './keys';
import {
  buildWriteTransaction,
  fromPersonItem,
  MAX_TRANSACTION_ACTIONS,
  type WritePlan,
} from './person-items';
import { storageCall } from './storage-errors';

export interface WriteOutcome {
  person: Person;
  tombstones: Tombstones;
}

export interface UpdateOptions {
  /** The request's `If-Match` header, if any. */
  ifMatch?: string;
}

export interface PersonRepository {
  get(id: number): Promise<Person>;
  create(body: PersonBody, requester: number): Promise<WriteOutcome>;
  update(id: number, body: PersonBody, requester: number, options?: UpdateOptions): Promise<WriteOutcome>;
}

export interface PersonRepositoryDeps {
  client: DynamoDBDocumentClient;
  tableName: string;
  ids?: IdAllocator;
  clock?: () => Date;
  /** Attempts at a write whose transaction met a concurrent one, before giving up with 503. */
  maxAttempts?: number;
  /** Milliseconds to wait before retry `attempt` (1-based). */
  backoff?: (attempt: number) => number;
}

/** Full jitter, capped: spreads colliding writers apart without long waits. */
const jitteredBackoff = (attempt: number) => Math.random() * Math.min(200, 10 * 2 ** attempt);

/** Does an `If-Match` header (a list of strong ETags, or `*`) match this version? */
export const ifMatchAccepts = (header: string, version: number): boolean =>
  header.trim() === '*' || header.split(',').some((tag) => tag.trim() === `"${version}"`);

export const personRepository = ({
  client,
  tableName,
  ids = idAllocator(client, tableName),
  clock = () => new Date(),
  maxAttempts = 12,
  backoff = jitteredBackoff,
}: PersonRepositoryDeps): PersonRepository => {
  /** Sends a write; true when it landed, false when it met a concurrent write and should be retried. */
  const write = async (plan: WritePlan): Promise<boolean> => {
    const { input, roles } = buildWriteTransaction(plan);
    if (roles.length > MAX_TRANSACTION_ACTIONS) {
      throw new ValidationFailed(
        [{ path: '/Emails', message: 'Too many email changes in one request: split them over several' }],
        'The request changes more than one write can hold',
      );
    }
    try {
      await storageCall(() => client.send(new TransactWriteCommand(input)));
      return true;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const outcome = decodeCancellation(error.CancellationReasons ?? [], roles);
      if (!outcome) throw error;
      if (outcome.retry) return false;
      throw outcome.error;
    }
  };

  const retrying = async <T>(attempt: () => Promise<T | undefined>): Promise<T> => {
    for (let n = 1; n <= maxAttempts; n++) {
      const result = await attempt();
      if (result !== undefined) return result;
      if (n < maxAttempts) await new Promise((resolve) => setTimeout(resolve, backoff(n)));
    }
    throw new ServiceUnavailable('The person is being changed by many requests at once', 1);
  };

  const auditOf = (
    merge: MergeResult,
    action: AuditEntry['action'],
    id: number,
    requester: number,
    at: string,
  ) => ({
    id,
    person_id: merge.person.id,
    action,
    requester,
    at,
    changed: merge.changed,
  });

  /** The stored person and whether the requester exists, in one consistent round trip. */
  const readForUpdate = async (id: number, requester: number) => {
    const keys = requester === id ? [personKey(id)] : [personKey(id), personKey(requester)];
    const { Responses, UnprocessedKeys } = await storageCall(() =>
      client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }),
      ),
    );
    if (UnprocessedKeys?.[tableName]) throw new ServiceUnavailable('Storage is busy', 1);
    const items = Responses?.[tableName] ?? [];
    const stored = items.find((item) => item.pk === personKey(id).pk);
    return {
      stored: stored ? fromPersonItem(stored) : undefined,
      requesterExists: items.some((item) => item.pk === personKey(requester).pk),
    };
  };

  return {
    async get(id) {
      const { Item } = await storageCall(() =>
        client.send(new GetCommand({ TableName: tableName, Key: personKey(id), ConsistentRead: true })),
      );
      if (!Item) throw new PersonNotFound(id);
      return fromPersonItem(Item);
    },

    async create(body, requester) {
      const now = clock().toISOString();
      // One block: the person, its sub-objects, then the audit entry.
      const reserved = await ids.reserve(countNewIds(body, true) + 1);
      const nextId = reserved.sequence();
      const merge = mergePerson(null, body, { requester, now, nextId });
      const audit = auditOf(merge, 'create', nextId(), merge.person.CoreMetaData.created_by, now);
      const plan = {
        tableName,
        merge,
        previousVersion: null,
        audit,
        requesterToCheck: requester === 0 ? null : requester,
      };
      return retrying(async () =>
        (await write(plan)) ? { person: merge.person, tombstones: merge.tombstones } : undefined,
      );
    },

    async update(id, body, requester, { ifMatch } = {}) {
      // The id block (when this container needs a new one) and the read go out together: one round
      // trip where there were two in a row, which a cold container always paid.
      const reserving = ids.reserve(countNewIds(body, false) + 1);
      return retrying(async () => {
        const [reserved, { stored, requesterExists }] = await Promise.all([
          reserving,
          readForUpdate(id, requester),
        ]);
        if (!stored) throw new PersonNotFound(id);
        if (!requesterExists) throw new RequesterUnknown(requester);
        const version = stored.CoreMetaData.version;
        if (ifMatch !== undefined && !ifMatchAccepts(ifMatch, version)) throw new PreconditionFailed(version);

        const now = clock().toISOString();
        const nextId = reserved.sequence();
        const merge = mergePerson(stored, body, { requester, now, nextId });
        if (merge.changed.length === 0) return { person: stored, tombstones: merge.tombstones };
        const audit = auditOf(merge, 'update', nextId(), requester, now);
        const landed = await write({
          tableName,
          merge,
          previousVersion: version,
          audit,
          requesterToCheck: null,
        });
        return landed ? { person: merge.person, tombstones: merge.tombstones } : undefined;
      });
    },
  };
};
