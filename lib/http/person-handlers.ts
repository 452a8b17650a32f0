/**
 * Handlers of the Person resource (API.md 3 to 5): list, read, create, update and a person's audit.
 * The function files in functions/ give each one its production dependencies.
 */
import { NotFound, Unauthorized } from '../domain/errors';
import {
  ExportPersonsQuery,
  exportPage,
  exportPageUrl,
  exportRequest,
  ListPersonsQuery,
  personListRequest,
  toStub,
} from '../domain/listing';
import type { AuditLog } from '../domain/ports/history';
import type { PersonExport, PersonList } from '../domain/ports/lists';
import type { PersonRepository } from '../domain/ports/persons';
import { callerOf, principalName, principalOfBody } from '../domain/principal';
import { auditEntryOut, etagOf, mergedPersonOut, personUrl, toPersonOut } from '../domain/representation';
import {
  CreatePersonBody,
  MergePersonBody,
  PatchPersonBody,
  PrincipalBody,
  UnmergePersonBody,
} from '../domain/schemas';
import { logger as defaultLogger } from '../logger';
import type { HttpConfig } from './config';
import { delegateHandler, readHandler, writeHandler } from './handler';
import { type IdempotencyOptions, keyedWrites } from './idempotency';
import { listResponse, pagedResponse } from './paged';
import { notModifiedRead, preconditionsOf } from './preconditions';
import { authorizerOf, personIdOf, queryOf, routePath } from './request';
import {
  movedPermanently,
  noContent,
  notModified,
  ok,
  personCreated,
  personOk,
  seeOther,
  tombstoneResponse,
  unmergeOk,
} from './responses';
import { withoutTrailingSlash } from './routes';

/** GET /Person: stubs, filtered and sorted, by limit/offset or in the PaginatedList envelope. */
export const listPersonsHandler = ({ personList }: { personList: PersonList }) =>
  readHandler().handler(async ({ event, links }) => {
    const request = personListRequest(queryOf(event, ListPersonsQuery));
    const { count, persons: found } = await personList.list(request);
    const items = found.map((person) => toStub(person, links.baseUrl, links.contextUrl));
    return listResponse(event, links, 'Stub', request, { total: count, items });
  });

/**
 * GET /Person/export: every full Person, a page at a time, each as GET /Person/{id} answers it; `next`
 * links the page after (the same `limit`, the cursor storage gave), null on the last.
 */
export const exportPersonsHandler = ({ personExport }: { personExport: PersonExport }) =>
  readHandler().handler(async ({ event, links }) => {
    const request = exportRequest(queryOf(event, ExportPersonsQuery));
    const { persons, next } = await personExport.page(request);
    const path = withoutTrailingSlash(routePath(event));
    return ok(
      exportPage(
        links.contextUrl,
        persons.map((person) => toPersonOut(person, links)),
        next === null ? null : exportPageUrl(links.baseUrl, path, request.limit, next),
      ),
    );
  });

/**
 * GET /Person/{id}: 412 when If-Match does not name the current version, 304 when If-None-Match does;
 * 301 to the survivor of a merged person (API.md 13), the live end of its chain, and 410 with the
 * tombstone of an erased one (API.md 15), whatever the conditions say (RFC 9110 13.2.1: they apply to
 * the answer a 2xx would be).
 */
export const getPersonHandler = ({ persons }: { persons: PersonRepository }) =>
  readHandler().handler(async ({ event, links }) => {
    const found = await persons.find(personIdOf(event));
    if ('merged' in found)
      return movedPermanently(personUrl(links.baseUrl, found.liveEnd), mergedPersonOut(found.merged, links));
    if ('erased' in found) return tombstoneResponse(found.erased, links, 410);
    const { person } = found;
    return notModifiedRead(event, person.CoreMetaData.version, 'person')
      ? notModified(etagOf(person))
      : personOk({ person, tombstones: {} }, links);
  });

/**
 * GET /Person/me (API.md 9.1): 303 to the person the caller is bound to; 404 when it is bound to none,
 * 401 when the request carries no authenticated caller.
 */
export const getOwnPersonHandler = ({ persons }: { persons: PersonRepository }) =>
  readHandler().handler(async ({ event, links }) => {
    const { principal } = callerOf(authorizerOf(event), []);
    if (!principal) throw new Unauthorized();
    const id = await persons.ownPerson(principal);
    if (id === undefined) throw new NotFound('Person bound to the caller', 'me');
    return seeOther(personUrl(links.baseUrl, id));
  });

/**
 * PUT /Person/{id}/principal (API.md 9.1, delegates only): binds the principal of the body to the
 * person; 204 when it is bound (now, or already).
 */
export const bindPrincipalHandler = ({ persons, config, logger = defaultLogger }: BindingDeps) =>
  delegateHandler(PrincipalBody, { config, logger }).handler(async ({ event, body, delegate, deadline }) => {
    const personId = personIdOf(event);
    const principal = principalOfBody(body);
    if (await persons.bind(personId, principal, { by: delegate, deadline }))
      logger.info('principal bound', {
        personId,
        principal: principalName(principal),
        by: principalName(delegate),
      });
    return noContent;
  });

