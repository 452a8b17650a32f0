import {
  IdempotencyAlreadyInProgressError,
  IdempotencyPersistenceLayerError,
  IdempotencyValidationError,
} from '@aws-lambda-powertools/idempotency';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  DomainError,
  PersonNotFound,
  PreconditionFailed,
  RequesterUnknown,
  ServiceUnavailable,
  UniquenessConflict,
  ValidationFailed,
  WebhookUrlRefused,
} from '../../../lib/domain/errors';
import { HttpProblem, problemBody, problemOf } from '../../../lib/http/problems';

const BASE_URL = 'https://api.example.test/prod';

const bodyFor = (error: unknown, instance = '/Person') => problemBody(problemOf(error), instance, BASE_URL);

describe('problemOf and problemBody: the table of API.md 7', () => {
  it.each<[string, unknown, number, string]>([
    [
      'ValidationFailed',
      new ValidationFailed([{ path: '/Names', message: 'A person needs at least one Name' }]),
      400,
      'validation-error',
    ],
    [
      'HttpProblem validation-error',
      new HttpProblem('validation-error', 'The body is not valid JSON'),
      400,
      'validation-error',
    ],
    [
      'HttpProblem missing-requester',
      new HttpProblem('missing-requester', 'Send it'),
      400,
      'missing-requester',
    ],
    [
      'HttpProblem invalid-requester',
      new HttpProblem('invalid-requester', 'Not an id'),
      400,
      'invalid-requester',
    ],
    ['RequesterUnknown', new RequesterUnknown(5), 403, 'unknown-requester'],
    ['WebhookUrlRefused', new WebhookUrlRefused('10.0.0.7 is a private address'), 400, 'webhook-url-refused'],
    ['PersonNotFound', new PersonNotFound(12), 404, 'not-found'],
    ['HttpProblem not-found', new HttpProblem('not-found', 'No such route'), 404, 'not-found'],
    [
      'HttpProblem method-not-allowed',
      new HttpProblem('method-not-allowed', 'No DELETE', [], { Allow: 'GET, PATCH' }),
      405,
      'method-not-allowed',
    ],
    [
      'UniquenessConflict on email',
      new UniquenessConflict('email', [{ path: '/Emails/@set/0/email', message: 'taken' }]),
      409,
      'duplicate-email',
    ],
    [
      'UniquenessConflict on name',
      new UniquenessConflict('name', [{ path: '/Names/@set/0', message: 'taken' }]),
      409,
      'duplicate-name',
    ],
    [
      'UniquenessConflict on abbreviation',
      new UniquenessConflict('abbreviation', [{ path: '/abbreviation', message: 'taken' }]),
      409,
      'duplicate-abbreviation',
    ],
    [
      'PreconditionFailed',
      new PreconditionFailed(4, { kind: 'exists' }, 'person'),
      412,
      'precondition-failed',
    ],
    [
      'HttpProblem payload-too-large',
      new HttpProblem('payload-too-large', 'Too big'),
      413,
      'payload-too-large',
    ],
    [
      'HttpProblem unsupported-media-type',
      new HttpProblem('unsupported-media-type', 'Not JSON'),
      415,
      'unsupported-media-type',
    ],
    ['ServiceUnavailable', new ServiceUnavailable('Storage is unavailable', 2), 503, 'unavailable'],
    [
      "Powertools' IdempotencyAlreadyInProgressError",
      new IdempotencyAlreadyInProgressError('in progress'),
      409,
      'request-in-progress',
    ],
    [
      "Powertools' IdempotencyValidationError",
      new IdempotencyValidationError('payload differs'),
      422,
      'idempotency-key-reused',
    ],
    [
      "Powertools' IdempotencyPersistenceLayerError (the store out of reach)",
      new IdempotencyPersistenceLayerError('store failed'),
      500,
      'internal-error',
    ],
    ['an unknown Error', new Error('boom'), 500, 'internal-error'],
  ])('maps %s to %i /problems/%s', (_, error, status, type) => {
    const body = bodyFor(error);

    expect(problemOf(error).type).toBe(type);
    expect(body.status).toBe(status);
    expect(body.type).toBe(`/problems/${type}`);
    expect(body.title).toEqual(expect.any(String));
    expect(body.title.length).toBeGreaterThan(0);
  });

  it('titles duplicate-email as in the contract', () => {
    expect(bodyFor(new UniquenessConflict('email', [])).title).toBe('Email address already in use');
  });

  it('says in the detail of webhook-url-refused why the URL is refused', () => {
    expect(bodyFor(new WebhookUrlRefused('10.0.0.7 is a private address'), '/Subscription').detail).toBe(
      'The webhook URL is refused: 10.0.0.7 is a private address',
    );
  });

  it('sends Retry-After with 503, in seconds', () => {
    expect(problemOf(new ServiceUnavailable('Storage is unavailable', 3)).headers).toEqual({
      'Retry-After': '3',
    });
  });

  it('sends Retry-After with request-in-progress, a second, and no message of Powertools', () => {
    const problem = problemOf(new IdempotencyAlreadyInProgressError('key idempotency#abc is in progress'));
    expect(problem.headers).toEqual({ 'Retry-After': '1' });
    expect(problem.detail).not.toContain('idempotency#');
  });

  it('sends the current ETag with 412', () => {
    expect(problemOf(new PreconditionFailed(4, { kind: 'exists' }, 'person')).headers).toEqual({
      ETag: '"4"',
    });
  });

  it('titles precondition-failed for any versioned object, not only persons', () => {
    expect(
      bodyFor(new PreconditionFailed(4, { kind: 'exists' }, 'NamePrefix'), '/NamePrefix/21').title,
    ).not.toMatch(/person/i);
  });

  it('keeps the headers an HttpProblem carries, such as Allow on 405', () => {
    expect(
      problemOf(new HttpProblem('method-not-allowed', 'No DELETE', [], { Allow: 'GET, PATCH' })).headers,
    ).toEqual({
      Allow: 'GET, PATCH',
    });
  });

  it('sends no extra headers with other problems', () => {
    expect(problemOf(new PersonNotFound(12)).headers).toEqual({});
    expect(problemOf(new Error('boom')).headers).toEqual({});
  });
});

