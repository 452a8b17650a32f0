import type { AttributeValue, CancellationReason } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { PROBLEM_TYPES } from '../../../../lib/api/problems';
import type { ActionRole } from '../../../../lib/db/write/actions';
import { type CancellationOutcome, decodeCancellation } from '../../../../lib/db/write/cancellation';
import {
  type DomainError,
  RequesterUnknown,
  ServiceUnavailable,
  UniquenessConflict,
  ValidationFailed,
} from '../../../../lib/domain/errors';
import type { VocabularyKind } from '../../../../lib/domain/vocabulary';
import { problemOf } from '../../../../lib/http/problems';

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
/** A person's claim item as `ReturnValuesOnConditionCheckFailure: ALL_OLD` returns it, in raw AttributeValue form. */
const claimHeldBy = (personId: number, pk: string): Record<string, AttributeValue> => ({
  pk: { S: pk },
  sk: { S: 'CLAIM' },
  type: { S: 'Claim' },
  personId: { N: String(personId) },
});
/** A vocabulary entry's abbreviation claim item, as DynamoDB hands it back. */
const abbreviationHeldBy = (entryId: number, pk: string): Record<string, AttributeValue> => ({
  pk: { S: pk },
  sk: { S: 'CLAIM' },
  type: { S: 'Claim' },
  entryId: { N: String(entryId) },
});

const OBJECT: ActionRole = { kind: 'object' };
const HISTORY: ActionRole = { kind: 'history' };
const CHANGE_COUNTER: ActionRole = { kind: 'counter' };
const PERSON_COUNTER: ActionRole = { kind: 'counter' };
const REQUESTER: ActionRole = { kind: 'requester', requester: 5 };
const TAKE_FIRST_EMAIL: ActionRole = {
  kind: 'take',
  claim: { field: 'email', value: 'jsmith@no-reply.org', path: '/Emails/@set/0/email' },
};
const TAKE_SECOND_EMAIL: ActionRole = {
  kind: 'take',
  claim: { field: 'email', value: 'john@example.org', path: '/Emails/@set/1/email' },
};
const TAKE_NAME: ActionRole = {
  kind: 'take',
  claim: { field: 'name', value: 'john smith', path: '/Names/@set/0' },
};
const TAKE_NEW_EMAIL: ActionRole = {
  kind: 'take',
  claim: { field: 'email', value: 'new@example.org', path: '/Emails/@set/1/email' },
};
const RELEASE_OLD_EMAIL: ActionRole = {
  kind: 'release',
  claim: { field: 'email', value: 'old@example.org' },
};
const CHECK_PREFIX: ActionRole = {
  kind: 'vocabulary',
  reference: { kind: 'NamePrefix', id: 21, path: '/Names/@set/0/name_prefix_fk' },
};
const CHECK_SUFFIX: ActionRole = {
  kind: 'vocabulary',
  reference: { kind: 'NameSuffix', id: 77, path: '/Names/@set/1/name_suffix_fk' },
};

/** A create of a person with two emails, by requester 5, in the order buildWriteTransaction sends. */
const createWithEmails = [
  OBJECT,
  HISTORY,
  CHANGE_COUNTER,
  TAKE_FIRST_EMAIL,
  TAKE_SECOND_EMAIL,
  PERSON_COUNTER,
  REQUESTER,
];

/** A create of an email-less person whose Names point at a prefix and a suffix, by requester 5. */
const createNameOnly = [
  OBJECT,
  HISTORY,
  CHANGE_COUNTER,
  TAKE_NAME,
  CHECK_PREFIX,
  CHECK_SUFFIX,
  PERSON_COUNTER,
  REQUESTER,
];

/** A patch that replaces one email with another. */
const updateSwappingEmail = [OBJECT, HISTORY, CHANGE_COUNTER, TAKE_NEW_EMAIL, RELEASE_OLD_EMAIL];

/** A create (or a PATCH moving the abbreviation) of a vocabulary entry by requester 5. */
const entryWrite = (kind: VocabularyKind, moving: boolean): ActionRole[] => [
  OBJECT,
  HISTORY,
  CHANGE_COUNTER,
  { kind: 'take', claim: { field: kind, value: 'dr.', path: '/abbreviation' } },
  ...(moving ? [{ kind: 'release', claim: { field: kind, value: 'doc' } } satisfies ActionRole] : []),
  REQUESTER,
];

