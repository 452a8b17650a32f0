/**
 * The local HTTP server: routes each request with the route table, turns it into the API Gateway
 * event Lambda would get, runs the very handler module Lambda runs, and writes its result back.
 * What it refuses itself (a body past 10 MB, an unparsable request, a crashed handler) it answers in
 * the service's problem+json, like everything the handlers refuse. With origins listed for CORS it
 * also does what API Gateway's CORS does (`corsLayer`).
 */
import {
  createServer,
  type IncomingMessage,
  maxHeaderSize,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyResultV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import cors from 'cors';
import { PROBLEM_TYPES, type ProblemType } from '../api/problems';
import { FALLBACK_HANDLER, ROUTES, type Route } from '../api/routes';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../http/cors';
import { problemBody, problemOf } from '../http/problems';
import { matchPath, matchRoute } from '../http/routes';
import { toApiGatewayEvent, writeResult } from './http-events';
import { bearerChallenge, type TokenCheck } from './jwt-authorizer';
import { lambdaContext } from './lambda-context';

export type HttpFunction = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

/** Imports `functions/<name>.ts` and returns its `handler`, once per name, as a Lambda container would. */
export const functionLoader = () => {
  const loaded = new Map<string, Promise<unknown>>();
  return <T>(name: string): Promise<T> => {
    if (!/^[a-z-]+$/.test(name)) throw new Error(`Not a function name: ${name}`);
    if (!loaded.has(name))
      loaded.set(
        name,
        import(`../../functions/${name}.ts`).then((module) => module.handler),
      );
    return loaded.get(name) as Promise<T>;
  };
};

/** API Gateway refuses payloads over 10 MB before any function runs. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/**
 * The body, or `undefined` past the limit. Past it the rest is still read, and dropped, so the
 * connection is left at the next request (a keep-alive client's next call works) without holding
 * more than the limit.
 */
const readBody = async (request: IncomingMessage): Promise<Buffer | undefined> => {
  let chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_PAYLOAD_BYTES) chunks = [];
    else chunks.push(chunk as Buffer);
  }
  return size > MAX_PAYLOAD_BYTES ? undefined : Buffer.concat(chunks);
};

const problemJson = (type: ProblemType, detail: string, instance: string) =>
  // No field errors, so no links to build and no base URL needed.
  JSON.stringify(problemBody({ type, detail, errors: [], headers: {} }, instance, ''));

const refuse = (response: ServerResponse, type: ProblemType, detail: string, instance: string) =>
  response
    .writeHead(PROBLEM_TYPES[type].status, { 'content-type': 'application/problem+json' })
    .end(problemJson(type, detail, instance));

/** What a request Node's parser refuses gets, by the parser's error code (Node's own default mapping). */
const parseRefusal = (code: string | undefined): [ProblemType, string] => {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [
        'headers-too-large',
        `The request line and headers must stay under ${maxHeaderSize / 1024} KiB`,
      ];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return ['payload-too-large', 'The chunk extensions are too large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return ['request-timeout', "The request did not arrive within the server's time limit"];
    case 'HPE_INVALID_URL':
      // What curl sends for `?first_name=José` typed as it is: the UTF-8 bytes, unencoded.
      return [
        'validation-error',
        'The request target holds a character a URL cannot carry as it is (a letter outside ASCII, a ' +
          'space, a control character): percent-encode it, e.g. José as Jos%C3%A9 ' +
          "(curl -G --data-urlencode 'first_name=José', or encodeURIComponent in a program)",
      ];
    default:
      return ['validation-error', 'The request is not valid HTTP'];
  }
};

/** How long a refused connection may go on sending before it is cut. */
const LINGER_MS = 5_000;

/**
 * Answers a request Node could not parse, on the raw socket (there is no response object). Node
 * would write a bare status line and drop the connection at once, so a client still writing its
 * request may see a reset instead; this writes problem+json and half-closes, and the socket goes on
 * reading (and dropping) what the client still sends until it hangs up, or LINGER_MS passes.
 */
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (socket.writableEnded) return; // answered already
  // Node's own caution: never write into a response that has already started.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [type, detail] = parseRefusal(error.code);
  const { status } = PROBLEM_TYPES[type];
  const body = problemJson(type, detail, '/');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
};

/**
 * API Gateway's CORS (its `corsPreflight`) in front of the functions, with the `cors` package writing
 * the headers: a preflight (OPTIONS with `Origin` and `Access-Control-Request-Method`) from a listed
 * origin is answered here with 204, the methods of its path, the allowed headers and max age, and
 * never reaches a function; any other request from a listed origin gets `Access-Control-Allow-Origin`
 * (that origin), `Access-Control-Expose-Headers` and `Vary: Origin`. A request from an origin not listed
 * gets no CORS header, and an OPTIONS that is no preflight goes on to the router, as API Gateway sends
 * it on. `undefined` when no origin is listed: CORS is off.
 */
const corsLayer = (origins: readonly string[], routes: readonly Route[]) => {
  if (origins.length === 0) return undefined;
  const layer = cors<IncomingMessage>((request, callback) => {
    const { origin } = request.headers;
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const match = matchRoute('OPTIONS', path, routes);
    const isPreflight = request.method === 'OPTIONS' && 'access-control-request-method' in request.headers;
    const served =
      origin !== undefined &&
      origins.includes(origin) &&
      (request.method !== 'OPTIONS' || isPreflight) &&
      !isReconciliation(path, routes);
    // A preflight of a path no route has is not answered here: the router's 404 goes back without CORS.
    if (!served || (isPreflight && match.kind !== 'options')) return callback(null, { origin: false });
    callback(null, {
      origin,
      methods: match.kind === 'options' ? match.allow : [],
      allowedHeaders: [...CORS_ALLOWED_HEADERS],
      exposedHeaders: [...CORS_EXPOSED_HEADERS],
      maxAge: CORS_MAX_AGE_SECONDS,
      optionsSuccessStatus: 204,
    });
  });
  /** Runs the layer: true when it has answered the request itself (a preflight). */
  return (request: IncomingMessage, response: ServerResponse) =>
    new Promise<boolean>((resolve, reject) => {
      response.once('finish', () => resolve(true));
      layer(request, response, (error?: unknown) => (error ? reject(error) : resolve(false)));
    });
};

