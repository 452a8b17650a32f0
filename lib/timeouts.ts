/**
 * How long a request may take, in one place: the HTTP functions' timeout (the stack's and the local
 * runtime's), API Gateway's, and the retry budget a write gets from them. The HTTP edge, enrichment,
 * the local runtime and the stack read them from here.
 */

/**
 * The timeout of every HTTP function (the stack's and the local runtime's): just under API Gateway's,
 * so that a write storm on one object has the whole of it to retry in (`retryDeadline`).
 */
export const HTTP_FUNCTION_TIMEOUT_MS = 29_000;
/** API Gateway ends an integration after 30 s, whatever the function's timeout. */
export const API_GATEWAY_TIMEOUT_MS = 30_000;
/** Kept back from the retry budget for the last attempt and the response. */
export const RESPONSE_RESERVE_MS = 1_000;

/**
 * The retry budget of a request, as a function of the Lambda timeout: a write that meets concurrent
 * ones keeps retrying until the invocation has `RESPONSE_RESERVE_MS` left (counting from at most API
 * Gateway's 30 s), then answers 503. With the stack's 29 s timeout that is 28 s. One object's writes
 * land one after another (each must read the version the last one made), so a storm of N concurrent
 * writers needs about N round trips of read and transaction: 100 PATCHes of one person from 100
 * containers take 9-13 s against a fresh DynamoDB Local on a 2-core machine (far longer once it holds
 * many tables); at DynamoDB's single-digit-millisecond latencies the same count of round trips is a
 * few seconds (not measured here).
 */
export const retryDeadline = (remainingMs = HTTP_FUNCTION_TIMEOUT_MS, now = Date.now()) =>
  now + Math.max(0, Math.min(remainingMs, API_GATEWAY_TIMEOUT_MS) - RESPONSE_RESERVE_MS);