/** The reasons of a cancelled transaction: `None` for every action but the ones given. */
const reasonsFor = (roles: ActionRole[], ...failures: [ActionRole, CancellationReason][]) =>
  roles.map((role) => failures.find(([failed]) => failed === role)?.[1] ?? none);

const errorOf = (outcome: CancellationOutcome | undefined): DomainError => {
  if (outcome?.retry !== false) throw new Error(`Expected a verdict, got ${JSON.stringify(outcome)}`);
  return outcome.error;
};

describe('decodeCancellation: the requester', () => {
  it('answers RequesterUnknown when the requester check failed', () => {
    const reasons = reasonsFor(createWithEmails, [REQUESTER, conditionFailed()]);

    const error = errorOf(decodeCancellation(reasons, createWithEmails));

    expect(error).toBeInstanceOf(RequesterUnknown);
    expect((error as RequesterUnknown).requesterId).toBe(5);
  });

  it('answers RequesterUnknown before any uniqueness conflict (403 before 409)', () => {
    const reasons = reasonsFor(
      createWithEmails,
      [TAKE_FIRST_EMAIL, conditionFailed(claimHeldBy(7, 'EMAIL#jsmith@no-reply.org'))],
      [REQUESTER, conditionFailed()],
    );

    expect(errorOf(decodeCancellation(reasons, createWithEmails))).toBeInstanceOf(RequesterUnknown);
  });

  it('answers RequesterUnknown before a missing vocabulary entry (403 before 400)', () => {
    const reasons = reasonsFor(
      createNameOnly,
      [CHECK_PREFIX, conditionFailed()],
      [REQUESTER, conditionFailed()],
    );

    expect(errorOf(decodeCancellation(reasons, createNameOnly))).toBeInstanceOf(RequesterUnknown);
  });
});

describe('decodeCancellation: vocabulary entries a Name points at', () => {
  it('answers a 400 validation error pointing at the foreign key whose entry is missing', () => {
    const reasons = reasonsFor(createNameOnly, [CHECK_PREFIX, conditionFailed()]);

    const error = errorOf(decodeCancellation(reasons, createNameOnly));

    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).errors).toEqual([
      { path: '/Names/@set/0/name_prefix_fk', message: 'No NamePrefix with id 21' },
    ]);
    expect(PROBLEM_TYPES[problemOf(error).type].status).toBe(400);
  });

  it('names every missing entry, each at its own foreign key', () => {
    const reasons = reasonsFor(
      createNameOnly,
      [CHECK_PREFIX, conditionFailed()],
      [CHECK_SUFFIX, conditionFailed()],
    );

    const error = errorOf(decodeCancellation(reasons, createNameOnly)) as ValidationFailed;

    expect(error.errors).toEqual([
      { path: '/Names/@set/0/name_prefix_fk', message: 'No NamePrefix with id 21' },
      { path: '/Names/@set/1/name_suffix_fk', message: 'No NameSuffix with id 77' },
    ]);
  });

  it('answers the missing entry before a uniqueness conflict (400 before 409)', () => {
    const reasons = reasonsFor(
      createNameOnly,
      [TAKE_NAME, conditionFailed(claimHeldBy(9, 'NAME#john smith'))],
      [CHECK_SUFFIX, conditionFailed()],
    );

    expect(errorOf(decodeCancellation(reasons, createNameOnly))).toBeInstanceOf(ValidationFailed);
  });

  it('retries a transaction conflict on a vocabulary entry', () => {
    const reasons = reasonsFor(createNameOnly, [CHECK_PREFIX, conflict]);

    expect(decodeCancellation(reasons, createNameOnly)).toEqual({ retry: true });
  });
});

