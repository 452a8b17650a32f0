/**
 * The persons port (lib/domain/ports/persons.ts) on the table: the reads of person/read/person-reads.ts
 * and the write operations of person/write/, each read → plan → send, sharing one context.
 */
import type { PersonRepository } from '../domain/ports/persons';
import { logger as defaultLogger } from '../logger';
import { mergeRecordOf } from './person/read/merge-record';
import { findPerson, getLivePerson, liveEndOf, ownPerson } from './person/read/person-reads';
import { bindPrincipal, unbindPrincipal } from './person/write/bind-principal';
import { createPerson } from './person/write/create-person';
import { erasePerson, finishErasure } from './person/write/erase-person';
import { mergePerson } from './person/write/merge-person';
import type { WriteContext } from './person/write/read-for-write';
import { unmergePerson } from './person/write/unmerge-person';
import { updatePerson } from './person/write/update-person';
import type { Storage } from './table/client';
import { vocabularyReader } from './vocabulary/vocabulary-repository';
import { idAllocator } from './write/ids';
import { asRequester, jitteredBackoff, objectQueue } from './write/send';

export type PersonRepositoryDeps = Storage &
  Partial<Omit<WriteContext, keyof Storage | 'queue' | 'liveEndOf' | 'mergeRecordOf'>>;

export const personRepository = (deps: PersonRepositoryDeps): PersonRepository => {
  const storage: Storage = { client: deps.client, tableName: deps.tableName };
  const ctx: WriteContext = {
    ...storage,
    ids: deps.ids ?? idAllocator(deps.client, deps.tableName),
    clock: deps.clock ?? (() => new Date()),
    vocabulary: deps.vocabulary ?? vocabularyReader(storage),
    backoff: deps.backoff ?? jitteredBackoff,
    logger: deps.logger ?? defaultLogger,
    queue: objectQueue(),
    liveEndOf: (merged) => liveEndOf(storage, merged),
    mergeRecordOf: (survivorId, sourceId) => mergeRecordOf(storage, survivorId, sourceId),
  };
  return {
    get: (id) => getLivePerson(storage, id),
    find: (id) => findPerson(storage, id),
    ownPerson: (principal) => ownPerson(storage, principal),
    create: (body, requester, options) =>
      asRequester(requester, (acting) => createPerson(ctx, body, acting, options)),
    update: (id, body, requester, options) =>
      asRequester(requester, (acting) => updatePerson(ctx, id, body, acting, options)),
    merge: (survivorId, sourceId, requester, options) =>
      asRequester(requester, (acting) => mergePerson(ctx, survivorId, sourceId, acting, options)),
    unmerge: (survivorId, sourceId, requester, options) =>
      asRequester(requester, (acting) => unmergePerson(ctx, survivorId, sourceId, acting, options)),
    erase: (id, requester, options) =>
      asRequester(requester, (acting) => erasePerson(ctx, id, acting, options)),
    finishErasure: (id, deadline) => finishErasure(ctx, id, deadline),
    bind: (id, principal, options) => bindPrincipal(ctx, id, principal, options),
    unbind: (id, options) => unbindPrincipal(ctx, id, options),
  };
};