/** DELETE /Person/{id}/principal (API.md 9.1, delegates only): 204 once the person is bound to none. */
export const unbindPrincipalHandler = ({ persons, config, logger = defaultLogger }: BindingDeps) =>
  delegateHandler(undefined, { config, logger }).handler(async ({ event, delegate, deadline }) => {
    const personId = personIdOf(event);
    const principal = await persons.unbind(personId, { deadline });
    if (principal)
      logger.info('principal unbound', {
        personId,
        principal: principalName(principal),
        by: principalName(delegate),
      });
    return noContent;
  });

/** What a binding change needs: the repository, and where it logs what it changed (an audit trail). */
interface BindingDeps {
  persons: PersonRepository;
  /** The container's settings (its delegates); the environment's by default. */
  config?: HttpConfig;
  logger?: Pick<typeof defaultLogger, 'info' | 'error'>;
}

/** A write's dependencies: the repository, and where keyed writes keep their answers (API.md 5.6). */
interface WriteDeps {
  persons: PersonRepository;
  /** Without it `Idempotency-Key` is not honoured: every deployed function has it. */
  idempotency?: IdempotencyOptions;
  /** The container's settings (requester binding among them); the environment's by default. */
  config?: HttpConfig;
}

/** POST /Person */
export const createPersonHandler = ({ persons, idempotency, config }: WriteDeps) =>
  writeHandler(CreatePersonBody, 'create', { once: keyedWrites(idempotency), config }).handler(
    async ({ body, requester, write, links }) =>
      personCreated(await persons.create(body, requester, write), links),
  );

/** PATCH /Person/{id}: If-Match and If-None-Match, when sent, must hold for the version it lands on. */
export const updatePersonHandler = ({ persons, idempotency, config }: WriteDeps) =>
  writeHandler(PatchPersonBody, 'update', { once: keyedWrites(idempotency), config }).handler(
    async ({ event, body, requester, write, links }) =>
      personOk(
        await persons.update(personIdOf(event), body, requester, {
          ...write,
          conditions: preconditionsOf(event),
        }),
        links,
      ),
  );

/**
 * POST /Person/{id}/merge (API.md 13): the person `source` merged into this one, which it answers as
 * GET now shows it; with `preview`, as the merge would make it, and nothing written. With requester
 * binding on, a delegate's (API.md 9.1): a merge moves the source's binding to the survivor.
 */
export const mergePersonHandler = ({ persons, idempotency, config }: WriteDeps) =>
  writeHandler(MergePersonBody, 'delegate', { once: keyedWrites(idempotency), config }).handler(
    async ({ event, body, requester, write, links }) => {
      const person = await persons.merge(personIdOf(event), body.source, requester, {
        ...write,
        conditions: preconditionsOf(event),
        preview: body.preview === true,
      });
      return personOk({ person, tombstones: {} }, links);
    },
  );

/**
 * POST /Person/{id}/unmerge (API.md 13.1): the merge of `source` into this person undone, both answered;
 * a delegate's write like the merge, keyed by `Idempotency-Key`.
 */
export const unmergePersonHandler = ({ persons, idempotency, config }: WriteDeps) =>
  writeHandler(UnmergePersonBody, 'delegate', { once: keyedWrites(idempotency), config }).handler(
    async ({ event, body, requester, write, links }) =>
      unmergeOk(
        await persons.unmerge(personIdOf(event), body.source, requester, {
          ...write,
          conditions: preconditionsOf(event),
          preview: body.preview === true,
        }),
        links,
      ),
  );

/**
 * DELETE /Person/{id} (API.md 15): the person erased, answered with its tombstone; a person erased
 * already answers the same tombstone. With requester binding on, the person itself or a delegate.
 * No `Idempotency-Key`: the DELETE is idempotent by itself, and no answer about the person is kept.
 */
export const erasePersonHandler = ({ persons, config }: Omit<WriteDeps, 'idempotency'>) =>
  writeHandler(undefined, 'update', { config }).handler(async ({ event, requester, write, links }) => {
    const tombstone = await persons.erase(personIdOf(event), requester, {
      ...write,
      conditions: preconditionsOf(event),
    });
    return tombstoneResponse(tombstone, links, 200);
  });

/** GET /Person/{id}/audit: the person's AuditEntries, newest first, in the PaginatedList envelope. */
export const listPersonAuditHandler = ({ audit }: { audit: AuditLog }) =>
  readHandler().handler(async ({ event, links }) => {
    const personId = personIdOf(event);
    return pagedResponse(event, links, 'AuditEntry', async (window) => {
      const { total, entries } = await audit.page(personId, window);
      return { total, items: entries.map((entry) => auditEntryOut(entry, links.baseUrl)) };
    });
  });
