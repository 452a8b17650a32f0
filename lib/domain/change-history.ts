/**
 * ChangeHistory (API.md 11.5): one entry per stored change of a Person, NamePrefix or NameSuffix. The
 * entry keeps the object as stored after the change; the object before it is the previous entry's, so
 * an entry never holds two copies of a large person (DynamoDB's 400 KB item limit).
 */
import type { AuditAction, AuditEntry } from './audit';
import type { VocabularyKind } from './vocabulary';

/** The kind of object an entry records a change of: its `endpoint` on the wire and in queries. */
export type ResourceType = 'Person' | VocabularyKind;
export const RESOURCE_TYPES = [
  'Person',
  'NamePrefix',
  'NameSuffix',
] as const satisfies readonly ResourceType[];

/** The `type` of a ChangeHistory entry's item: what the change feed's stream filter selects. */
export const CHANGE_HISTORY_TYPE = 'ChangeHistory';

/**
 * GRC's `type` of an entry: the HTTP method of the change, ENRICH for the service's own, MERGE on both
 * persons of a merge (API.md 13), UNMERGE on both of its undo (13.1), ERASE on an erased person's (API.md 15).
 */
export const CHANGE_TYPES = {
  create: 'POST',
  update: 'PATCH',
  enrich: 'ENRICH',
  merge: 'MERGE',
  unmerge: 'UNMERGE',
  erase: 'ERASE',
} as const satisfies Record<AuditAction, string>;

/**
 * Where a change came from: the request id, the user agent and the authenticated caller (an IAM
 * principal ARN or a JWT subject). Never cookies, tokens or authorization headers. On the wire it is the
 * entry's `provider_data`, GRC's name for it.
 */
export interface RequestOrigin {
  request_id: string | null;
  user_agent: string | null;
  caller: string | null;
}

export const NO_ORIGIN: RequestOrigin = { request_id: null, user_agent: null, caller: null };

export interface ChangeEntry {
  id: number;
  endpoint: ResourceType;
  object_id: number;
  /** The object's version this change made: entries of one object are numbered 1, 2, 3, ... */
  version: number;
  action: AuditAction;
  /** The person who asked, or null for the service's own changes (seed, enrichment). */
  requester: number | null;
  at: string;
  changed: string[];
  provider_data: RequestOrigin;
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

/** A change, besides the object it made: its entry's id, what it did, who asked, when and from where. */
export interface Change {
  id: number;
  action: AuditAction;
  /** The person who asked, or null for the service's own changes (seed, enrichment). */
  requester: number | null;
  at: string;
  changed: string[];
  origin?: RequestOrigin;
}

/**
 * The ChangeHistory entry of a change that made `object` as it now stands: the entry names the object
 * and the version it reached. Every write builds its entry here: persons, vocabulary entries, the seed
 * and enrichment.
 */
export const changeEntry = (
  endpoint: ResourceType,
  object: { id: number; CoreMetaData: { version: number } },
  { id, action, requester, at, changed, origin = NO_ORIGIN }: Change,
): ChangeEntry => ({
  id,
  endpoint,
  object_id: object.id,
  version: object.CoreMetaData.version,
  action,
  requester,
  at,
  changed,
  provider_data: origin,
});
