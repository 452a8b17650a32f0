/**
 * Requester binding (API.md 9.1, issue #40): who the caller is (its principal: the JWT's issuer and
 * subject, or the IAM caller's ARN), whether it is a delegate, and what that lets a write name as its
 * requester. Pure: the edge reads API Gateway's authorizer context into a `Caller`; storage enforces
 * the ruling in the write's own transaction (db/write/actions.ts `bindingActions`, `callerCheck`).
 */
import { DelegateRequired, Unauthorized } from './errors';

export type Principal = { kind: 'jwt'; issuer: string; subject: string } | { kind: 'iam'; arn: string };

/** An IAM principal's ARN, as API Gateway's IAM authorizer names the caller (a user, role or session). */
export const IAM_ARN = /^arn:aws[\w-]*:(iam|sts)::\d{12}:\S+$/;

/** The scope that makes a JWT caller a delegate: it may write as any person (importers, admin tools). */
export const DELEGATE_SCOPE = 'persons/delegate';

/**
 * What API Gateway (HTTP API, payload 2.0) puts in `requestContext.authorizer`: the JWT authorizer's
 * claims and scopes, or the IAM authorizer's caller.
 */
export interface AuthorizerContext {
  iam?: { userArn?: string | null };
  jwt?: { claims?: Record<string, unknown>; scopes?: readonly string[] | null };
}

export interface Caller {
  /** Null when the request carries no authenticated caller (binding on: 401). */
  principal: Principal | null;
  delegate: boolean;
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

/** A JWT's scopes: `scope` (space-separated, RFC 8693) or `scp` (a list or a string), and API Gateway's own. */
export const scopesOf = ({ claims = {}, scopes }: NonNullable<AuthorizerContext['jwt']>): string[] => {
  const listed = (value: unknown): string[] =>
    Array.isArray(value)
      ? value.filter((scope): scope is string => typeof scope === 'string')
      : typeof value === 'string'
        ? value.split(/\s+/).filter(Boolean)
        : [];
  return [...new Set([...listed(claims.scope), ...listed(claims.scp), ...(scopes ?? [])])];
};

/** The caller an authorizer authenticated, and whether it is a delegate (`delegates`: IAM ARNs). */
export const callerOf = (authorizer: AuthorizerContext | undefined, delegates: readonly string[]): Caller => {
  const arn = text(authorizer?.iam?.userArn);
  if (arn) return { principal: { kind: 'iam', arn }, delegate: delegates.includes(arn) };
  const jwt = authorizer?.jwt;
  const [issuer, subject] = [text(jwt?.claims?.iss), text(jwt?.claims?.sub)];
  if (!jwt || !issuer || !subject) return { principal: null, delegate: false };
  return { principal: { kind: 'jwt', issuer, subject }, delegate: scopesOf(jwt).includes(DELEGATE_SCOPE) };
};

/**
 * The principal a binding body names (PUT /Person/{id}/principal): a JWT's `issuer` and `subject`, or
 * an IAM caller's `arn` (schemas.ts `PrincipalBody` admits one form or the other).
 */
export const principalOfBody = (body: { issuer?: string; subject?: string; arn?: string }): Principal =>
  body.arn !== undefined
    ? { kind: 'iam', arn: body.arn }
    : { kind: 'jwt', issuer: body.issuer ?? '', subject: body.subject ?? '' };

/** A principal as one string: what its binding item is keyed by (keys.ts hashes it). */
export const principalName = (principal: Principal): string =>
  principal.kind === 'iam' ? `iam ${principal.arn}` : `jwt ${principal.issuer} ${principal.subject}`;

/**
 * What a write must prove about its requester:
 * - `open`: only that it is a person (binding off, or a delegate), as API.md 5.1 says;
 * - `register`: a self-registration (requester 0 on POST) binds the new person to `principal`;
 * - `own`: the requester is `principal`'s own person.
 */
export type RequesterRuling =
  | { kind: 'open' }
  | { kind: 'register'; principal: Principal }
  | { kind: 'own'; principal: Principal };

export const OPEN: RequesterRuling = { kind: 'open' };

/**
 * Who may send a write with requester binding on, a property of the operation (lib/api/requester.ts
 * declares it per operation):
 * - `persons`: any authenticated caller, as its own person (a delegate as any person);
 * - `delegates`: delegates only. The write rewrites who someone is: a merge moves the source's binding
 *   to the survivor, as `PUT /Person/{id}/principal` binds one, so a caller that could send it would
 *   choose whose binding moves where (Alice merging Bob's person into one Bob does not hold) or which
 *   person it writes as next (Erin merging her own person into any unbound one).
 */
export type WriteCallers = 'persons' | 'delegates';

/** What a caller that is no delegate is told when a `delegates` write refuses it. */
const REWRITES_WHO = 'make this change with requester binding on: it moves a principal to another person';

/**
 * The ruling for a write naming `requester` (0: self-registration, on a create only) by `caller`.
 * Without binding every caller is open; with it, an unauthenticated one is refused, a delegate is open
 * (it registers no one: a delegate creating a person with requester 0 binds nothing), and a write for
 * `delegates` refuses anyone else (403 `delegate-required`) before anything is read or written.
 */
export const requesterRuling = (
  binding: boolean,
  caller: Caller,
  requester: number,
  callers: WriteCallers = 'persons',
): RequesterRuling => {
  if (!binding) return OPEN;
  if (!caller.principal) throw new Unauthorized();
  if (caller.delegate) return OPEN;
  if (callers === 'delegates') throw new DelegateRequired(REWRITES_WHO);
  return requester === 0
    ? { kind: 'register', principal: caller.principal }
    : { kind: 'own', principal: caller.principal };
};
