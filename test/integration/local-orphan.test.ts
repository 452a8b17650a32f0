/**
 * DynamoDB Local never outlives `npm start`: a SIGKILL of the node process (which runs none of its
 * handlers) still stops its Java within seconds, and when even the guard is killed with it, the next
 * start on the same data folder stops the Java left running there.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordedOn } from '../../lib/local/dynamo-local';
import { type ServerProcess, startServer } from '../support/server';

const folders: string[] = [];
const servers: ServerProcess[] = [];
const javas: number[] = [];

const sleep = (ms: number) => new Promise((wait) => setTimeout(wait, ms));

const startOn = async (folder: string) => {
  const server = await startServer({ args: ['--data', folder], env: { ENRICHMENT: 'off' } });
  servers.push(server);
  return server;
};

/** The children of `parent` whose command line matches `pattern` (pgrep -f). */
const childrenOf = (parent: number | undefined, pattern: string) => {
  try {
    return execFileSync('pgrep', ['-P', String(parent), '-f', pattern], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

/** The Java a server started, found as its child process (not by what the server records). */
const javaOf = (server: ServerProcess) => {
  const found = childrenOf(server.process.pid, 'DynamoDBLocal\\.jar');
  expect(found).toHaveLength(1);
  javas.push(...found);
  return found[0] as number;
};

/** Still running: neither gone nor a zombie its new parent has not reaped yet. */
const running = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
};

const stoppedWithin = async (pid: number, ms: number) => {
  const deadline = Date.now() + ms;
  while (running(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
};

afterAll(async () => {
  for (const server of servers)
    if (server.process.exitCode === null && server.process.signalCode === null) await server.stop();
  // Only the Javas these tests started, and only while they still run DynamoDB Local.
  for (const java of javas)
    if (running(java) && readFileSync(`/proc/${java}/cmdline`, 'utf8').includes('DynamoDBLocal'))
      process.kill(java, 'SIGKILL');
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe('DynamoDB Local does not outlive npm start', { timeout: 180_000 }, () => {
  const folder = () => {
    const path = mkdtempSync(join(tmpdir(), 'local-orphan-'));
    folders.push(path);
    return path;
  };

  it('stops Java within seconds when the node process is killed with SIGKILL', async () => {
    const server = await startOn(folder());
    const java = javaOf(server);

    server.process.kill('SIGKILL');

    expect(await stoppedWithin(java, 10_000)).toBe(true);
  });

  it('stops the Java an earlier start left running on the folder when it starts there again', async () => {
    const data = folder();
    const first = await startOn(data);
    const orphan = javaOf(first);
    // Kill the guard too: Java is left running, as it was before there was a guard.
    for (const guard of childrenOf(first.process.pid, 'dynamo-local-guard')) process.kill(guard, 'SIGKILL');
    first.process.kill('SIGKILL');
    await sleep(1_000);
    expect(running(orphan)).toBe(true);

    const second = await startOn(data);

    expect(await stoppedWithin(orphan, 5_000)).toBe(true);
    expect(recordedOn(data).map(({ java }) => java)).toEqual([javaOf(second)]);
    expect((await fetch(`${second.url}/Person?limit=0`)).status).toBe(200);
  });
});
