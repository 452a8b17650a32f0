/**
 * ChangeHistory (API.md 11.5): one entry per stored change of a Person, NamePrefix or NameSuffix. The
 * entry keeps the object as stored after the change; the object before it is the previous entry's, so
 * an entry never holds two copies of a large person (DynamoDB's 400 KB item limit).
 */
import type { AuditAction, AuditEntry } from './audit';
import type { MergeResult } from './merge';
import type { VocabularyKind } from './vocabulary';

export type Endpoint = 'Person' | VocabularyKind;
export const ENDPOINTS = ['Person', 'NamePrefix', 'NameSuffix'] as const satisfies readonly Endpoint[];

/** GRC's `type` of an entry: the HTTP method of the change, or ENRICH for the service's own. */
export const CHANGE_TYPES = { create: 'POST', update: 'PATCH', enrich: 'ENRICH' } as const satisfies Record<
  AuditAction,
  string
>;

/**
 * Where a change came from: the request id, the user agent and the authenticated caller (an IAM
 * principal ARN or a JWT subject). Never cookies, tokens or authorization headers.
 */
export interface ProviderData {
  request_id: string | null;
  user_agent: string | null;
  caller: string | null;
}

export const NO_PROVIDER_DATA: ProviderData = { request_id: null, user_agent: null, caller: null };

export interface ChangeEntry {
  id: number;
  endpoint: Endpoint;
  object_id: number;
  /** The object's version this change made: entries of one object are numbered 1, 2, 3, ... */
  version: number;
  action: AuditAction;
  /** The person who asked, or null for the service's own changes (seed, enrichment). */
  requester: number | null;
  at: string;
  changed: string[];
  provider_data: ProviderData;
}

/** The older per-person view of the same entry (`GET /Person/{id}/audit`, API.md 6). */
export const toAuditEntry = ({ id, object_id, action, requester, at, changed }: ChangeEntry): AuditEntry => ({
  id,
  person_id: object_id,
  action,
  requester,
  at,
  changed,
});

/** The ChangeHistory entry of a create or a PATCH of a person. */
export const personChangeEntry = (
  merge: MergeResult,
  changeId: number,
  requester: number,
  now: string,
  provider: ProviderData = NO_PROVIDER_DATA,
): ChangeEntry => ({
  id: changeId,
  endpoint: 'Person',
  object_id: merge.person.id,
  version: merge.person.CoreMetaData.version,
  action: merge.person.CoreMetaData.version === 1 ? 'create' : 'update',
  requester,
  at: now,
  changed: merge.changed,
  provider_data: provider,
});
