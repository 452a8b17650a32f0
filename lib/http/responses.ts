/** Response helpers: every handler answers through these, so media types and headers stay uniform. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import Negotiator from 'negotiator';
import type { ErasedPerson } from '../domain/erasure';
import type { UnmergeOutcome, WriteOutcome } from '../domain/ports/persons';
import { erasedPersonOut, etagOf, type Links, personUrl, toPersonOut } from '../domain/representation';
import { headerOf } from './request';

/**
 * A body sent as it is, in a media type of its own (a page, a script, an image, or a JSON document
 * whose type is fixed, such as `application/schema+json`), so it is not negotiated.
 */
export interface RawBody {
  contentType: string;
  /** Text goes out as it is; bytes go out base64-encoded, as API Gateway expects binary bodies. */
  content: string | Uint8Array;
}

export interface ApiResponse {
  status: number;
  /** Sent as JSON in the negotiated media type. */
  body?: unknown;
  /** Sent instead of `body`, as it is. */
  raw?: RawBody;
  headers?: Record<string, string>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const JSON_LD_TYPE = 'application/ld+json; charset=utf-8';

/** `application/ld+json` when the client's `Accept` prefers it, plain JSON otherwise (API.md 2). */
export const negotiatedType = (event: APIGatewayProxyEventV2): string => {
  const accept = headerOf(event, 'accept');
  if (!accept) return JSON_TYPE;
  const preferred = new Negotiator({ headers: { accept } }).mediaType([
    'application/json',
    'application/ld+json',
  ]);
  return preferred === 'application/ld+json' ? JSON_LD_TYPE : JSON_TYPE;
};

const rawResult = (
  { status, headers }: ApiResponse,
  { contentType, content }: RawBody,
): APIGatewayProxyStructuredResultV2 => ({
  statusCode: status,
  headers: { 'Content-Type': contentType, ...headers },
  ...(typeof content === 'string'
    ? { body: content }
    : { body: Buffer.from(content).toString('base64'), isBase64Encoded: true }),
});

/**
 * API answers carry personal data (persons, their history, the `existing` link of a 409), so no cache
 * may keep them; a client that wants to revalidate has the ETag.
 */
const NO_STORE = { 'Cache-Control': 'no-store' };

const jsonResult = (response: ApiResponse, contentType: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode: response.status,
  headers: {
    ...(response.body === undefined ? {} : { 'Content-Type': contentType }),
    Vary: 'Accept',
    ...NO_STORE,
    ...response.headers,
  },
  ...(response.body === undefined ? {} : { body: JSON.stringify(response.body) }),
});

export const toHttpResult = (
  response: ApiResponse,
  contentType: string,
): APIGatewayProxyStructuredResultV2 =>
  response.raw ? rawResult(response, response.raw) : jsonResult(response, contentType);

/** 200 with the full Person and its ETag (GET and PATCH). */
export const personOk = ({ person, tombstones }: WriteOutcome, links: Links): ApiResponse => ({
  status: 200,
  body: toPersonOut(person, links, tombstones),
  headers: { ETag: etagOf(person) },
});

/**
 * 200 with an unmerge's two persons (API.md 13.1), each as GET shows it, and the survivor's ETag: the
 * resource the request was sent to.
 */
export const unmergeOk = ({ survivor, source }: UnmergeOutcome, links: Links): ApiResponse => ({
  status: 200,
  body: {
    '@type': 'Unmerge',
    survivor: toPersonOut(survivor, links, {}),
    source: toPersonOut(source, links, {}),
  },
  headers: { ETag: etagOf(survivor) },
});

/** 201 with the full Person, `Location` and `ETag` (POST). */
export const personCreated = (outcome: WriteOutcome, links: Links): ApiResponse => ({
  ...personOk(outcome, links),
  status: 201,
  headers: { ETag: etagOf(outcome.person), Location: personUrl(links.baseUrl, outcome.person.id) },
});

/** 301 to where a moved resource now lives, with a body that says so (a merged person, API.md 13). */
export const movedPermanently = (location: string, body: unknown): ApiResponse => ({
  status: 301,
  body,
  headers: { Location: location },
});

/** An erased person's tombstone with its ETag (API.md 15): 200 to its DELETE, 410 (Gone) to its GET. */
export const tombstoneResponse = (erased: ErasedPerson, links: Links, status: 200 | 410): ApiResponse => ({
  status,
  body: erasedPersonOut(erased, links),
  headers: { ETag: etagOf(erased) },
});

/** 303 to the resource the request stands for (`GET /Person/me`: the caller's own person). */
export const seeOther = (location: string): ApiResponse => ({ status: 303, headers: { Location: location } });

export const noContent: ApiResponse = { status: 204 };

export const notModified = (etag: string): ApiResponse => ({ status: 304, headers: { ETag: etag } });

export const ok = (body: unknown): ApiResponse => ({ status: 200, body });

/** 201 with the created resource and its `Location`. */
export const created = (body: unknown, location: string): ApiResponse => ({
  status: 201,
  body,
  headers: { Location: location },
});

/** 200 with a body of its own media type (see `RawBody`). */
export const rawOk = (raw: RawBody, headers: Record<string, string> = {}): ApiResponse => ({
  status: 200,
  raw,
  headers,
});
