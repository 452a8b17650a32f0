/**
 * Reads a `TransactionCanceledException` back into domain terms. `CancellationReasons` come in the
 * order of the transaction's actions, so each reason is paired with the role its action had.
 */
import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  type DomainError,
  type FieldError,
  RequesterUnknown,
  ServiceUnavailable,
  UniquenessConflict,
} from '../domain/errors';
import type { ActionRole } from './person-items';

/** Either a verdict for the client, or "the stored state moved: read again and retry". */
export type CancellationOutcome = { retry: true } | { retry: false; error: DomainError };

const THROTTLED = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

const failed = (reason: CancellationReason | undefined) => reason?.Code === 'ConditionalCheckFailed';

export const decodeCancellation = (
  reasons: CancellationReason[],
  roles: ActionRole[],
): CancellationOutcome | undefined => {
  const paired = roles.map((role, index) => ({ role, reason: reasons[index] }));

  const requester = paired.find(({ role, reason }) => role.kind === 'requester' && failed(reason));
  if (requester?.role.kind === 'requester')
    return { retry: false, error: new RequesterUnknown(requester.role.requester) };

  // A moved version or a claim that changed hands means what we merged onto is stale: any claim
  // failure seen alongside may be stale too, so re-read before judging.
  const stale = paired.some(
    ({ role, reason }) => (role.kind === 'person' || role.kind === 'release') && failed(reason),
  );
  if (stale) return { retry: true };

  const clashes = paired.flatMap(({ role, reason }) =>
    role.kind === 'take' && failed(reason)
      ? [{ claim: role.claim, item: reason?.Item ? unmarshall(reason.Item) : undefined }]
      : [],
  );
  if (clashes.length > 0) {
    const field = clashes.some(({ claim }) => claim.field === 'email') ? 'email' : 'name';
    const errors: FieldError[] = clashes.map(({ claim, item }) => ({
      path: claim.path,
      message:
        claim.field === 'email'
          ? `${claim.value} is already used by another person`
          : 'Another person without an email has this name',
      ...(typeof item?.personId === 'number' ? { existingPersonId: item.personId } : {}),
    }));
    return { retry: false, error: new UniquenessConflict(field, errors) };
  }

  if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return { retry: true };
  // Throttled inside a transaction: the SDK does not retry a cancellation, and more load won't help.
  if (reasons.some((reason) => reason.Code && THROTTLED.has(reason.Code)))
    return { retry: false, error: new ServiceUnavailable('Storage is throttled', 1) };
  return undefined;
};
