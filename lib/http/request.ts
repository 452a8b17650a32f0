/**
 * Reading an API Gateway HTTP API (payload 2.0) event: links, requester, body and path id. Each
 * function either returns a well-typed value or throws the problem the client should see.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { ProviderData } from '../domain/change-history';
import { type FieldError, NotFound, PersonNotFound } from '../domain/errors';
import type { Links } from '../domain/representation';
import { LIMITS } from '../domain/schemas';
import type { HttpConfig } from './config';
import { HttpProblem } from './problems';
import { withoutTrailingSlash } from './routes';

export const JSON_MEDIA_TYPES = ['application/json', 'application/ld+json'];

export const headerOf = (event: APIGatewayProxyEventV2, name: string): string | undefined => {
  const headers = event.headers ?? {};
  const lowerCase = name.toLowerCase();
  return headers[lowerCase] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === lowerCase)?.[1];
};

/** Absolute URLs come from `PUBLIC_BASE_URL`, else the request's scheme, host and stage (API.md 1). */
export const linksFor = (event: APIGatewayProxyEventV2, config: HttpConfig): Links => {
  const { domainName, stage } = event.requestContext;
  const host = domainName || headerOf(event, 'host') || 'localhost';
  // Only a scheme a link may have: anything else a client puts in the header (`javascript`) is ignored.
  const forwarded = headerOf(event, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  const scheme = forwarded === 'http' ? 'http' : 'https';
  const stagePath = stage && stage !== '$default' ? `/${stage}` : '';
  const baseUrl = config.publicBaseUrl ?? `${scheme}://${host}${stagePath}`;
  return { baseUrl, contextUrl: config.schemaContextUrl ?? `${baseUrl}/context.jsonld` };
};

/** `create` accepts 0 (self-registration); `update` needs an existing person's id (API.md 5.1). */
export type RequesterRule = 'create' | 'update';

export const requesterOf = (event: APIGatewayProxyEventV2, rule: RequesterRule): number => {
  const raw = headerOf(event, 'x-requester-person');
  if (raw === undefined) throw new HttpProblem('missing-requester', 'Send the id of the requesting person');
  const value = raw.trim();
  const id = Number(value);
  if (!/^\d{1,16}$/.test(value) || !Number.isSafeInteger(id))
    throw new HttpProblem('invalid-requester', 'x-requester-person must be a non-negative integer');
  if (id === 0 && rule === 'update')
    throw new HttpProblem(
      'invalid-requester',
      'x-requester-person 0 is only for self-registration on create',
    );
  return id;
};

/** A user agent is kept to this many characters: enough to tell clients apart, bounded in storage. */
const MAX_USER_AGENT = 512;

interface AuthorizerContext {
  iam?: { userArn?: string };
  jwt?: { claims?: Record<string, unknown> };
}

/**
 * Where a write came from, for its ChangeHistory entry (API.md 11.5): API Gateway's request id, the
 * user agent, and the caller its authorizer authenticated (the IAM principal's ARN or the JWT's `sub`).
 * Read from the request context only: never cookies, tokens or authorization headers.
 */
export const providerDataOf = (event: APIGatewayProxyEventV2): ProviderData => {
  const { requestId, http, authorizer } = event.requestContext as typeof event.requestContext & {
    authorizer?: AuthorizerContext;
  };
  const subject = authorizer?.jwt?.claims?.sub;
  return {
    request_id: requestId ?? null,
    user_agent: http?.userAgent ? http.userAgent.slice(0, MAX_USER_AGENT) : null,
    caller: authorizer?.iam?.userArn ?? (typeof subject === 'string' ? subject : null),
  };
};

/** The `{id}` of the path; one that is not a positive integer names nothing: 404. */
export const pathIdOf = (event: APIGatewayProxyEventV2, resource: string): number => {
  const raw = event.pathParameters?.id ?? '';
  const id = Number(raw);
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(id))
    throw resource === 'Person' ? new PersonNotFound(raw) : new NotFound(resource, raw);
  return id;
};

export const personIdOf = (event: APIGatewayProxyEventV2): number => pathIdOf(event, 'Person');

/** Turns zod's issues into JSON Pointer errors (RFC 6901: the whole body is ""), one per unknown key. */
export const fieldErrors = (issues: z.core.$ZodIssue[]): FieldError[] =>
  issues.flatMap((issue) => {
    const pointer = (path: PropertyKey[]) =>
      path.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
    return issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: pointer([...issue.path, key]), message: 'Unknown property' }))
      : [{ path: pointer(issue.path), message: issue.message }];
  });

/** Media type, size, JSON syntax and schema, in that order (API.md 2, 5.2 and 7). */
export const bodyOf = <S extends z.ZodType>(event: APIGatewayProxyEventV2, schema: S): z.output<S> => {
  const mediaType = headerOf(event, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (!mediaType || !JSON_MEDIA_TYPES.includes(mediaType))
    throw new HttpProblem(
      'unsupported-media-type',
      'Send the body as application/json or application/ld+json',
    );
  const raw = event.body ?? '';
  const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  if (bytes.byteLength > LIMITS.bodyBytes)
    throw new HttpProblem('payload-too-large', `The body may be at most ${LIMITS.bodyBytes} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new HttpProblem('validation-error', 'The body is not valid JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new HttpProblem(
      'validation-error',
      'The body does not match the schema of this resource',
      fieldErrors(parsed.error.issues),
    );
  return parsed.data;
};

/** Query parameters checked against a schema; a bad value is 400 naming the parameter. */
export const queryOf = <S extends z.ZodType>(event: APIGatewayProxyEventV2, schema: S): z.output<S> => {
  const parsed = schema.safeParse(event.queryStringParameters ?? {});
  if (!parsed.success)
    throw new HttpProblem('validation-error', 'The query is not valid', fieldErrors(parsed.error.issues));
  return parsed.data;
};

/** The path of the request below the API's base (API Gateway puts a named stage in `rawPath`). */
export const routePath = (event: APIGatewayProxyEventV2) => {
  const { stage } = event.requestContext;
  const path = event.rawPath || '/';
  return stage && stage !== '$default' && path.startsWith(`/${stage}/`) ? path.slice(stage.length + 1) : path;
};

/**
 * The absolute URL of another page of the same list: this request's path and query, with `page` and
 * `perPage` set (API.md 6: links keep the other query parameters).
 */
export const pageUrlFor =
  (event: APIGatewayProxyEventV2, links: Links) =>
  (page: number, perPage: number): string => {
    const query = new URLSearchParams(event.rawQueryString ?? '');
    query.set('page', String(page));
    query.set('perPage', String(perPage));
    return `${links.baseUrl}${withoutTrailingSlash(routePath(event))}?${query}`;
  };