/**
 * The Reconciliation API's paths (API.md 12) answer CORS for any origin themselves, whatever the
 * listed origins are: the layer leaves them alone.
 */
const isReconciliation = (path: string, routes: readonly Route[]) =>
  routes.some((route) => route.reconciliation && matchPath(route.path, path) !== undefined);

/**
 * A function's result behind the CORS layer, as API Gateway treats it when CORS is on: the function's
 * own CORS headers are ignored (the public documents' `*` too), and its `Vary` joins the layer's.
 */
const behindCors = (
  result: APIGatewayProxyStructuredResultV2,
  response: ServerResponse,
): APIGatewayProxyStructuredResultV2 => {
  const headers: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower.startsWith('access-control-')) continue;
    const vary = lower === 'vary' ? response.getHeader('vary') : undefined;
    headers[name] = vary ? `${vary}, ${value}` : value;
  }
  return { ...result, headers };
};

export interface LocalServerOptions {
  /** Requests wait for this (storage started, environment set) before any handler is loaded. */
  ready?: Promise<unknown>;
  routes?: readonly Route[];
  load?: (name: string) => Promise<HttpFunction>;
  onError?: (error: unknown) => void;
  /** Origins that may call the API from a browser (`CORS_ORIGINS`); none: CORS is off (API.md 2.1). */
  corsOrigins?: readonly string[];
  /**
   * API Gateway's JWT authorizer (jwt-authorizer.ts), with requester binding on: a request to a route
   * that is neither public nor of the Reconciliation API without a valid token is 401 (with RFC 6750's
   * challenge, `invalid_token` and why when a token was sent), and a valid one's claims reach the
   * handler in `requestContext.authorizer`. None: no route needs a token.
   */
  authorize?: (authorization: string | undefined) => Promise<TokenCheck>;
  /** Told why a token was refused (a log line): the reason only, never the token. */
  onTokenRefused?: (refusal: { reason: string; method: string; path: string }) => void;
  /**
   * JSON documents served at paths of their own, before the route table (the local development
   * issuer's OpenID configuration and JWKS, dev-issuer.ts): the body for a GET of `path`, or undefined.
   */
  documents?: (path: string) => object | undefined;
}

export const createLocalServer = ({
  ready = Promise.resolve(),
  routes = ROUTES,
  load = functionLoader(),
  onError = (error) => console.error(error),
  corsOrigins = [],
  authorize,
  onTokenRefused = ({ reason, method, path }) =>
    console.error(`token refused: ${reason} (${method} ${path})`),
  documents,
}: LocalServerOptions = {}): Server => {
  const withCors = corsLayer(corsOrigins, routes);
  return createServer(async (request, response) => {
    // A refusal's `instance`: the path as sent, taken without parsing (which could itself fail).
    const instance = request.url?.split('?')[0] ?? '/';
    try {
      if (withCors && (await withCors(request, response))) return;
      const body = await readBody(request);
      if (!body) {
        refuse(
          response,
          'payload-too-large',
          'The body is over 10 MB, the most API Gateway accepts',
          instance,
        );
        return;
      }
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const document = request.method === 'GET' ? documents?.(path) : undefined;
      if (document) {
        response
          .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
          .end(JSON.stringify(document));
        return;
      }
      const match = matchRoute(request.method ?? 'GET', path, routes);
      const [name, route] =
        match.kind === 'found'
          ? [match.route.handler, { routeKey: match.routeKey, pathParameters: match.pathParameters }]
          : [FALLBACK_HANDLER, { routeKey: '$default' }];
      const open =
        match.kind !== 'found' || match.route.public === true || match.route.reconciliation === true;
      const check = authorize ? await authorize(request.headers.authorization) : undefined;
      const authorizer = check?.token === 'valid' ? check.context : undefined;
      if (check && !open && !authorizer) {
        if (check.token === 'invalid')
          onTokenRefused({ reason: check.reason, method: request.method ?? 'GET', path });
        response.setHeader('WWW-Authenticate', bearerChallenge(check));
        refuse(
          response,
          'unauthorized',
          check.token === 'invalid'
            ? `The bearer token was refused: ${check.reason}`
            : 'A valid bearer token is required',
          instance,
        );
        return;
      }
      await ready;
      const handler = await load(name);
      const event = toApiGatewayEvent(request, body, route);
      if (authorizer) Object.assign(event.requestContext, { authorizer });
      const answer = await handler(event, lambdaContext(name));
      const result = typeof answer === 'string' ? { statusCode: 200, body: answer } : answer;
      writeResult(
        response,
        withCors && !isReconciliation(path, routes) ? behindCors(result, response) : result,
      );
    } catch (error) {
      // The function itself failed: 500 whatever it threw (API Gateway's is a bare JSON message),
      // with the detail every unmapped error gets, which says nothing of it.
      onError(error);
      if (!response.headersSent) refuse(response, 'internal-error', problemOf(undefined).detail, instance);
    }
  }).on('clientError', answerClientError);
};
