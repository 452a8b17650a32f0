import type { AttributeValue, CancellationReason } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { type CancellationOutcome, decodeCancellation } from '../../../lib/db/cancellation';
import type { ActionRole } from '../../../lib/db/person-items';
import {
  type DomainError,
  RequesterUnknown,
  ServiceUnavailable,
  UniquenessConflict,
} from '../../../lib/domain/errors';

const none: CancellationReason = { Code: 'None' };
const conflict: CancellationReason = {
  Code: 'TransactionConflict',
  Message: 'Transaction is ongoing for the item.',
};
const conditionFailed = (item?: Record<string, AttributeValue>): CancellationReason => ({
  Code: 'ConditionalCheckFailed',
  Message: 'The conditional request failed',
  ...(item ? { Item: item } : {}),
});
/** A claim item as `ReturnValuesOnConditionCheckFailure: ALL_OLD` returns it, in raw AttributeValue form. */
const claimHeldBy = (personId: number, pk: string): Record<string, AttributeValue> => ({
  pk: { S: pk },
  sk: { S: 'CLAIM' },
  type: { S: 'Claim' },
  personId: { N: String(personId) },
});

/** A create of a person with two emails, by requester 5. */
const createWithEmails: ActionRole[] = [
  { kind: 'person' },
  { kind: 'audit' },
  { kind: 'take', claim: { field: 'email', value: 'jsmith@no-reply.org', path: '/Emails/@set/0/email' } },
  { kind: 'take', claim: { field: 'email', value: 'john@example.org', path: '/Emails/@set/1/email' } },
  { kind: 'requester', requester: 5 },
];

/** A create of an email-less person, by requester 5. */
const createNameOnly: ActionRole[] = [
  { kind: 'person' },
  { kind: 'audit' },
  { kind: 'take', claim: { field: 'name', value: 'john smith', path: '/Names/@set/0' } },
  { kind: 'requester', requester: 5 },
];

/** A patch that replaces one email with another. */
const updateSwappingEmail: ActionRole[] = [
  { kind: 'person' },
  { kind: 'audit' },
  { kind: 'take', claim: { field: 'email', value: 'new@example.org', path: '/Emails/@set/1/email' } },
  { kind: 'release', claim: { field: 'email', value: 'old@example.org' } },
];

const errorOf = (outcome: CancellationOutcome | undefined): DomainError => {
  if (outcome?.retry !== false) throw new Error(`Expected a verdict, got ${JSON.stringify(outcome)}`);
  return outcome.error;
};

describe('decodeCancellation: the requester', () => {
  it('answers RequesterUnknown when the requester check failed', () => {
    const error = errorOf(decodeCancellation([none, none, none, none, conditionFailed()], createWithEmails));

    expect(error).toBeInstanceOf(RequesterUnknown);
    expect((error as RequesterUnknown).requesterId).toBe(5);
  });

  it('answers RequesterUnknown before any uniqueness conflict (403 before 409)', () => {
    const reasons = [
      none,
      none,
      conditionFailed(claimHeldBy(7, 'EMAIL#jsmith@no-reply.org')),
      none,
      conditionFailed(),
    ];

    expect(errorOf(decodeCancellation(reasons, createWithEmails))).toBeInstanceOf(RequesterUnknown);
  });
});