describe('decodeCancellation: uniqueness', () => {
  it('answers duplicate email with the clashing element path and the holder read from the raw item', () => {
    const reasons = reasonsFor(createWithEmails, [
      TAKE_SECOND_EMAIL,
      conditionFailed(claimHeldBy(7, 'EMAIL#john@example.org')),
    ]);

    const error = errorOf(decodeCancellation(reasons, createWithEmails));

    expect(error).toBeInstanceOf(UniquenessConflict);
    expect((error as UniquenessConflict).field).toBe('email');
    expect((error as UniquenessConflict).errors).toEqual([
      { path: '/Emails/@set/1/email', message: expect.any(String), existing: { type: 'Person', id: 7 } },
    ]);
  });

  it('reports one error per clashing claim, each with its own path and holder', () => {
    const reasons = reasonsFor(
      createWithEmails,
      [TAKE_FIRST_EMAIL, conditionFailed(claimHeldBy(7, 'EMAIL#jsmith@no-reply.org'))],
      [TAKE_SECOND_EMAIL, conditionFailed(claimHeldBy(8, 'EMAIL#john@example.org'))],
    );

    const error = errorOf(decodeCancellation(reasons, createWithEmails)) as UniquenessConflict;

    expect(error.errors).toEqual([
      { path: '/Emails/@set/0/email', message: expect.any(String), existing: { type: 'Person', id: 7 } },
      { path: '/Emails/@set/1/email', message: expect.any(String), existing: { type: 'Person', id: 8 } },
    ]);
  });

  it('answers duplicate name when only a name claim clashed', () => {
    const reasons = reasonsFor(createNameOnly, [
      TAKE_NAME,
      conditionFailed(claimHeldBy(9, 'NAME#john smith')),
    ]);

    const error = errorOf(decodeCancellation(reasons, createNameOnly));

    expect(error).toBeInstanceOf(UniquenessConflict);
    expect((error as UniquenessConflict).field).toBe('name');
    expect((error as UniquenessConflict).errors).toEqual([
      { path: '/Names/@set/0', message: expect.any(String), existing: { type: 'Person', id: 9 } },
    ]);
  });

  it('answers duplicate email when an email claim and a name claim both clashed', () => {
    const roles = [OBJECT, HISTORY, CHANGE_COUNTER, TAKE_NAME, TAKE_FIRST_EMAIL];
    const reasons = reasonsFor(
      roles,
      [TAKE_NAME, conditionFailed(claimHeldBy(9, 'NAME#john smith'))],
      [TAKE_FIRST_EMAIL, conditionFailed(claimHeldBy(7, 'EMAIL#jsmith@no-reply.org'))],
    );

    const error = errorOf(decodeCancellation(reasons, roles)) as UniquenessConflict;

    expect(error.field).toBe('email');
    expect(error.errors.map(({ path }) => path)).toEqual(['/Names/@set/0', '/Emails/@set/0/email']);
  });

  it('leaves the holder out when the reason carries no item', () => {
    const reasons = reasonsFor(createWithEmails, [TAKE_FIRST_EMAIL, conditionFailed()]);

    const error = errorOf(decodeCancellation(reasons, createWithEmails)) as UniquenessConflict;

    expect(error.errors).toEqual([{ path: '/Emails/@set/0/email', message: expect.any(String) }]);
  });

  it('answers a clash on the email an update takes when nothing else moved', () => {
    const reasons = reasonsFor(updateSwappingEmail, [
      TAKE_NEW_EMAIL,
      conditionFailed(claimHeldBy(7, 'EMAIL#new@example.org')),
    ]);

    const error = errorOf(decodeCancellation(reasons, updateSwappingEmail)) as UniquenessConflict;

    expect(error.field).toBe('email');
    expect(error.errors).toEqual([
      { path: '/Emails/@set/1/email', message: expect.any(String), existing: { type: 'Person', id: 7 } },
    ]);
  });

  it.each<[VocabularyKind, boolean]>([
    ['NamePrefix', false],
    ['NamePrefix', true],
    ['NameSuffix', false],
    ['NameSuffix', true],
  ])(
    'answers duplicate abbreviation for a %s write (moving the abbreviation: %s), naming the entry that holds it',
    (kind, moving) => {
      const roles = entryWrite(kind, moving);
      const take = roles[3] as ActionRole;
      const reasons = reasonsFor(roles, [
        take,
        conditionFailed(abbreviationHeldBy(21, `ABBREVIATION#${kind}#dr.`)),
      ]);

      const error = errorOf(decodeCancellation(reasons, roles));

      expect(error).toBeInstanceOf(UniquenessConflict);
      expect((error as UniquenessConflict).field).toBe('abbreviation');
      expect((error as UniquenessConflict).errors).toEqual([
        { path: '/abbreviation', message: expect.any(String), existing: { type: kind, id: 21 } },
      ]);
      expect(PROBLEM_TYPES[problemOf(error).type].status).toBe(409);
    },
  );

  it('retries when the abbreviation an entry releases changed hands', () => {
    const roles = entryWrite('NamePrefix', true);
    const release = roles[4] as ActionRole;

    expect(decodeCancellation(reasonsFor(roles, [release, conditionFailed()]), roles)).toEqual({
      retry: true,
    });
  });
});

