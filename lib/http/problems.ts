/**
 * The one place where errors become RFC 9457 problem+json (API.md 7), of the types lib/api/problems.ts
 * catalogues. Domain errors map by class;
 * the HTTP edge throws `HttpProblem` for what only HTTP knows (media types, sizes, headers). Anything
 * else is a 500 whose message never reaches the client.
 */

import { PROBLEM_TYPES, type ProblemBody, type ProblemType, problemTypeUri } from '../api/problems';
import {
  DelegateRequired,
  type FieldError,
  NotFound,
  PairDecided,
  PersonErased,
  PersonMerged,
  PersonNotMerged,
  PreconditionFailed,
  PrincipalAlreadyBound,
  RequesterMismatch,
  RequesterUnknown,
  ServiceUnavailable,
  Unauthorized,
  UniquenessConflict,
  ValidationFailed,
  WebhookUrlRefused,
} from '../domain/errors';
import { strongTag } from '../domain/preconditions';
import { resourceUrl } from '../domain/representation';

/** A problem only the HTTP edge can see. */
export class HttpProblem extends Error {
  constructor(
    readonly type: ProblemType,
    readonly detail: string,
    readonly errors: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpProblem';
  }
}

export interface Problem {
  type: ProblemType;
  detail: string;
  errors: FieldError[];
  headers: Record<string, string>;
}

const problem = (type: ProblemType, detail: string, errors: FieldError[] = [], headers = {}): Problem => ({
  type,
  detail,
  errors,
  headers,
});

/**
 * How long a request that met its key's first request still running is asked to wait: a write takes
 * tens of milliseconds, one that meets others up to its retry budget, so a second is a fair first try.
 */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

/**
 * Powertools' idempotency refusals (lib/http/idempotency.ts), known by their names as Powertools itself
 * tells its errors apart: importing its classes here would load the idempotency utility into every
 * function, the self-description ones included, for a comparison. Its other errors (the store out of
 * reach, a record in a state it does not know) are 500s like any other.
 */
const idempotencyProblemOf = (error: unknown): Problem | undefined => {
  const name = error instanceof Error ? error.name : undefined;
  if (name === 'IdempotencyAlreadyInProgressError')
    return problem(
      'request-in-progress',
      'The first request with this Idempotency-Key is still running: send this one again shortly',
      [],
      { 'Retry-After': String(IN_PROGRESS_RETRY_AFTER_SECONDS) },
    );
  if (name === 'IdempotencyValidationError')
    return problem(
      'idempotency-key-reused',
      'This Idempotency-Key was sent with another method, path or body: use a new key for a new request',
    );
  return undefined;
};

/** Classifies any thrown value. Unknown errors become `internal-error` with a detail that says nothing. */
export const problemOf = (error: unknown): Problem => {
  if (error instanceof HttpProblem) return problem(error.type, error.detail, error.errors, error.headers);
  const idempotency = idempotencyProblemOf(error);
  if (idempotency) return idempotency;
  if (error instanceof ValidationFailed) return problem('validation-error', error.message, error.errors);
  if (error instanceof NotFound) return problem('not-found', error.message);
  if (error instanceof RequesterUnknown) return problem('unknown-requester', error.message);
  if (error instanceof Unauthorized)
    return problem('unauthorized', error.message, [], { 'WWW-Authenticate': 'Bearer' });
  if (error instanceof RequesterMismatch) return problem('requester-mismatch', error.message);
  if (error instanceof DelegateRequired) return problem('delegate-required', error.message);
  if (error instanceof PrincipalAlreadyBound)
    return problem(
      'principal-already-bound',
      error.message,
      error.existing === null
        ? []
        : [
            {
              path: '',
              message: "The caller's own person",
              existing: { type: 'Person', id: error.existing },
            },
          ],
    );
  if (error instanceof PersonMerged)
    return problem('merged', error.message, [
      {
        path: '',
        message: 'Send the change to this person',
        existing: { type: 'Person', id: error.survivor },
      },
    ]);
  if (error instanceof PersonErased) return problem('erased', error.message);
  if (error instanceof WebhookUrlRefused) return problem('webhook-url-refused', error.message);
  if (error instanceof PairDecided) return problem('pair-decided', error.message);
  if (error instanceof PersonNotMerged)
    return problem(
      'not-merged',
      error.message,
      error.survivor === null
        ? []
        : [
            {
              path: '/source',
              message: 'The person it was merged into',
              existing: { type: 'Person', id: error.survivor },
            },
          ],
    );
  if (error instanceof UniquenessConflict)
    return problem(`duplicate-${error.field}`, error.message, error.errors);
  if (error instanceof PreconditionFailed)
    return problem('precondition-failed', error.message, [], { ETag: strongTag(error.currentVersion) });
  if (error instanceof ServiceUnavailable)
    return problem('unavailable', 'Please retry shortly', [], {
      'Retry-After': String(error.retryAfterSeconds),
    });
  return problem('internal-error', 'The request could not be completed; it has been logged');
};

export const problemBody = (
  { type, detail, errors }: Problem,
  instance: string,
  baseUrl: string,
): ProblemBody => ({
  type: problemTypeUri(type),
  title: PROBLEM_TYPES[type].title,
  status: PROBLEM_TYPES[type].status,
  detail,
  instance,
  ...(errors.length > 0
    ? {
        errors: errors.map(({ path, message, existing }) => ({
          path,
          message,
          ...(existing ? { existing: resourceUrl(baseUrl, existing.type, existing.id) } : {}),
        })),
      }
    : {}),
});
