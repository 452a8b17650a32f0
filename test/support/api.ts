/** The three Person handlers wired to a test table, called with real API Gateway events. */

import { buildHandler as buildBind } from '../../functions/bind-principal';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { buildHandler as buildErase } from '../../functions/erase-person';
import { buildHandler as buildGet } from '../../functions/get-person';
import { buildHandler as buildListChanges } from '../../functions/list-change-history';
import { buildHandler as buildMerge } from '../../functions/merge-person';
import { buildHandler as buildUnbind } from '../../functions/unbind-principal';
import { buildHandler as buildUnmerge } from '../../functions/unmerge-person';
import { buildHandler as buildUpdate } from '../../functions/update-person';
import { changeHistory } from '../../lib/db/history/change-history';
import type { Storage } from '../../lib/db/table/client';
import type { PersonRepository } from '../../lib/domain/ports/persons';
import type { PersonOut } from '../../lib/domain/schemas';
import type { HttpConfig } from '../../lib/http/config';
import { type EventSpec, httpEvent, invoke } from './events';

export type Json = Record<string, unknown>;

export interface CallOptions {
  headers?: Record<string, string>;
  /** The x-requester-person header; null sends none. */
  requester?: number | string | null;
  /** What API Gateway's authorizer put in the request context (requester binding, API.md 9.1). */
  authorizer?: EventSpec['authorizer'];
}

const requesterHeader = (requester: number | string | null) => (requester === null ? {} : { requester });

/** The handlers on `persons`; `config` as a container reads it from its environment (binding, say). */
export const personApi = (persons: PersonRepository, config?: HttpConfig) => {
  const create = buildCreate({ persons, config });
  const get = buildGet({ persons });
  const update = buildUpdate({ persons, config });
  const merge = buildMerge({ persons, config });
  const unmerge = buildUnmerge({ persons, config });
  const bind = buildBind({ persons, config });
  const unbind = buildUnbind({ persons, config });
  const erase = buildErase({ persons, config });
  /** PUT or DELETE /Person/{id}/principal, by the caller `authorizer` names (no requester). */
  const principalOf = (
    handler: typeof bind,
    method: 'PUT' | 'DELETE',
    id: number | string,
    body: unknown,
    { headers, authorizer }: CallOptions,
  ) =>
    invoke<Json>(
      handler,
      httpEvent({
        method,
        route: '/Person/{id}/principal',
        path: `/Person/${id}/principal`,
        pathParameters: { id: String(id) },
        ...(body === undefined ? {} : { body }),
        ...(headers ? { headers } : {}),
        ...(authorizer ? { authorizer } : {}),
      }),
    );
  return {
    bind: (id: number | string, body: unknown, call: CallOptions = {}) =>
      principalOf(bind, 'PUT', id, body, call),
    unbind: (id: number | string, call: CallOptions = {}) =>
      principalOf(unbind, 'DELETE', id, undefined, call),
    post: (body: unknown, { requester = 0, headers, authorizer }: CallOptions = {}) =>
      invoke<PersonOut & Json>(
        create,
        httpEvent({
          method: 'POST',
          route: '/Person',
          body,
          ...requesterHeader(requester),
          ...(headers ? { headers } : {}),
          ...(authorizer ? { authorizer } : {}),
        }),
      ),
    get: (id: number | string, headers?: Record<string, string>) =>
      invoke<PersonOut & Json>(
        get,
        httpEvent({
          method: 'GET',
          route: '/Person/{id}',
          path: `/Person/${id}`,
          pathParameters: { id: String(id) },
          ...(headers ? { headers } : {}),
        }),
      ),
    patch: (id: number | string, body: unknown, { requester, headers, authorizer }: CallOptions = {}) =>
      invoke<PersonOut & Json>(
        update,
        httpEvent({
          method: 'PATCH',
          route: '/Person/{id}',
          path: `/Person/${id}`,
          pathParameters: { id: String(id) },
          body,
          ...requesterHeader(requester === undefined ? id : requester),
          ...(headers ? { headers } : {}),
          ...(authorizer ? { authorizer } : {}),
        }),
      ),
    /** DELETE /Person/{id} (API.md 15); the requester is the person itself unless said. */
    erase: (id: number | string, { requester, headers, authorizer }: CallOptions = {}) =>
      invoke<Json>(
        erase,
        httpEvent({
          method: 'DELETE',
          route: '/Person/{id}',
          path: `/Person/${id}`,
          pathParameters: { id: String(id) },
          ...requesterHeader(requester === undefined ? id : requester),
          ...(headers ? { headers } : {}),
          ...(authorizer ? { authorizer } : {}),
        }),
      ),
    /** POST /Person/{id}/merge; the requester is the survivor unless said. */
    merge: (id: number | string, body: unknown, { requester, headers, authorizer }: CallOptions = {}) =>
      invoke<PersonOut & Json>(
        merge,
        httpEvent({
          method: 'POST',
          route: '/Person/{id}/merge',
          path: `/Person/${id}/merge`,
          pathParameters: { id: String(id) },
          body,
          ...requesterHeader(requester === undefined ? id : requester),
          ...(headers ? { headers } : {}),
          ...(authorizer ? { authorizer } : {}),
        }),
      ),
    /** POST /Person/{id}/unmerge (API.md 13.1); the requester is the survivor unless said. */
    unmerge: (id: number | string, body: unknown, { requester, headers, authorizer }: CallOptions = {}) =>
      invoke<Json & { survivor: PersonOut & Json; source: PersonOut & Json }>(
        unmerge,
        httpEvent({
          method: 'POST',
          route: '/Person/{id}/unmerge',
          path: `/Person/${id}/unmerge`,
          pathParameters: { id: String(id) },
          body,
          ...requesterHeader(requester === undefined ? id : requester),
          ...(headers ? { headers } : {}),
          ...(authorizer ? { authorizer } : {}),
        }),
      ),
  };
};

