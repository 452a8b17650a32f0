/**
 * The real OpenRefine 3.6 (Debian's `openrefine` package), headless on a free port with a workspace of
 * its own, and the few commands of its HTTP API that its own page sends when a steward reconciles a
 * column: create a project from a CSV, guess the column's type, reconcile it, add columns from the
 * reconciled values, read the rows. Every POST carries the CSRF token OpenRefine 3.3+ asks for.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../lib/local/dynamo-local';
import { QUICK_JVM } from './server';

export const OPENREFINE_HOME = '/usr/share/openrefine';

/** The engine configuration of every operation: all rows, no facet. */
const ALL_ROWS = JSON.stringify({ facets: [], mode: 'row-based' });

export interface RefineCell {
  v?: unknown;
  r?: string;
}

export interface Recon {
  /** The judgment: `matched` (by `match: true`, or by hand), `none`, `new`. */
  j: string;
  m?: { id: string; name: string; score: number; types: string[] };
  c?: { id: string; name: string; score: number; types: string[] }[];
}

export interface RefineRows {
  rows: { i: number; cells: (RefineCell | null)[] }[];
  pool: { recons: Record<string, Recon> };
}

export interface OpenRefine {
  url: string;
  /** Creates a project of a CSV text with a header line; resolves with its id. */
  createProject(name: string, csv: string): Promise<string>;
  /** A command's POST (query parameters and form fields, the CSRF token added), its JSON answer. */
  command(name: string, query: Record<string, string>, form?: Record<string, string>): Promise<unknown>;
  /** Resolves when the project has no long-running operation left (reconciling, extending). */
  settled(project: string, timeoutMs?: number): Promise<void>;
  columns(project: string): Promise<{ name: string; cellIndex: number }[]>;
  rows(project: string): Promise<RefineRows>;
  stop(): Promise<void>;
}

export const startOpenRefine = async (timeoutMs = 90_000): Promise<OpenRefine> => {
  const port = await freePort();
  const workspace = mkdtempSync(join(tmpdir(), 'openrefine-'));
  const url = `http://127.0.0.1:${port}`;
  // A process group of its own: `refine` is a shell script whose java child must stop with it.
  const child: ChildProcess = spawn(
    './refine',
    [
      '-i',
      '127.0.0.1',
      '-p',
      String(port),
      '-d',
      workspace,
      '-m',
      '768M',
      '-x',
      'refine.headless=true',
      'run',
    ],
    {
      cwd: OPENREFINE_HOME,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its Java with the client compiler alone, as a test's DynamoDB Local (test/support/server.ts):
      // a start and one project's few dozen requests, never a long run.
      env: { ...process.env, JDK_JAVA_OPTIONS: process.env.JDK_JAVA_OPTIONS ?? QUICK_JVM },
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const exited = once(child, 'exit');
      process.kill(-child.pid, 'SIGTERM');
      const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(workspace, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`OpenRefine exited with ${child.exitCode}:\n${output}`);
    const up = await fetch(`${url}/command/core/get-version`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`OpenRefine did not start in ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((wait) => setTimeout(wait, 200));
  }

  const token = async () =>
    ((await (await fetch(`${url}/command/core/get-csrf-token`)).json()) as { token: string }).token;

  const command: OpenRefine['command'] = async (name, query, form = {}) => {
    const address = `${url}/command/core/${name}?${new URLSearchParams({ ...query, csrf_token: await token() })}`;
    const response = await fetch(address, { method: 'POST', body: new URLSearchParams(form) });
    const text = await response.text();
    if (!response.ok) throw new Error(`OpenRefine ${name}: ${response.status} ${text}`);
    const answer = JSON.parse(text) as { code?: string; message?: string };
    if (answer.code === 'error') throw new Error(`OpenRefine ${name}: ${answer.message}`);
    return answer;
  };

  return {
    url,
    async createProject(name, csv) {
      const form = new FormData();
      form.set('project-file', new Blob([csv], { type: 'text/csv' }), `${name}.csv`);
      form.set('project-name', name);
      form.set('format', 'text/line-based/*sv');
      form.set('options', JSON.stringify({ separator: ',', headerLines: 1, encoding: 'UTF-8' }));
      const response = await fetch(
        `${url}/command/core/create-project-from-upload?csrf_token=${await token()}`,
        { method: 'POST', body: form, redirect: 'manual' },
      );
      const project = /project=(\d+)/.exec(response.headers.get('location') ?? '')?.[1];
      if (response.status !== 302 || project === undefined)
        throw new Error(`OpenRefine created no project: ${response.status} ${await response.text()}`);
      return project;
    },
    command: (name, query, form = {}) => command(name, query, { engine: ALL_ROWS, ...form }),
    async settled(project, waitMs = 15_000) {
      const until = Date.now() + waitMs;
      for (;;) {
        const { processes } = (await (
          await fetch(`${url}/command/core/get-processes?project=${project}`)
        ).json()) as { processes: unknown[] };
        if (processes.length === 0) return;
        if (Date.now() > until) throw new Error(`OpenRefine still runs ${JSON.stringify(processes)}`);
        await new Promise((wait) => setTimeout(wait, 100));
      }
    },
    async columns(project) {
      const models = (await (await fetch(`${url}/command/core/get-models?project=${project}`)).json()) as {
        columnModel: { columns: { name: string; cellIndex: number }[] };
      };
      return models.columnModel.columns;
    },
    rows: async (project) =>
      (await command('get-rows', { project, start: '0', limit: '1000' })) as RefineRows,
    stop,
  };
};
