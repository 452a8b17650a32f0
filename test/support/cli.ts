/**
 * The command-line tools (lib/cli) run as a user runs them: a child process with its own arguments,
 * output and exit status.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface CliRun {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output: () => string;
  /** stdout alone (what a tool writes for a pipe). */
  stdout: () => string;
  /** Resolves with the exit code (null when a signal ended it) once the process has ended. */
  exited: Promise<number | null>;
}

export const runCli = (tool: string, args: string[], env: NodeJS.ProcessEnv = {}): CliRun => {
  const child = spawn(process.execPath, ['--import', 'tsx', `lib/cli/${tool}.ts`, ...args], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, stdout: () => stdout, exited };
};

/** Runs a tool to its end: its exit code and output. */
export const cli = async (tool: string, args: string[], env?: NodeJS.ProcessEnv) => {
  const run = runCli(tool, args, env);
  const code = await run.exited;
  return { code, output: run.output(), stdout: run.stdout() };
};
