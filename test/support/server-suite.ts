import { afterAll, beforeAll } from 'vitest';
import { type ServerProcess, type StartOptions, startServer } from './server';

/**
 * `npm start`'s server (test/support/server.ts) for this file's tests: started before them, stopped
 * after. What it returns reads the started server, so a file writes `server.url` as it would of a
 * server of its own; read it in a test or a hook, once the server is there.
 */
export const serverSuite = (options: StartOptions = {}, startTimeoutMs = 90_000): ServerProcess => {
  let started: ServerProcess | undefined;
  const current = () => {
    if (!started) throw new Error('The server is not started yet: read it in a test or a hook.');
    return started;
  };
  beforeAll(async () => {
    started = await startServer(options);
  }, startTimeoutMs);
  afterAll(async () => {
    await started?.stop();
  });
  return {
    get url() {
      return current().url;
    },
    get dynamoEndpoint() {
      return current().dynamoEndpoint;
    },
    get process() {
      return current().process;
    },
    output: () => current().output(),
    stop: () => current().stop(),
  };
};
