/**
 * The problem types of the API (API.md 7): each one's status, title and description, and the shape of a
 * problem+json body. Data only: lib/http maps errors onto these, lib/docs describes them and serves
 * their pages, and neither owns them.
 */

/** Each problem type's status and title: the catalogue of API.md 7. */
const STATUS_AND_TITLE = {
  'validation-error': { status: 400, title: 'The request is not valid' },
  'missing-requester': { status: 400, title: 'The x-requester-person header is required' },
  'invalid-requester': { status: 400, title: 'The x-requester-person header is not a valid person id' },
  unauthorized: { status: 401, title: 'A valid token is required' },
  'unknown-requester': { status: 403, title: 'The requester is not a person' },
  'requester-mismatch': { status: 403, title: "The requester is not the caller's own person" },
  'delegate-required': { status: 403, title: 'Only a delegate may do this' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'request-timeout': { status: 408, title: 'The request did not arrive in time' },
  'duplicate-email': { status: 409, title: 'Email address already in use' },
  'duplicate-name': { status: 409, title: 'A person with this name and no email already exists' },
  'duplicate-abbreviation': { status: 409, title: 'Another entry has this abbreviation' },
  merged: { status: 409, title: 'The person was merged into another' },
  'not-merged': { status: 409, title: 'The person was not merged into this one' },
  'pair-decided': { status: 409, title: 'The duplicate pair was decided already' },
  erased: { status: 410, title: 'The person was erased' },
  'webhook-url-refused': { status: 400, title: 'The webhook URL may not be a target' },
  'principal-already-bound': { status: 409, title: 'The caller or the person is bound already' },
  'request-in-progress': {
    status: 409,
    title: 'A request with this Idempotency-Key is still being answered',
  },
  'idempotency-key-reused': {
    status: 422,
    title: 'This Idempotency-Key was sent with another request',
  },
  'precondition-failed': {
    status: 412,
    title: "The object is not in the state the request's precondition requires",
  },
  'payload-too-large': { status: 413, title: 'The request body is too large' },
  'unsupported-media-type': {
    status: 415,
    title: 'The request body is not in a media type this route takes',
  },
  'headers-too-large': { status: 431, title: 'The request line and headers are too large' },
  unavailable: { status: 503, title: 'The service is temporarily unavailable' },
  'internal-error': { status: 500, title: 'Internal error' },
} as const;

/**
 * What each problem type means and what a client should do about it: the page that its `type`
 * (`/problems/<name>`) resolves to. Kept beside the catalogue, one entry per type: the compiler refuses
 * a type without one. `code spans` are set as code on the HTML page.
 */
const DESCRIPTIONS: Record<keyof typeof STATUS_AND_TITLE, string> = {
  'validation-error':
    'The body or the query string breaks a rule of the API: JSON that does not parse, a body that is ' +
    'empty or not valid UTF-8, a value of the wrong type or past a limit, a Person without a Name, a ' +
    'property or query parameter the operation does not know. `detail` says what is wrong and each entry ' +
    'of `errors` points at the offending value with a JSON Pointer (`path`). Correct the request; sending ' +
    'it again unchanged gets the same answer.',
  'missing-requester':
    'A POST or PATCH came without the `x-requester-person` header, which names the person making the ' +
    'change (every write is attributed to someone). Send it with the id of that person, or `0` on a ' +
    'POST /Person by which a person registers themselves.',
  'invalid-requester':
    'The `x-requester-person` header is not a non-negative whole number, or it is `0` where only an ' +
    'existing person may write (`0` is for a person registering themselves with POST /Person). Send ' +
    'the id of the person making the change.',
  unauthorized:
    'Requester binding is on and the request carries no valid token (`Authorization: Bearer`, checked ' +
    'for its signature, issuer, audience and validity) or IAM signature: who writes cannot be told. ' +
    'Send the request with a valid token. Nothing was written.',
  'requester-mismatch':
    "Requester binding is on, and `x-requester-person` names a person other than the caller's own " +
    "(the person the token's principal is bound to; a principal bound to none may only register itself " +
    "with `0`). Send the id of the caller's own person (`GET /Person/me` answers it), or call as a " +
    'delegate. Nothing was written.',
  'delegate-required':
    'Binding a principal to a person, or unbinding it (`PUT` and `DELETE /Person/{id}/principal`), is ' +
    'for delegates only, and so, with requester binding on, is every change that moves a binding from ' +
    "one person to another: a merge (`POST /Person/{id}/merge`, its preview too) moves the source's " +
    'binding to the survivor. A delegate is a JWT caller with the scope `persons/delegate`, or an IAM ' +
    "principal listed in the deploy option `delegates`. Call with a delegate's credentials. Nothing " +
    'was changed.',
  'unknown-requester':
    'The `x-requester-person` header names no person, and no write is attributed to nobody. Send the ' +
    'id of an existing person; a new person can register themselves with POST /Person and `0`.',
  'not-found':
    'Nothing is at this URL: no person, vocabulary entry or change with that id, or no route at that ' +
    'path. Check the id and the path; the ids in `@id` links and `existing` are the ones to use.',
  'method-not-allowed':
    'The resource exists but does not take this method. The `Allow` header lists the methods it takes.',
  'request-timeout':
    'The request line, headers or body did not arrive within the time the server waits for them. Send ' +
    'the request again, whole.',
  'duplicate-email':
    'An email address of the request is already used by another person, or twice in this one: email ' +
    'addresses are unique across the service, compared trimmed and without regard to case. Each entry ' +
    'of `errors` points at the address and, for another person, links that person in `existing`: use ' +
    'or update that record instead of creating a duplicate, or send another address. Nothing was written.',
  'duplicate-name':
    'Another person without an email address already has this primary name (compared without regard to ' +
    'case and accents), and a person without an email is told apart by name alone. `existing` links that ' +
    'person: use or update that record, or give the new person an email address. Nothing was written.',
  'duplicate-abbreviation':
    'Another entry of this vocabulary (NamePrefix or NameSuffix) already has this abbreviation, compared ' +
    'without regard to case and accents. Use that entry, whose link is in `existing`, or choose another ' +
    'abbreviation. Nothing was written.',
  'principal-already-bound':
    'Requester binding is on, and the binding asked for would give a principal a second person or a ' +
    'person a second principal: a self-registration (`x-requester-person: 0`) by a caller bound already ' +
    '(`existing` links its person), or a merge of two persons bound to different principals. Nothing was ' +
    'written.',
  merged:
    'The person was merged into another (a duplicate merged into its survivor) and takes no more changes: ' +
    'its GET answers 301 to the survivor. `existing` links the survivor: send the change there. Nothing ' +
    'was written.',
  'not-merged':
    'An unmerge names a `source` that was never merged into this person: it is live, or it was merged ' +
    'into another person (then `existing` links that one: undo the merge there). Nothing was written.',
  'pair-decided':
    'A steward decided this duplicate pair already, or it left the queue (`GET /duplicates/{pairId}` shows ' +
    'its `status`: `not-duplicate`, `merged`, or `resolved` when one of its persons was merged elsewhere ' +
    'or erased): a decision is taken once, on an open pair. Nothing was written.',
  erased:
    'The person was erased (the right to erasure): every personal value it held is gone, and only its id ' +
    'is kept, as a tombstone that its GET answers with this status (`live_status` 0, `erased` naming ' +
    'when). It takes no more changes: a PATCH, a merge or an unmerge of it, or the replay of an earlier ' +
    'write to it, is refused with this problem. Nothing was written.',
  'webhook-url-refused':
    'A subscription names a URL the service will not deliver to: it is not `https` (plain `http` is ' +
    'taken only to a loopback address, and only where the service runs with ' +
    '`WEBHOOKS_ALLOW_LOOPBACK=on`), it carries a user name or password, or its host is, or resolves ' +
    'to, an address inside a network rather than on the internet: private, loopback, link-local (the ' +
    'cloud metadata service among them), carrier-grade NAT, multicast, broadcast, unspecified, ' +
    'reserved or IPv6 unique-local, written in any form, an IPv4 address inside an IPv6 one included. ' +
    'Every address a name resolves to is checked, at registration and again at every delivery. ' +
    '`detail` says which rule the URL breaks. Give a public `https` URL. Nothing was written.',
  'request-in-progress':
    'The first request sent with this `Idempotency-Key` (by the same requester) has not been answered ' +
    'yet, so this one was not run. Wait the seconds the `Retry-After` header names and send it again, ' +
    'unchanged: once the first is answered, its answer is the answer to every retry.',
  'idempotency-key-reused':
    'This `Idempotency-Key` was already used (by the same requester, within 24 hours) for a request with ' +
    'another body, another path or another method, so this one was not run: a key names one request, ' +
    'and its retries send that request again unchanged. Send a new request with a new key.',
  'precondition-failed':
    'A condition of the request does not hold, so nothing was changed: `If-Match` names another version ' +
    'than the current one (someone changed the object since you read it), or a weak or malformed tag, ' +
    'which never matches a write; or `If-None-Match` names a version of an object that exists. The ' +
    '`ETag` header of the answer is the current version: read the object again, apply your change to it ' +
    'and send it with that tag.',
  'payload-too-large':
    'The request body is larger than the API takes (256 KiB for a Person or vocabulary entry). Send a ' +
    'smaller body; a person with very many items can be built up over several PATCH requests.',
  'unsupported-media-type':
    'The body is not in a media type the route takes; `detail` says which it takes. A POST or PATCH of ' +
    'an object takes JSON: send it with `Content-Type: application/json` (or `application/ld+json`); ' +
    'other formats, JSON Patch and JSON Merge Patch included, are not taken. `POST /reconcile` takes ' +
    'its parameters form-encoded (`Content-Type: application/x-www-form-urlencoded`, as OpenRefine ' +
    'sends them), not JSON.',
  'headers-too-large':
    'The request line and headers together are larger than the server reads. Send fewer or shorter ' +
    'headers, or a shorter query string.',
  unavailable:
    'The storage behind the service is busy or out of reach for a moment. Wait the seconds the ' +
    '`Retry-After` header names and send the request again.',
  'internal-error':
    'Something failed inside the service. The error is logged with the request id; the answer says ' +
    'nothing more on purpose. Sending the request again may work; if it keeps failing, report the time ' +
    'and the request.',
};

const withDescriptions = <T extends Record<string, { status: number; title: string }>>(
  types: T,
  descriptions: Record<keyof T, string>,
) =>
  Object.fromEntries(
    Object.entries(types).map(([name, type]) => [name, { ...type, description: descriptions[name] }]),
  ) as { [K in keyof T]: T[K] & { description: string } };

/** The problem types of API.md 7: status, title and description of each. */
export const PROBLEM_TYPES = withDescriptions(STATUS_AND_TITLE, DESCRIPTIONS);

export type ProblemType = keyof typeof PROBLEM_TYPES;

/** Every problem type, in the catalogue's order. */
export const PROBLEM_TYPE_NAMES = Object.keys(PROBLEM_TYPES) as ProblemType[];

/** The `type` of a problem: a URI reference relative to the API's base (API.md 2.1 and 7). */
export const problemTypeUri = (type: ProblemType) => `/problems/${type}`;

/** An RFC 9457 problem+json body as the API answers it. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  errors?: { path: string; message: string; existing?: string }[];
}
