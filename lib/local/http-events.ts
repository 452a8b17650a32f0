/**
 * Node HTTP requests to API Gateway HTTP API payload 2.0 events and results back, as API Gateway does
 * it: lower-cased headers joined by commas, cookies apart, query parameters joined by commas, text
 * bodies as they are and binary ones base64-encoded.
 */
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

const TEXT_TYPES = /^(text\/|application\/([\w.+-]*json|xml|x-www-form-urlencoded|javascript))/i;

export interface EventRoute {
  /** `GET /Person/{id}`, or `$default` when no route matched. */
  routeKey: string;
  pathParameters?: Record<string, string>;
}

export const toApiGatewayEvent = (
  request: IncomingMessage,
  body: Buffer,
  { routeKey, pathParameters }: EventRoute,
): APIGatewayProxyEventV2 => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    if (name === 'cookie') cookies.push(...[value].flat().flatMap((cookie) => cookie.split(/;\s*/)));
    else headers[name] = [value].flat().join(',');
  }
  // API Gateway tells the function how the client reached it.
  const sourceIp = request.socket.remoteAddress ?? '127.0.0.1';
  headers['x-forwarded-for'] = headers['x-forwarded-for']
    ? `${headers['x-forwarded-for']}, ${sourceIp}`
    : sourceIp;
  headers['x-forwarded-proto'] ??= 'http';
  headers['x-forwarded-port'] ??= String(request.socket.localPort ?? '');
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  // API Gateway passes text media types (text/*, application/json, ...) as a string and the rest
  // base64-encoded; AWS documents no more than "if the content type of the request is binary, the body
  // is base64-encoded", and nothing for bytes that are not UTF-8 under a text type. Here such a body
  // goes base64-encoded too: as a string it would already hold U+FFFD where the bytes were, and the
  // function could not refuse it (lib/http/request.ts `bodyOf` decodes strictly, API.md 2).
  const isText = body.length === 0 || (TEXT_TYPES.test(headers['content-type'] ?? '') && isUtf8(body));
  const now = Date.now();
  const method = request.method ?? 'GET';
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(cookies.length > 0 ? { cookies } : {}),
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(pathParameters && Object.keys(pathParameters).length > 0 ? { pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    isBase64Encoded: !isText,
    ...(body.length > 0 ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
  };
};

/** Writes a handler's result as API Gateway would: status, headers, cookies, decoded body. */
export const writeResult = (response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void => {
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, String(value));
  if (result.cookies?.length) response.setHeader('set-cookie', result.cookies);
  const body = result.body ?? '';
  response.writeHead(result.statusCode ?? 200);
  response.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
};
