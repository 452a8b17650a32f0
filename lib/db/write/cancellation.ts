/**
 * Reads a `TransactionCanceledException` back into domain terms. `CancellationReasons` come in the
 * order of the transaction's actions, so each reason is paired with the role its action had.
 */
import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { ResourceType } from '../../domain/change-history';
import {
  type DomainError,
  type FieldError,
  PrincipalAlreadyBound,
  RequesterMerged,
  RequesterMismatch,
  RequesterUnknown,
  ServiceUnavailable,
  type UniqueField,
  UniquenessConflict,
  ValidationFailed,
} from '../../domain/errors';
import type { ClaimField } from '../../domain/person';
import type { ActionRole } from './actions';

/**
 * Either a verdict for the client, or "the stored state moved: read again and retry", with the persons
 * whose part of the write (person-write.ts `composeWrite`) was stale, where the write says.
 */
export type CancellationOutcome = { retry: true; stale?: number[] } | { retry: false; error: DomainError };

const THROTTLED = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

/**
 * Actions whose failed condition means the state the write was built on moved: the object's version,
 * a claim that changed hands, the enrichment mark another delivery wrote.
 */
const STALE_ROLES: ReadonlySet<ActionRole['kind']> = new Set([
  'object',
  'release',
  'repoint',
  'rebind',
  'mark',
]);

const failed = (reason: CancellationReason | undefined) => reason?.Code === 'ConditionalCheckFailed';

const UNIQUE_FIELDS: Record<ClaimField, UniqueField> = {
  email: 'email',
  name: 'name',
  NamePrefix: 'abbreviation',
  NameSuffix: 'abbreviation',
};

const CLASH_MESSAGES: Record<ClaimField, (value: string) => string> = {
  email: (value) => `${value} is already used by another person`,
  name: () => 'Another person without an email has this name',
  NamePrefix: () => 'Another NamePrefix has this abbreviation',
  NameSuffix: () => 'Another NameSuffix has this abbreviation',
};

/** The object that holds the claim, from the claim item DynamoDB handed back. */
const existingOf = (field: ClaimField, item: Record<string, unknown> | undefined) => {
  const type: ResourceType = field === 'email' || field === 'name' ? 'Person' : field;
  const id = item?.personId ?? item?.entryId;
  return typeof id === 'number' ? { existing: { type, id } } : {};
};

type Paired = { role: ActionRole; reason: CancellationReason | undefined };

/** The requester's item failed its condition: no such person, or one merged into another. */
const requesterVerdict = (paired: Paired[]): CancellationOutcome | undefined => {
  const requester = paired.find(({ role, reason }) => role.kind === 'requester' && failed(reason));
  if (requester?.role.kind === 'requester') {
    const item = requester.reason?.Item ? unmarshall(requester.reason.Item) : undefined;
    return {
      retry: false,
      error:
        typeof item?.superceded_by === 'number'
          ? new RequesterMerged(requester.role.requester, item.superceded_by)
          : new RequesterUnknown(requester.role.requester),
    };
  }
  return undefined;
};

// Binding (API.md 9.1): the requester is not the caller's person; the caller (or the new person)
// is bound already.
const bindingVerdict = (paired: Paired[]): CancellationOutcome | undefined => {
  const caller = paired.find(({ role, reason }) => role.kind === 'caller' && failed(reason));
  if (caller?.role.kind === 'caller')
    return { retry: false, error: new RequesterMismatch(caller.role.requester) };
  const binding = paired.find(({ role, reason }) => role.kind === 'binding' && failed(reason));
  if (binding) {
    const bound = binding.reason?.Item ? unmarshall(binding.reason.Item).personId : undefined;
    return { retry: false, error: new PrincipalAlreadyBound(typeof bound === 'number' ? bound : null) };
  }
  return undefined;
};

/** Vocabulary entries the write referenced that are not there. */
const vocabularyVerdict = (paired: Paired[]): CancellationOutcome | undefined => {
  const missing = paired.flatMap(({ role, reason }) =>
    role.kind === 'vocabulary' && failed(reason) ? [role.reference] : [],
  );
  if (missing.length > 0)
    return {
      retry: false,
      error: new ValidationFailed(
        missing.map(({ kind, id, path }) => ({ path, message: `No ${kind} with id ${id}` })),
      ),
    };
  return undefined;
};

// A moved version or a claim that changed hands means what we patched is stale: any claim
// failure seen alongside may be stale too, so re-read before judging.
const staleVerdict = (paired: Paired[]): CancellationOutcome | undefined => {
  const stale = paired.filter(({ role, reason }) => STALE_ROLES.has(role.kind) && failed(reason));
  if (stale.length > 0) {
    const persons = [
      ...new Set(stale.flatMap(({ role }) => (role.person === undefined ? [] : [role.person]))),
    ];
    return persons.length > 0 ? { retry: true, stale: persons } : { retry: true };
  }
  return undefined;
};

/** Claims another object holds: a uniqueness conflict naming each. */
const clashVerdict = (paired: Paired[]): CancellationOutcome | undefined => {
  const clashes = paired.flatMap(({ role, reason }) =>
    role.kind === 'take' && failed(reason)
      ? [{ claim: role.claim, item: reason?.Item ? unmarshall(reason.Item) : undefined }]
      : [],
  );
  if (clashes.length > 0) {
    const fields = clashes.map(({ claim }) => UNIQUE_FIELDS[claim.field]);
    const field = fields.includes('email') ? 'email' : (fields[0] as UniqueField);
    const errors: FieldError[] = clashes.map(({ claim, item }) => ({
      path: claim.path,
      message: CLASH_MESSAGES[claim.field](claim.value),
      ...existingOf(claim.field, item),
    }));
    return { retry: false, error: new UniquenessConflict(field, errors) };
  }
  return undefined;
};

/** No condition failed: a conflicting transaction, or throttling. */
const transientVerdict = (reasons: CancellationReason[]): CancellationOutcome | undefined => {
  if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return { retry: true };
  // Throttled inside a transaction: the SDK does not retry a cancellation, and more load won't help.
  if (reasons.some((reason) => reason.Code && THROTTLED.has(reason.Code)))
    return { retry: false, error: new ServiceUnavailable('Storage is throttled', 1) };
  return undefined;
};

export const decodeCancellation = (
  reasons: CancellationReason[],
  roles: ActionRole[],
): CancellationOutcome | undefined => {
  const paired: Paired[] = roles.map((role, index) => ({ role, reason: reasons[index] }));
  return (
    requesterVerdict(paired) ??
    bindingVerdict(paired) ??
    vocabularyVerdict(paired) ??
    staleVerdict(paired) ??
    clashVerdict(paired) ??
    transientVerdict(reasons)
  );
};
