/** Response helpers: every handler answers through these, so media types and headers stay uniform. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import Negotiator from 'negotiator';
import type { WriteOutcome } from '../db/person-repository';
import { etagOf, type Links, personUrl, toPersonOut } from '../domain/representation';
import { headerOf } from './request';

export interface ApiResponse {
  status: number;
  body?: unknown;
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

export const toHttpResult = (
  response: ApiResponse,
  contentType: string,
): APIGatewayProxyStructuredResultV2 => ({
  statusCode: response.status,
  headers: {
    ...(response.body === undefined ? {} : { 'Content-Type': contentType }),
    Vary: 'Accept',
    ...response.headers,
  },
  ...(response.body === undefined ? {} : { body: JSON.stringify(response.body) }),
});

/** 200 with the full Person and its ETag (GET and PATCH). */
export const personOk = ({ person, tombstones }: WriteOutcome, links: Links): ApiResponse => ({
  status: 200,
  body: toPersonOut(person, links, tombstones),
  headers: { ETag: etagOf(person) },
});

/** 201 with the full Person, `Location` and `ETag` (POST). */
export const personCreated = (outcome: WriteOutcome, links: Links): ApiResponse => ({
  ...personOk(outcome, links),
  status: 201,
  headers: { ETag: etagOf(outcome.person), Location: personUrl(links.baseUrl, outcome.person.id) },
});

export const notModified = (etag: string): ApiResponse => ({ status: 304, headers: { ETag: etag } });

export const ok = (body: unknown): ApiResponse => ({ status: 200, body });
