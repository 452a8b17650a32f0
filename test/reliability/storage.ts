/**
 * The table a running `npm start` writes to, read directly (not through the API) by the checks.
 */
import { documentClient } from '../../lib/db/table/client';
import { localClientConfig } from '../../lib/local/dynamo-local';
import type { TestTable } from '../support/dynamo';
import type { ServerProcess } from '../support/server';

/** The table name `npm start` uses. */
export const TABLE_NAME = 'persons';

/**
 * The server's DynamoDB Local endpoint, from its start-up lines. `startServer` reads it as soon as
 * "listening on" shows, but `npm start` prints the endpoint in a later line, which can arrive in a
 * later chunk: then `server.dynamoEndpoint` is undefined, and an SDK client given no endpoint and the
 * region `local` goes to localhost:8000. So wait for the whole line here.
 */
export const storageEndpointOf = async (server: ServerProcess, timeoutMs = 10_000): Promise<string> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = /DynamoDB Local: (http:\/\/[\d.]+:\d+),/.exec(server.output());
    if (match) return match[1] as string;
    if (Date.now() > deadline)
      throw new Error(`No DynamoDB Local endpoint in the output:\n${server.output()}`);
    await new Promise((wait) => setTimeout(wait, 20));
  }
};

/** A document client on the server's table; `destroy()` its client when done. */
export const storageOf = async (server: ServerProcess): Promise<TestTable> => ({
  client: documentClient(localClientConfig(await storageEndpointOf(server))),
  tableName: TABLE_NAME,
});
