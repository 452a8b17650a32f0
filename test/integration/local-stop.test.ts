/**
 * `npm start` stops entirely, node and Java, however a user or a process manager stops it: SIGTERM
 * or SIGINT to the npm process, Ctrl-C in a terminal (SIGINT to the whole process group), and even a
 * SIGKILL of npm, which leaves node to init.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from '../support/server';

const sleep = (ms: number) => new Promise((wait) => setTimeout(wait, ms));

/** The fields of /proc/<pid>/stat after the command name: state, ppid, ... (undefined when gone). */
const statOf = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
};

/** Still running: neither gone nor a zombie its parent has not reaped yet. */
const running = (pid: number) => {
  const state = statOf(pid)?.[0];
  return state !== undefined && state !== 'Z';
};

/** Every process below `root`, read from /proc: the shell, node, Java, the guard, esbuild. */
const descendantsOf = (root: number): number[] => {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    const parent = Number.isInteger(pid) ? Number(statOf(pid)?.[1]) : Number.NaN;
    if (Number.isInteger(parent)) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found: number[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(root);
  return found;
};

const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
};

const started: { server: ServerProcess; tree: number[] }[] = [];

/** `npm start` up and serving, with every process it runs. */
const npmStart = async () => {
  const server = await startServer({ npm: true, env: { ENRICHMENT: 'off' } });
  const tree = [server.process.pid as number, ...descendantsOf(server.process.pid as number)];
  started.push({ server, tree });
  expect(tree.map(commandOf).filter((command) => command.includes('DynamoDBLocal.jar'))).toHaveLength(1);
  expect(tree.map(commandOf).filter((command) => command.includes('lib/local/start.ts'))).toHaveLength(1);
  expect((await fetch(`${server.url}/Person?limit=0`)).status).toBe(200);
  return { server, tree };
};

const allStoppedWithin = async (pids: number[], ms: number) => {
  const deadline = Date.now() + ms;
  while (pids.some(running)) {
    if (Date.now() > deadline) return pids.filter(running).map(commandOf);
    await sleep(100);
  }
  return [];
};

afterAll(() => {
  // Only what these tests started, and only while it still runs what they started.
  for (const { tree } of started)
    for (const pid of tree)
      if (running(pid) && /npm|start\.ts|DynamoDBLocal/.test(commandOf(pid))) process.kill(pid, 'SIGKILL');
});

describe('npm start stops entirely', { timeout: 120_000 }, () => {
  it.each([
    ['SIGTERM to the npm process (a process manager)', 'SIGTERM', false],
    ['SIGINT to the npm process', 'SIGINT', false],
    ['Ctrl-C in its terminal (SIGINT to the process group)', 'SIGINT', true],
  ] as const)('on %s', async (_, signal, group) => {
    const { server, tree } = await npmStart();

    process.kill(group ? -(server.process.pid as number) : (server.process.pid as number), signal);

    expect(await allStoppedWithin(tree, 20_000)).toEqual([]);
    expect(server.output()).toContain(`${signal}: stopping`);
  });

  it('when npm itself is killed with SIGKILL, leaving node to init', async () => {
    const { server, tree } = await npmStart();

    server.process.kill('SIGKILL');

    expect(await allStoppedWithin(tree, 20_000)).toEqual([]);
  });
});