describe('decodeCancellation: uniqueness', () => {
  it('answers duplicate email with the clashing element path and the holder read from the raw item', () => {
    const reasons = [none, none, none, conditionFailed(claimHeldBy(7, 'EMAIL#john@example.org')), none];

    const error = errorOf(decodeCancellation(reasons, createWithEmails));

    expect(error).toBeInstanceOf(UniquenessConflict);
    expect((error as UniquenessConflict).field).toBe('email');
    expect((error as UniquenessConflict).errors).toEqual([
      { path: '/Emails/@set/1/email', message: expect.any(String), existingPersonId: 7 },
    ]);
  });

  it('reports one error per clashing claim, each with its own path and holder', () => {
    const reasons = [
      none,
      none,
      conditionFailed(claimHeldBy(7, 'EMAIL#jsmith@no-reply.org')),
      conditionFailed(claimHeldBy(8, 'EMAIL#john@example.org')),
      none,
    ];

    const error = errorOf(decodeCancellation(reasons, createWithEmails)) as UniquenessConflict;

    expect(error.errors).toEqual([
      { path: '/Emails/@set/0/email', message: expect.any(String), existingPersonId: 7 },
      { path: '/Emails/@set/1/email', message: expect.any(String), existingPersonId: 8 },
    ]);
  });

  it('answers duplicate name when only a name claim clashed', () => {
    const reasons = [none, none, conditionFailed(claimHeldBy(9, 'NAME#john smith')), none];

    const error = errorOf(decodeCancellation(reasons, createNameOnly));

    expect(error).toBeInstanceOf(UniquenessConflict);
    expect((error as UniquenessConflict).field).toBe('name');
    expect((error as UniquenessConflict).errors).toEqual([
      { path: '/Names/@set/0', message: expect.any(String), existingPersonId: 9 },
    ]);
  });

  it('answers duplicate email when an email claim and a name claim both clashed', () => {
    const roles: ActionRole[] = [
      { kind: 'person' },
      { kind: 'audit' },
      { kind: 'take', claim: { field: 'name', value: 'john smith', path: '/Names/@set/0' } },
      { kind: 'take', claim: { field: 'email', value: 'jsmith@no-reply.org', path: '/Emails/@set/0/email' } },
    ];
    const reasons = [
      none,
      none,
      conditionFailed(claimHeldBy(9, 'NAME#john smith')),
      conditionFailed(claimHeldBy(7, 'EMAIL#jsmith@no-reply.org')),
    ];

    const error = errorOf(decodeCancellation(reasons, roles)) as UniquenessConflict;

    expect(error.field).toBe('email');
    expect(error.errors.map(({ path }) => path)).toEqual(['/Names/@set/0', '/Emails/@set/0/email']);
  });

  it('leaves the holder out when the reason carries no item', () => {
    const reasons = [none, none, conditionFailed(), none, none];

    const error = errorOf(decodeCancellation(reasons, createWithEmails)) as UniquenessConflict;

    expect(error.errors).toEqual([{ path: '/Emails/@set/0/email', message: expect.any(String) }]);
  });

  it('answers a clash on the email an update takes when nothing else moved', () => {
    const reasons = [none, none, conditionFailed(claimHeldBy(7, 'EMAIL#new@example.org')), none];

    const error = errorOf(decodeCancellation(reasons, updateSwappingEmail)) as UniquenessConflict;

    expect(error.field).toBe('email');
    expect(error.errors).toEqual([
      { path: '/Emails/@set/1/email', message: expect.any(String), existingPersonId: 7 },
    ]);
  });
});

describe('decodeCancellation: stale state is retried', () => {
  it.each<[string, CancellationReason[]]>([
    ['the person version moved', [conditionFailed(), none, none, none]],
    [
      'the person version moved and a claim also failed',
      [conditionFailed(), none, conditionFailed(claimHeldBy(7, 'EMAIL#new@example.org')), none],
    ],
    ['a released claim changed hands', [none, none, none, conditionFailed()]],
    [
      'a released claim changed hands and a claim also failed',
      [none, none, conditionFailed(claimHeldBy(7, 'EMAIL#new@example.org')), conditionFailed()],
    ],
  ])('retries when %s', (_, reasons) => {
    expect(decodeCancellation(reasons, updateSwappingEmail)).toEqual({ retry: true });
  });

  it.each<[string, CancellationReason[]]>([
    ['on the person', [conflict, none, none, none, none]],
    ['on a claim', [none, none, conflict, none, none]],
    ['on the requester', [none, none, none, none, conflict]],
  ])('retries a transaction conflict %s', (_, reasons) => {
    expect(decodeCancellation(reasons, createWithEmails)).toEqual({ retry: true });
  });
});

describe('decodeCancellation: nothing to say', () => {
  it.each<[string, CancellationReason[]]>([
    ['every reason is None', [none, none, none, none, none]],
    ['the codes are unknown', [{ Code: 'SomethingNew' }, none, { Code: 'SomethingNew' }, none, none]],
    [
      'a reason is a validation error',
      [{ Code: 'ValidationError', Message: 'Item size too large' }, none, none, none, none],
    ],
    ['there are no reasons at all', []],
  ])('returns undefined when %s', (_, reasons) => {
    expect(decodeCancellation(reasons, createWithEmails)).toBeUndefined();
  });
});

describe('decodeCancellation: throttled transactions', () => {
  // API.md 7: storage throttled is 503 with Retry-After. The SDK does not retry a
  // TransactionCanceledException, so an undefined outcome here becomes the repository's 500.
  it.each(['ThrottlingError', 'ProvisionedThroughputExceeded'])(
    'never leaves a transaction cancelled by %s to become a 500: it is retried or answered 503',
    (code) => {
      const outcome = decodeCancellation([{ Code: code }, none, none, none, none], createWithEmails);

      expect(outcome).toSatisfy(
        (result: CancellationOutcome | undefined) =>
          result?.retry === true || (result?.retry === false && result.error instanceof ServiceUnavailable),
        'a retry, or a ServiceUnavailable verdict',
      );
    },
  );
});