/** A Person body with one structured Name and optional emails. */
export const personBody = (first: string, last: string, ...emails: string[]) => ({
  '@type': 'Person',
  Names: { '@type': 'Names', '@set': [{ '@type': 'Name', first_name: first, last_name: last }] },
  ...(emails.length > 0 ? { Emails: { '@type': 'Emails', '@set': emails.map((email) => ({ email })) } } : {}),
});

/**
 * A Person body whose every value carries `token`: names, emails, phones, addresses, roles, social
 * addresses and local references (what an erasure must leave nowhere).
 */
export const taggedPersonBody = (token: string) => ({
  '@type': 'Person',
  local_reference_id: `crm-${token}`,
  Names: {
    '@set': [
      { first_name: `Ada${token}`, last_name: `Lovelace${token}`, local_reference_id: `n-${token}` },
      { first_name: `Augusta${token}`, last_name: `King${token}` },
    ],
  },
  Emails: { '@set': [{ email: `${token}@example.org`, local_reference_id: `e-${token}` }] },
  PhoneNumbers: { '@set': [{ phone_number: `+44 20 7946 0958 ext ${token}` }] },
  PostalAddresses: { '@set': [{ address1: `12 ${token} Square`, city: `London${token}` }] },
  PersonRoles: { '@set': [{ name: `Analyst${token}` }] },
  SocialAddresses: { twitter: `@${token}`, linkedin: `in-${token}` },
});

/** GET /ChangeHistory of person `id` through its handler: its entries, newest first (at most 100). */
export const personHistoryOf = async (storage: Storage, id: number) =>
  (
    await invoke<{ '@set': (Json & { type: string; version?: number })[] }>(
      buildListChanges({ history: changeHistory(storage) }),
      httpEvent({
        method: 'GET',
        route: '/ChangeHistory',
        query: { endpoint: 'Person', object_id: String(id), limit: '100' },
      }),
    )
  ).body['@set'];

let unique = 0;
/** A value no other test in the run uses: emails and names must not collide across tests. */
export const uniqueTag = (label = 'p') => `${label}${process.pid}x${++unique}`;
export const uniqueEmail = (label = 'user') => `${uniqueTag(label)}@example.org`;
