/**
 * Domain errors: what went wrong in the terms of the contract, free of HTTP and AWS. The one table that
 * turns them into problem+json lives in lib/http/problems.ts.
 */
import type { ErasedPerson } from './erasure';
import { type PreconditionRefusal, refusalMessage } from './preconditions';

/** One offending element of a request, named by the JSON Pointer of its place in the body. */
export interface FieldError {
  path: string;
  message: string;
  /** The object that already holds a unique value (uniqueness conflicts only): its type and id. */
  existing?: { type: string; id: number };
}

export class DomainError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class ValidationFailed extends DomainError {
  constructor(
    readonly errors: FieldError[],
    message = 'The request is not valid',
  ) {
    super(message);
  }
}

export class NotFound extends DomainError {
  constructor(
    readonly resource: string,
    readonly id: number | string,
  ) {
    super(`No ${resource} with id ${id}`);
  }
}

export class PersonNotFound extends NotFound {
  constructor(readonly personId: number | string) {
    super('Person', personId);
  }
}

/** A decision on a duplicate pair no longer open (API.md 12.1): 409 `pair-decided`. */
export class PairDecided extends DomainError {
  constructor(
    readonly pairId: string,
    readonly status: string,
  ) {
    super(`The pair ${pairId} is ${status}, not open: it takes no decision`);
  }
}

export class RequesterUnknown extends DomainError {
  constructor(readonly requesterId: number) {
    super(`Requester ${requesterId} is not a person`);
  }
}

/**
 * A person merged into another (API.md 13): it takes no PATCH and no merge (409 `merged`), and GET
 * answers 301 to `survivor`, the live end of its chain.
 */
export class PersonMerged extends DomainError {
  constructor(
    readonly personId: number,
    readonly survivor: number,
  ) {
    super(`Person ${personId} was merged into person ${survivor}`);
  }
}

/**
 * An unmerge of a person that was not merged into this one (API.md 13.1): 409 `not-merged`; when it
 * was merged into another, `survivor` names that one.
 */
export class PersonNotMerged extends DomainError {
  constructor(
    readonly personId: number,
    readonly into: number,
    readonly survivor: number | null,
  ) {
    super(
      survivor === null
        ? `Person ${personId} is not merged into any person`
        : `Person ${personId} was merged into person ${survivor}, not into person ${into}`,
    );
  }
}

/**
 * A person erased (API.md 15): GET answers 410 with its tombstone, and every write of it is 410
 * `erased`.
 */
export class PersonErased extends DomainError {
  constructor(readonly tombstone: ErasedPerson) {
    super(`Person ${tombstone.id} was erased`);
  }
}

/**
 * The requester named a person merged into another (API.md 13): the write is made again as `survivor`
 * (write/send.ts `asRequester`); never answered to a client as it is.
 */
export class RequesterMerged extends DomainError {
  constructor(
    readonly requesterId: number,
    readonly survivor: number,
  ) {
    super(`Requester ${requesterId} was merged into person ${survivor}`);
  }
}

/** No authenticated caller while binding is on (401 `unauthorized`, API.md 9.1). */
export class Unauthorized extends DomainError {
  constructor() {
    super('A valid token is required');
  }
}

/** The requester is not the caller's own person (403 `requester-mismatch`). */
export class RequesterMismatch extends DomainError {
  constructor(readonly requesterId: number) {
    super(`The caller may write only as its own person, not as person ${requesterId}`);
  }
}

/**
 * An operation for delegates only asked by another caller (403 `delegate-required`, API.md 9.1):
 * binding or unbinding a principal, or, with requester binding on, a write that moves a binding (a
 * merge). `what` says what only a delegate may do.
 */
export class DelegateRequired extends DomainError {
  constructor(what = 'bind or unbind a principal') {
    super(`Only a delegate may ${what}`);
  }
}

/** A principal or a person bound already (409 `principal-already-bound`); `existing` is its person. */
export class PrincipalAlreadyBound extends DomainError {
  constructor(readonly existing: number | null) {
    super(
      existing === null
        ? 'The person is bound to another principal'
        : `The principal is bound to person ${existing} already`,
    );
  }
}

export type UniqueField = 'email' | 'name' | 'abbreviation';

const UNIQUENESS_MESSAGES: Record<UniqueField, string> = {
  email: 'Email address already in use',
  name: 'A person with this name and no email exists',
  abbreviation: 'Another entry of this vocabulary has this abbreviation',
};

export class UniquenessConflict extends DomainError {
  constructor(
    readonly field: UniqueField,
    readonly errors: FieldError[],
  ) {
    super(UNIQUENESS_MESSAGES[field]);
  }
}

/**
 * A conditional write refused (API.md 2.1): the version the object is at (the 412's ETag) and why,
 * told of the object by its name (`person`, `NamePrefix`).
 */
export class PreconditionFailed extends DomainError {
  constructor(
    readonly currentVersion: number,
    readonly refusal: PreconditionRefusal,
    readonly object: string,
  ) {
    super(refusalMessage(refusal, object, currentVersion));
  }
}

/**
 * A webhook URL that may not be a target (API.md 16, "No internal targets"): not `https`, credentials
 * in it, or a host that is or resolves to an internal address. 400 `webhook-url-refused`; `reason`
 * says why, in words a subscriber can act on.
 */
export class WebhookUrlRefused extends DomainError {
  constructor(
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`The webhook URL is refused: ${reason}`, options);
  }
}

/** Storage throttled, unreachable or still contended after the bounded retries: the client may retry. */
export class ServiceUnavailable extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
