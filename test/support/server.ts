/**
 * The real local server (`npm start`'s entry) as a child process on a free port, for tests that
 * drive it over HTTP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface ServerProcess {
  url: string;
  dynamoEndpoint: string;
  process: ChildProcess;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /**
   * Run it as a user does, `npm start`, in a process group of its own (the child is npm, and a signal
   * to the group is what a terminal's Ctrl-C sends).
   */
  npm?: boolean;
}

/**
 * The JVM options of the DynamoDB Local a test's server starts (`JDK_JAVA_OPTIONS`, read by the `java`
 * launcher; a test's own `env`, or the variable set outside, wins): the client compiler alone. A server
 * here serves a file's few hundred requests, and Java's start, with its optimizing compiler at work,
 * took about 8 s of CPU of the two cores the suite shares, 4 s with C1 alone. What DynamoDB Local
 * answers does not depend on which compiler ran its code; the files that load it hard, one at a time,
 * keep Java's default (`JAVA_DEFAULT`).
 */
export const QUICK_JVM = '-XX:TieredStopAtLevel=1';
/** Java's own compiler settings, for a server under load: `startServer({ env: JAVA_DEFAULT })`. */
export const JAVA_DEFAULT = { JDK_JAVA_OPTIONS: '' } as const;

/** Runs the entry and collects its output; resolves when it exits. */
export const runEntry = ({ args = [], env = {}, npm = false }: StartOptions = {}) => {
  const [command, commandArgs] = npm
    ? ['npm', ['start', '--silent', ...(args.length > 0 ? ['--', ...args] : [])]]
    : [process.execPath, ['--import', 'tsx', 'lib/local/start.ts', ...args]];
  const child = spawn(command, commandArgs, {
    cwd: process.cwd(),
    env: { ...process.env, PORT: '0', JDK_JAVA_OPTIONS: process.env.JDK_JAVA_OPTIONS ?? QUICK_JVM, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: npm,
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
};

export const startServer = async (options: StartOptions = {}): Promise<ServerProcess> => {
  const { child, output } = runEntry(options);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  // The banner ends with this line: everything above it (URL, DynamoDB endpoint) is then there.
  while (!output().includes('Ctrl-C stops it.')) {
    if (child.exitCode !== null) throw new Error(`The server exited with ${child.exitCode}:\n${output()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The server did not start in time:\n${output()}`);
    }
    await new Promise((wait) => setTimeout(wait, 50));
  }
  const url = /listening on (\S+)/.exec(output())?.[1] as string;
  const dynamoEndpoint = /DynamoDB Local: (http:\/\/[\d.:]+)/.exec(output())?.[1] as string;
  return {
    url,
    dynamoEndpoint,
    process: child,
    output,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
};
