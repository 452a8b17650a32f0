/**
 * The local HTTP server: routes each request with the route table, turns it into the API Gateway
 * event Lambda would get, runs the very handler module Lambda runs, and writes its result back.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { FALLBACK_HANDLER, matchRoute, ROUTES, type Route } from '../http/routes';
import { toApiGatewayEvent, writeResult } from './http-events';
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

const readBody = async (request: IncomingMessage): Promise<Buffer | undefined> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_PAYLOAD_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
};

export interface LocalServerOptions {
  /** Requests wait for this (storage started, environment set) before any handler is loaded. */
  ready?: Promise<unknown>;
  routes?: readonly Route[];
  load?: (name: string) => Promise<HttpFunction>;
  onError?: (error: unknown) => void;
}

export const createLocalServer = ({
  ready = Promise.resolve(),
  routes = ROUTES,
  load = functionLoader(),
  onError = (error) => console.error(error),
}: LocalServerOptions = {}): Server =>
  createServer(async (request, response) => {
    try {
      const body = await readBody(request);
      if (!body) {
        response
          .writeHead(413, { 'content-type': 'application/json' })
          .end('{"message":"Request Entity Too Large"}');
        return;
      }
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const match = matchRoute(request.method ?? 'GET', path, routes);
      const [name, route] =
        match.kind === 'found'
          ? [
              match.route.handler,
              { routeKey: `${match.route.method} ${match.route.path}`, pathParameters: match.pathParameters },
            ]
          : [FALLBACK_HANDLER, { routeKey: '$default' }];
      await ready;
      const handler = await load(name);
      const result = await handler(toApiGatewayEvent(request, body, route), lambdaContext(name));
      writeResult(response, typeof result === 'string' ? { statusCode: 200, body: result } : result);
    } catch (error) {
      // What API Gateway answers when the function itself fails.
      onError(error);
      if (!response.headersSent)
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"message":"Internal Server Error"}');
    }
  });
