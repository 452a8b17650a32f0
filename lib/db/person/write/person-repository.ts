/**
 * The Person repository: reads, and writes through one versioned transaction per request (Person,
 * ChangeHistory entry, claims, vocabulary checks). person-write.ts plans what is sent; this file reads
 * what a plan needs, sends it (the postings' prelude and chain through write/send-with-postings.ts)
 * and retries.
 */
import { randomUUID } from 'node:crypto';
import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { NO_ORIGIN } from '../../../domain/change-history';
import {
  PersonMerged,
  PersonNotFound,
  PrincipalAlreadyBound,
  RequesterMerged,
  RequesterMismatch,
  RequesterUnknown,
  ServiceUnavailable,
  ValidationFailed,
} from '../../../domain/errors';
import { isMergedPerson, type MergedPerson } from '../../../domain/merge';
import type { Tombstones } from '../../../domain/patch';
import { NO_ABBREVIATIONS, type Person } from '../../../domain/person';
import type { Preconditions } from '../../../domain/preconditions';
import { OPEN, type Principal, principalName, type RequesterRuling } from '../../../domain/principal';
import type { PersonBody } from '../../../domain/schemas';
import type { SearchTerms } from '../../../domain/search';
import type { VocabularyKind } from '../../../domain/vocabulary';
import { logger as defaultLogger } from '../../../logger';
import { addMetric } from '../../../metrics';
import { retryDeadline } from '../../../timeouts';
import { keyString } from '../../table/batch-get';
import type { Storage } from '../../table/client';
import { type Key, personKey, personPrincipalKey, postingsPendingKey, principalKey } from '../../table/keys';
import { storageCall } from '../../table/storage-errors';
import { type VocabularyReader, vocabularyReader } from '../../vocabulary/vocabulary-repository';
import { bindingActions, bindingRemoval, liveCheck, transactionOf } from '../../write/actions';
import { type IdAllocator, idAllocator } from '../../write/ids';
import {
  asRequester,
  checkPreconditions,
  jitteredBackoff,
  objectQueue,
  type RetryOptions,
  retrying,
  sendWrite,
  type UpdateOptions,
  type WriteOptions,
} from '../../write/send';
import { fromStoredPersonItem } from '../person-items';
import { planMerge } from './person-merge';
import {
  CREATE,
  composeWrite,
  idsToReserve,
  type PersonWrite,
  type PersonWritePlan,
  personWrite,
  planIds,
  planPersonWrite,
  vocabularyToRead,
  type WriteStart,
} from './person-write';
import { sendWithPostings } from './send-with-postings';

export interface WriteOutcome {
  person: Person;
  tombstones: Tombstones;
}

/** A person as GET finds it: live, or merged into another (API.md 13) with the live end of its chain. */
export type FoundPerson = { person: Person } | { merged: MergedPerson; liveEnd: number };

/** How a merge is sent: as a write, and only over the survivor's version If-Match names. */
export interface MergeOptions extends WriteOptions {
  conditions?: Preconditions;
  /** Answer what the merge would make, and write nothing. */
  preview?: boolean;
}

export interface PersonRepository {
  /** The live person; one merged into another is `PersonMerged` (its survivor, the chain's live end). */
  get(id: number): Promise<Person>;
  find(id: number): Promise<FoundPerson>;
  /** The person `principal` is bound to (API.md 9.1), if any. */
  ownPerson(principal: Principal): Promise<number | undefined>;
  create(body: PersonBody, requester: number, options?: WriteOptions): Promise<WriteOutcome>;
  update(id: number, body: PersonBody, requester: number, options?: UpdateOptions): Promise<WriteOutcome>;
  /** Merges person `source` into person `survivor` (API.md 13) and answers the survivor. */
  merge(survivor: number, source: number, requester: number, options?: MergeOptions): Promise<Person>;
  /**
   * Binds `principal` to live person `id` (API.md 9.1), `by` the delegate that asks: true when bound
   * now, false when it was bound to it already; either side bound elsewhere is `PrincipalAlreadyBound`.
   */
  bind(id: number, principal: Principal, options: BindingOptions): Promise<boolean>;
  /** Unbinds live person `id`'s principal: the principal it had, null when it had none. */
  unbind(id: number, options?: Pick<BindingOptions, 'deadline'>): Promise<Principal | null>;
}

