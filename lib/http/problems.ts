/**
 * The one place where errors become RFC 9457 problem+json (API.md 7). Domain errors map by class;
 * the HTTP edge throws `HttpProblem` for what only HTTP knows (media types, sizes, headers). Anything
 * else is a 500 whose message never reaches the client.
 */
import {
  type FieldError,
  NotFound,
  PreconditionFailed,
  RequesterUnknown,
  ServiceUnavailable,
  UniquenessConflict,
  ValidationFailed,
} from '../domain/errors';
import { strongTag } from '../domain/preconditions';
import { resourceUrl } from '../domain/representation';

export const PROBLEM_TYPES = {
  'validation-error': { status: 400, title: 'The request is not valid' },
  'missing-requester': { status: 400, title: 'The x-requester-person header is required' },
  'invalid-requester': { status: 400, title: 'The x-requester-person header is not a valid person id' },
  'unknown-requester': { status: 403, title: 'The requester is not a person' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'request-timeout': { status: 408, title: 'The request did not arrive in time' },
  'duplicate-email': { status: 409, title: 'Email address already in use' },
  'duplicate-name': { status: 409, title: 'A person with this name and no email already exists' },
  'duplicate-abbreviation': { status: 409, title: 'Another entry has this abbreviation' },
  'precondition-failed': {
    status: 412,
    title: "The object is not in the state the request's precondition requires",
  },
  'payload-too-large': { status: 413, title: 'The request body is too large' },
  'unsupported-media-type': { status: 415, title: 'The request body must be JSON' },
  'headers-too-large': { status: 431, title: 'The request line and headers are too large' },
  unavailable: { status: 503, title: 'The service is temporarily unavailable' },
  'internal-error': { status: 500, title: 'Internal error' },
} as const;

export type ProblemType = keyof typeof PROBLEM_TYPES;

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

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  errors?: { path: string; message: string; existing?: string }[];
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

/** Classifies any thrown value. Unknown errors become `internal-error` with a detail that says nothing. */
export const problemOf = (error: unknown): Problem => {
  if (error instanceof HttpProblem) return problem(error.type, error.detail, error.errors, error.headers);
  if (error instanceof ValidationFailed) return problem('validation-error', error.message, error.errors);
  if (error instanceof NotFound) return problem('not-found', error.message);
  if (error instanceof RequesterUnknown) return problem('unknown-requester', error.message);
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
  type: `/problems/${type}`,
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
