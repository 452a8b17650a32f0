/**
 * The Person repository: reads, and writes through one versioned transaction per request (Person,
 * ChangeHistory entry, claims, vocabulary checks). person-write.ts plans what is sent; this file reads
 * what a plan needs, sends it (the postings' prelude and chain through search/send-with-postings.ts)
 * and retries.
 */
import { randomUUID } from 'node:crypto';
import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { NO_ORIGIN } from '../../domain/change-history';
import { PersonNotFound, RequesterUnknown, ServiceUnavailable } from '../../domain/errors';
import type { Tombstones } from '../../domain/patch';
import { NO_ABBREVIATIONS, type Person } from '../../domain/person';
import type { PersonBody } from '../../domain/schemas';
import type { SearchTerms } from '../../domain/search';
import type { VocabularyKind } from '../../domain/vocabulary';
import { logger as defaultLogger } from '../../logger';
import { retryDeadline } from '../../timeouts';
import { sendWithPostings } from '../search/send-with-postings';
import type { Storage } from '../table/client';
import { personKey, postingsPendingKey } from '../table/keys';
import { storageCall } from '../table/storage-errors';
import { type VocabularyReader, vocabularyReader } from '../vocabulary/vocabulary-repository';
import { type IdAllocator, idAllocator } from '../write/ids';
import {
  checkPreconditions,
  jitteredBackoff,
  objectQueue,
  type RetryOptions,
  retrying,
  type UpdateOptions,
  type WriteOptions,
} from '../write/send';
import { fromPersonItem } from './person-items';
import {
  CREATE,
  idsToReserve,
  type PersonWritePlan,
  personWrite,
  planIds,
  planPersonWrite,
  vocabularyToRead,
  type WriteStart,
} from './person-write';

export interface WriteOutcome {
  person: Person;
  tombstones: Tombstones;
}

export interface PersonRepository {
  get(id: number): Promise<Person>;
  create(body: PersonBody, requester: number, options?: WriteOptions): Promise<WriteOutcome>;
  update(id: number, body: PersonBody, requester: number, options?: UpdateOptions): Promise<WriteOutcome>;
}

export type PersonRepositoryDeps = Storage & {
  ids?: IdAllocator;
  clock?: () => Date;
  vocabulary?: VocabularyReader;
  logger?: Pick<typeof defaultLogger, 'warn'>;
} & Partial<Pick<RetryOptions, 'backoff'>>;

export const personRepository = ({
  client,
  tableName,
  ids = idAllocator(client, tableName),
  clock = () => new Date(),
  vocabulary = vocabularyReader({ client, tableName }),
  backoff = jitteredBackoff,
  logger = defaultLogger,
}: PersonRepositoryDeps): PersonRepository => {
  const queue = objectQueue();
  /** The vocabulary entries the write may point at; no call at all when it points at none. */
  const abbreviationsFor = (start: WriteStart, body: PersonBody) => {
    const referenced = vocabularyToRead(start, body);
    const none = Object.values(referenced).every((list) => list.length === 0);
    return none ? NO_ABBREVIATIONS : vocabulary.abbreviations(referenced as Record<VocabularyKind, number[]>);
  };

  /**
   * The stored person, the terms of postings an unfinished write left (postings.ts) and whether the
   * requester exists, in one consistent round trip.
   */
  const readForUpdate = async (id: number, requester: number) => {
    const keys = [personKey(id), postingsPendingKey(id), ...(requester === id ? [] : [personKey(requester)])];
    const { Responses, UnprocessedKeys } = await storageCall(() =>
      client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }),
      ),
    );
    if (UnprocessedKeys?.[tableName]) throw new ServiceUnavailable('Storage is busy', 1);
    const items = Responses?.[tableName] ?? [];
    const stored = items.find((item) => item.pk === personKey(id).pk && item.sk === personKey(id).sk);
    const pending = items.find((item) => item.sk === postingsPendingKey(id).sk);
    return {
      stored: stored ? fromPersonItem(stored) : undefined,
      pending: pending ? (pending.terms as SearchTerms) : null,
      requesterExists: items.some((item) => item.pk === personKey(requester).pk),
    };
  };

  /** Sends a plan with its postings (search/send-with-postings.ts): false when it should be retried. */
  const send = (plan: PersonWritePlan, deadline: number) => {
    const token = randomUUID();
    return sendWithPostings(client, personWrite(tableName, plan, token), {
      tableName,
      personId: plan.patched.person.id,
      token,
      hadPending: plan.postings.pending !== null,
      retry: { deadline, backoff },
      logger,
    });
  };
  const outcomeOf = ({ patched }: PersonWritePlan): WriteOutcome => ({
    person: patched.person,
    tombstones: patched.tombstones,
  });

  return {
    async get(id) {
      const { Item } = await storageCall(() =>
        client.send(new GetCommand({ TableName: tableName, Key: personKey(id), ConsistentRead: true })),
      );
      if (!Item) throw new PersonNotFound(id);
      return fromPersonItem(Item);
    },

    async create(body, requester, { origin = NO_ORIGIN, deadline = retryDeadline() } = {}) {
      // One block: the person, its sub-objects, then the ChangeHistory entry.
      const [reserved, abbreviations] = await Promise.all([
        ids.reserve(idsToReserve('create', body)),
        abbreviationsFor(CREATE, body),
      ]);
      const plan = planPersonWrite({
        tableName,
        start: CREATE,
        body,
        requester,
        now: clock().toISOString(),
        ...planIds(reserved),
        abbreviations,
        origin,
      });
      return retrying({ deadline, backoff }, async () =>
        (await send(plan, deadline)) ? outcomeOf(plan) : undefined,
      );
    },

    async update(
      id,
      body,
      requester,
      { conditions = {}, origin = NO_ORIGIN, deadline = retryDeadline() } = {},
    ) {
      // The id block (when this container needs a new one) and the read go out together: one round
      // trip where there were two in a row, which a cold container always paid.
      const reserving = ids.reserve(idsToReserve('update', body));
      // Awaited only when the queue reaches this write: marked handled now, so an id block that fails
      // while the write waits (storage down) is this request's 503, not an unhandled rejection that
      // ends the process serving it.
      reserving.catch(() => undefined);
      return queue(personKey(id).pk, () =>
        retrying({ deadline, backoff }, async () => {
          const [reserved, { stored, pending, requesterExists }] = await Promise.all([
            reserving,
            readForUpdate(id, requester),
          ]);
          if (!stored) throw new PersonNotFound(id);
          if (!requesterExists) throw new RequesterUnknown(requester);
          checkPreconditions(conditions, stored.CoreMetaData.version, 'person');

          const start: WriteStart = { kind: 'update', stored, pending };
          const plan = planPersonWrite({
            tableName,
            start,
            body,
            requester,
            now: clock().toISOString(),
            ...planIds(reserved),
            abbreviations: await abbreviationsFor(start, body),
            origin,
          });
          if (plan.patched.changed.length === 0)
            return { person: stored, tombstones: plan.patched.tombstones };
          return (await send(plan, deadline)) ? outcomeOf(plan) : undefined;
        }),
      );
    },
  };
};