/** Who changes a binding (a delegate, kept on the binding's items) and until when it may retry. */
export interface BindingOptions {
  by: Principal;
  deadline?: number;
}

/** How many merges a chain is followed through (a survivor merged later, and so on). */
const MAX_CHAIN = 16;

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

  /** The items under the keys, in one consistent BatchGetItem, by key string. */
  const readItems = async (keys: Key[]) => {
    const { Responses, UnprocessedKeys } = await storageCall(() =>
      client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }),
      ),
    );
    if (UnprocessedKeys?.[tableName]) throw new ServiceUnavailable('Storage is busy', 1);
    const items = new Map((Responses?.[tableName] ?? []).map((item) => [keyString(item as Key), item]));
    return (key: Key) => items.get(keyString(key));
  };

  const getStored = async (id: number) => {
    const { Item } = await storageCall(() =>
      client.send(new GetCommand({ TableName: tableName, Key: personKey(id), ConsistentRead: true })),
    );
    return Item ? fromStoredPersonItem(Item) : undefined;
  };

  /** The live person at the end of a merged person's chain (it was merged, its survivor later, ...). */
  const liveEndOf = async (merged: MergedPerson): Promise<number> => {
    let current = merged;
    for (let hop = 0; hop < MAX_CHAIN; hop++) {
      const next = await getStored(current.superceded_by);
      if (!next || !isMergedPerson(next)) return current.superceded_by;
      current = next;
    }
    return current.superceded_by;
  };

  /** The person among items a write read (`readItems`), if stored. */
  const personIn = (item: (key: Key) => Record<string, unknown> | undefined, id: number) => {
    const found = item(personKey(id));
    return found ? fromStoredPersonItem(found) : undefined;
  };

  /** A person a write reads: live, else 404, or 409 `merged` naming its chain's live end. */
  const livePerson = async (id: number, stored: Person | MergedPerson | undefined): Promise<Person> => {
    if (!stored) throw new PersonNotFound(id);
    if (isMergedPerson(stored)) throw new PersonMerged(id, await liveEndOf(stored));
    return stored;
  };

  /** A requester a write reads: a live person, else 403; a merged one acts as its survivor (asRequester). */
  const checkRequester = (requester: number, item: Record<string, unknown> | undefined) => {
    if (!item) throw new RequesterUnknown(requester);
    const stored = fromStoredPersonItem(item);
    if (isMergedPerson(stored)) throw new RequesterMerged(requester, stored.superceded_by);
  };

  /** The binding a write must read to check its caller (API.md 9.1): none unless it is `own`. */
  const bindingToRead = (ruling: RequesterRuling): Key[] =>
    ruling.kind === 'own' ? [principalKey(principalName(ruling.principal))] : [];

  /**
   * Refuses a requester that is not the caller's own person before anything is planned (a write that
   * would change nothing is refused too); the write's `callerCheck` holds it until it lands.
   */
  const checkCaller = (
    ruling: RequesterRuling,
    requester: number,
    item: (key: Key) => Record<string, unknown> | undefined,
  ) => {
    if (ruling.kind === 'own' && item(principalKey(principalName(ruling.principal)))?.personId !== requester)
      throw new RequesterMismatch(requester);
  };

  /**
   * The stored person, the terms of postings an unfinished write left (postings.ts) and the
   * requester, in one consistent round trip.
   */
  const readForUpdate = async (id: number, requester: number, ruling: RequesterRuling) => {
    const item = await readItems([
      personKey(id),
      postingsPendingKey(id),
      ...(requester === id ? [] : [personKey(requester)]),
      ...bindingToRead(ruling),
    ]);
    const stored = item(personKey(id));
    return {
      stored: stored ? fromStoredPersonItem(stored) : undefined,
      pending: (item(postingsPendingKey(id))?.terms as SearchTerms | undefined) ?? null,
      requester: item(personKey(requester)),
      item,
    };
  };

  /** Sends a write with its postings (write/send-with-postings.ts): false when it should be retried. */
  const send = (write: (token: string) => PersonWrite, deadline: number) => {
    const token = randomUUID();
    return sendWithPostings(client, write(token), { tableName, token, retry: { deadline, backoff }, logger });
  };
  const sendPlan = (plan: PersonWritePlan, deadline: number) =>
    send((token) => personWrite(tableName, plan, token), deadline);
  const outcomeOf = ({ patched }: PersonWritePlan): WriteOutcome => ({
    person: patched.person,
    tombstones: patched.tombstones,
  });

  const create = async (
    body: PersonBody,
    requester: number,
    { origin = NO_ORIGIN, ruling = OPEN, deadline = retryDeadline() }: WriteOptions = {},
  ) => {
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
      ruling,
    });
    const outcome = await retrying({ deadline, backoff }, async () =>
      (await sendPlan(plan, deadline)) ? outcomeOf(plan) : undefined,
    );
    addMetric('PersonsCreated');
    return outcome;
  };

  const update = (
    id: number,
    body: PersonBody,
    requester: number,
    { conditions = {}, origin = NO_ORIGIN, ruling = OPEN, deadline = retryDeadline() }: UpdateOptions = {},
  ) => {
    // The id block (when this container needs a new one) and the read go out together: one round
    // trip where there were two in a row, which a cold container always paid.
    const reserving = ids.reserve(idsToReserve('update', body));
    // Awaited only when the queue reaches this write: marked handled now, so an id block that fails
    // while the write waits (storage down) is this request's 503, not an unhandled rejection that
    // ends the process serving it.
    reserving.catch(() => undefined);
    return queue(personKey(id).pk, () =>
      retrying({ deadline, backoff }, async () => {
        const [reserved, read] = await Promise.all([reserving, readForUpdate(id, requester, ruling)]);
        const stored = await livePerson(id, read.stored);
        if (requester !== id) checkRequester(requester, read.requester);
        checkCaller(ruling, requester, read.item);
        checkPreconditions(conditions, stored.CoreMetaData.version, 'person');

        const start: WriteStart = { kind: 'update', stored, pending: read.pending };
        const plan = planPersonWrite({
          tableName,
          start,
          body,
          requester,
          now: clock().toISOString(),
          ...planIds(reserved),
          abbreviations: await abbreviationsFor(start, body),
          origin,
          ruling,
        });
        if (plan.patched.changed.length === 0) return { person: stored, tombstones: plan.patched.tombstones };
        if (!(await sendPlan(plan, deadline))) return undefined;
        addMetric('PersonsPatched');
        return outcomeOf(plan);
      }),
    );
  };

  /**
   * Merges `sourceId` into `survivorId` (API.md 13): both persons, their unfinished postings and the
   * requester read in one round trip, the merge planned (person-merge.ts) and sent as one write of
   * both, read again while it meets concurrent writes of either.
   */
  const merge = (
    survivorId: number,
    sourceId: number,
    requester: number,
    {
      conditions = {},
      preview = false,
      origin = NO_ORIGIN,
      ruling = OPEN,
      deadline = retryDeadline(),
    }: MergeOptions = {},
  ): Promise<Person> => {
    if (survivorId === sourceId)
      throw new ValidationFailed([{ path: '/source', message: 'A person cannot be merged into itself' }]);
    // A preview writes nothing, not even a block of ids.
    const reserving = preview ? Promise.resolve(null) : ids.reserve(2);
    reserving.catch(() => undefined);
    return queue(personKey(survivorId).pk, () =>
      retrying({ deadline, backoff }, async () => {
        const persons = [survivorId, sourceId];
        const [reserved, item] = await Promise.all([
          reserving,
          readItems([
            ...persons.flatMap((id) => [personKey(id), postingsPendingKey(id), personPrincipalKey(id)]),
            ...(persons.includes(requester) ? [] : [personKey(requester)]),
            ...bindingToRead(ruling),
          ]),
        ]);
        const survivor = await livePerson(survivorId, personIn(item, survivorId));
        const source = personIn(item, sourceId);
        if (!source) throw new PersonNotFound(sourceId);
        if (isMergedPerson(source)) {
          // Merged before: into this survivor, a retry that changes nothing; into another, 409.
          const liveEnd = await liveEndOf(source);
          if (liveEnd === survivorId) return survivor;
          throw new PersonMerged(sourceId, liveEnd);
        }
        if (!persons.includes(requester)) checkRequester(requester, item(personKey(requester)));
        checkCaller(ruling, requester, item);
        checkPreconditions(conditions, survivor.CoreMetaData.version, 'person');

        const sideOf = (person: Person) => ({
          person,
          pending: (item(postingsPendingKey(person.id))?.terms as SearchTerms | undefined) ?? null,
          principal: (item(personPrincipalKey(person.id))?.principal as Principal | undefined) ?? null,
        });
        const plan = planMerge({
          tableName,
          survivor: sideOf(survivor),
          source: sideOf(source),
          requester,
          now: clock().toISOString(),
          changeIds: reserved
            ? { survivor: reserved.first, source: reserved.first + 1 }
            : { survivor: 0, source: 0 },
          origin,
          ruling,
        });
        // A preview writes no entry: the survivor's last one stays the one its metadata names.
        if (preview) {
          const { person } = plan.result;
          return {
            ...person,
            CoreMetaData: {
              ...person.CoreMetaData,
              modified_audit_id: survivor.CoreMetaData.modified_audit_id,
            },
          };
        }
        if (!(await send((token) => composeWrite(tableName, plan.parts, token), deadline))) return undefined;
        addMetric('PersonsMerged');
        return plan.result.person;
      }),
    );
  };

  /**
   * PUT /Person/{id}/principal: both sides of the binding read with the person, then put where none
   * is, the person checked live in the same write. A side taken meanwhile makes it read again, and
   * the read then judges: the same binding (a PUT sent twice) is no change, another one 409.
   */
  const bind = (id: number, principal: Principal, { by, deadline = retryDeadline() }: BindingOptions) =>
    queue(personKey(id).pk, () =>
      retrying({ deadline, backoff }, async () => {
        const key = principalKey(principalName(principal));
        const item = await readItems([personKey(id), personPrincipalKey(id), key]);
        await livePerson(id, personIn(item, id));
        const bound = item(key)?.personId;
        if (bound === id) return false;
        if (typeof bound === 'number') throw new PrincipalAlreadyBound(bound);
        if (item(personPrincipalKey(id))) throw new PrincipalAlreadyBound(null);
        const made = { boundBy: by, boundAt: clock().toISOString() };
        const write = [
          liveCheck(tableName, id),
          ...bindingActions(tableName, principal, id, { role: { kind: 'rebind' }, by: made }),
        ];
        return (await sendWrite(client, transactionOf(write))) || undefined;
      }),
    );

  /** DELETE /Person/{id}/principal: the person's binding read with it, then both sides deleted. */
  const unbind = (id: number, { deadline = retryDeadline() }: Pick<BindingOptions, 'deadline'> = {}) =>
    queue(personKey(id).pk, () =>
      retrying({ deadline, backoff }, async () => {
        const item = await readItems([personKey(id), personPrincipalKey(id)]);
        await livePerson(id, personIn(item, id));
        const principal = (item(personPrincipalKey(id))?.principal as Principal | undefined) ?? null;
        if (!principal) return null;
        return (await sendWrite(client, transactionOf(bindingRemoval(tableName, principal, id))))
          ? principal
          : undefined;
      }),
    );

  return {
    bind,
    unbind,

    async get(id) {
      return livePerson(id, await getStored(id));
    },

    async ownPerson(principal) {
      const { Item } = await storageCall(() =>
        client.send(
          new GetCommand({
            TableName: tableName,
            Key: principalKey(principalName(principal)),
            ConsistentRead: true,
          }),
        ),
      );
      return typeof Item?.personId === 'number' ? Item.personId : undefined;
    },

    async find(id) {
      const stored = await getStored(id);
      if (!stored) throw new PersonNotFound(id);
      return isMergedPerson(stored)
        ? { merged: stored, liveEnd: await liveEndOf(stored) }
        : { person: stored };
    },

    create(body, requester, options) {
      return asRequester(requester, (acting) => create(body, acting, options));
    },

    update(id, body, requester, options) {
      return asRequester(requester, (acting) => update(id, body, acting, options));
    },

    merge(survivorId, sourceId, requester, options) {
      return asRequester(requester, (acting) => merge(survivorId, sourceId, acting, options));
    },
  };
};