describe('decodeCancellation: stale state is retried', () => {
  it.each<[string, [ActionRole, CancellationReason][]]>([
    ['the object version moved', [[OBJECT, conditionFailed()]]],
    [
      'the object version moved and a claim also failed',
      [
        [OBJECT, conditionFailed()],
        [TAKE_NEW_EMAIL, conditionFailed(claimHeldBy(7, 'EMAIL#new@example.org'))],
      ],
    ],
    ['a released claim changed hands', [[RELEASE_OLD_EMAIL, conditionFailed()]]],
    [
      'a released claim changed hands and a claim also failed',
      [
        [TAKE_NEW_EMAIL, conditionFailed(claimHeldBy(7, 'EMAIL#new@example.org'))],
        [RELEASE_OLD_EMAIL, conditionFailed()],
      ],
    ],
    [
      'the object version moved and the history entry of that version exists already',
      [
        [OBJECT, conditionFailed()],
        [HISTORY, conditionFailed()],
      ],
    ],
  ])('retries when %s', (_, failures) => {
    const reasons = reasonsFor(updateSwappingEmail, ...failures);

    expect(decodeCancellation(reasons, updateSwappingEmail)).toEqual({ retry: true });
  });

  it.each<[string, ActionRole]>([
    ['on the object', OBJECT],
    ['on the history entry', HISTORY],
    ['on the change counter', CHANGE_COUNTER],
    ['on a claim', TAKE_FIRST_EMAIL],
    ['on the person counter', PERSON_COUNTER],
    ['on the requester', REQUESTER],
  ])('retries a transaction conflict %s', (_, role) => {
    expect(decodeCancellation(reasonsFor(createWithEmails, [role, conflict]), createWithEmails)).toEqual({
      retry: true,
    });
  });
});

describe('decodeCancellation: nothing to say', () => {
  it.each<[string, CancellationReason[]]>([
    ['every reason is None', reasonsFor(createWithEmails)],
    [
      'the codes are unknown',
      reasonsFor(
        createWithEmails,
        [OBJECT, { Code: 'SomethingNew' }],
        [CHANGE_COUNTER, { Code: 'SomethingNew' }],
      ),
    ],
    [
      'a reason is a validation error',
      reasonsFor(createWithEmails, [OBJECT, { Code: 'ValidationError', Message: 'Item size too large' }]),
    ],
    ['there are no reasons at all', []],
  ])('returns undefined when %s', (_, reasons) => {
    expect(decodeCancellation(reasons, createWithEmails)).toBeUndefined();
  });
});

describe('decodeCancellation: throttled transactions', () => {
  // API.md 7: storage throttled is 503 with Retry-After. The SDK does not retry a
  // TransactionCanceledException, so an undefined outcome here becomes the repository's 500.
  it.each(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded'])(
    'never leaves a transaction cancelled by %s to become a 500: it is retried or answered 503',
    (code) => {
      const outcome = decodeCancellation(
        reasonsFor(createWithEmails, [OBJECT, { Code: code }]),
        createWithEmails,
      );

      expect(outcome).toSatisfy(
        (result: CancellationOutcome | undefined) =>
          result?.retry === true || (result?.retry === false && result.error instanceof ServiceUnavailable),
        'a retry, or a ServiceUnavailable verdict',
      );
    },
  );
});