describe('problemBody', () => {
  it('builds the RFC 9457 body of a uniqueness conflict, with the holder as an absolute person URL', () => {
    const conflict = new UniquenessConflict('email', [
      {
        path: '/Emails/@set/1/email',
        message: 'jsmith@no-reply.org is already used',
        existing: { type: 'Person', id: 30711 },
      },
      { path: '/Emails/@set/2/email', message: 'listed twice on this person' },
    ]);

    expect(bodyFor(conflict, '/Person')).toEqual({
      type: '/problems/duplicate-email',
      title: 'Email address already in use',
      status: 409,
      detail: expect.any(String),
      instance: '/Person',
      errors: [
        {
          path: '/Emails/@set/1/email',
          message: 'jsmith@no-reply.org is already used',
          existing: 'https://api.example.test/prod/Person/30711',
        },
        { path: '/Emails/@set/2/email', message: 'listed twice on this person' },
      ],
    });
  });

  it.each<[string, number, string]>([
    ['NamePrefix', 21, 'https://api.example.test/prod/NamePrefix/21'],
    ['NameSuffix', 19, 'https://api.example.test/prod/NameSuffix/19'],
  ])('links a duplicate abbreviation to the %s entry that holds it', (type, id, url) => {
    const conflict = new UniquenessConflict('abbreviation', [
      { path: '/abbreviation', message: 'Another entry has this abbreviation', existing: { type, id } },
    ]);

    expect(bodyFor(conflict, `/${type}`)).toEqual({
      type: '/problems/duplicate-abbreviation',
      title: expect.any(String),
      status: 409,
      detail: expect.any(String),
      instance: `/${type}`,
      errors: [{ path: '/abbreviation', message: 'Another entry has this abbreviation', existing: url }],
    });
  });

  it('echoes the instance it is given', () => {
    expect(bodyFor(new PersonNotFound(12), '/Person/12').instance).toBe('/Person/12');
  });

  it('carries the field errors of a validation failure', () => {
    const failure = new ValidationFailed([
      { path: '/Names/@set/0/last_name', message: 'A structured Name needs both first_name and last_name' },
    ]);
    expect(bodyFor(failure).errors).toEqual([
      { path: '/Names/@set/0/last_name', message: 'A structured Name needs both first_name and last_name' },
    ]);
  });
});

describe('problemOf: anything unmapped is a 500 that says nothing', () => {
  const secrets = [
    'ResourceNotFoundException: Requested resource not found: Table: people-prod-7f3a not found',
    'TypeError: Cannot read properties of undefined (reading "pk")\n    at fromPersonItem (/var/task/lib/db/person-items.ts:31:12)',
    'User: arn:aws:sts::123456789012:assumed-role/people-fn is not authorized to perform: dynamodb:PutItem',
  ];

  it.each<[string, unknown]>([
    ['an Error naming a table', new Error(secrets[0])],
    ['a TypeError with a stack in its message', new TypeError(secrets[1])],
    [
      'an SDK error',
      new ConditionalCheckFailedException({ message: secrets[2] ?? '', $metadata: { httpStatusCode: 400 } }),
    ],
    ['the base DomainError', new DomainError(secrets[0] ?? '')],
    ['a thrown string', secrets[1]],
    ['undefined', undefined],
  ])('maps %s to internal-error and leaks none of its message', (_, error) => {
    const body = bodyFor(error, '/Person/12');
    const wire = JSON.stringify(body);

    expect(body.type).toBe('/problems/internal-error');
    expect(body.status).toBe(500);
    expect(body).not.toHaveProperty('errors');
    for (const fragment of [
      'people-prod',
      'person-items.ts',
      '/var/task',
      'arn:aws',
      'Cannot read',
      'not authorized',
    ]) {
      expect(wire).not.toContain(fragment);
    }
    if (error instanceof Error) expect(wire).not.toContain(error.message);
  });

  it('does not reveal the stack of an unknown error', () => {
    const error = new Error('boom');
    const wire = JSON.stringify(bodyFor(error));

    expect(wire).not.toContain('    at ');
    expect(wire).not.toContain(error.stack?.split('\n')[1]?.trim() ?? 'unreachable');
  });

  it('does not reveal the cause of a ServiceUnavailable', () => {
    const cause = new Error(secrets[0]);
    const wire = JSON.stringify(bodyFor(new ServiceUnavailable('Storage is unavailable', 1, { cause })));
    expect(wire).not.toContain('people-prod');
  });
});
