/**
 * Ctrl-C during `npm run import` on a terminal (issue #53 step 6), as a user does it: `npm run import`
 * under `script`, which gives it a pseudo-terminal (so the progress bar is drawn, hiding the cursor and
 * turning line wrap off), against `npm start`; a Ctrl-C typed into that terminal (the pty sends SIGINT
 * to the foreground process group: npm and the import, which npm also forwards it to). The import
 * stops sending, lets the requests in flight end, puts the terminal back, says what it did and the
 * command that goes on, and exits 130; that command then finishes the file, each line imported once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { uniqueTag } from '../support/api';
import { serverSuite } from '../support/server-suite';

const server = serverSuite({ env: { ENRICHMENT: 'off' } });
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'import-interrupt-'));
});

const linesOf = async (path: string) =>
  (await readFile(path, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text) as { line: number; id: number; replayed?: boolean });

/** Runs a shell command line to its end, on a pipe: its exit status and output. */
const shell = (command: string) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.once('exit', (code) => resolve({ code, output }));
  });

const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
const WRAP_OFF = '\x1b[?7l';
const WRAP_ON = '\x1b[?7h';

describe('npm run import on a terminal, interrupted with Ctrl-C', () => {
  const size = 120;
  let path: string;
  let terminal: ChildProcess;
  let screen = '';
  let code: number | null;

  beforeAll(async () => {
    const tag = uniqueTag('ctrlc');
    path = join(folder, 'ctrl-c.ndjson');
    await writeFile(
      path,
      Array.from(
        { length: size },
        (_, n) =>
          `${JSON.stringify({
            local_reference_id: `${tag}-${n + 1}`,
            Names: { '@set': [{ first_name: `C${n}`, last_name: 'Interrupted' }] },
            Emails: { '@set': [{ email: `${tag}-${n}@example.org` }] },
          })}\n`,
      ).join(''),
    );
    const command = `npm run import --silent -- ${path} --api ${server.url} --concurrency 8`;
    terminal = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: process.cwd(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    terminal.stdout?.on('data', (chunk) => {
      screen += chunk;
    });
    const exited = new Promise<number | null>((resolve) => terminal.once('exit', resolve));
    // Interrupt once the first lines have their outcome (the run is under way, most of it left).
    await vi.waitFor(
      async () => expect((await linesOf(join(folder, 'ctrl-c.map.ndjson'))).length).toBeGreaterThan(0),
      { timeout: 60_000, interval: 50 },
    );
    terminal.stdin?.write('\x03');
    code = await exited;
  }, 120_000);
  afterAll(() => {
    if (terminal.exitCode === null) terminal.kill('SIGKILL');
  });

  it('exits 130, having drawn the bar, and puts the terminal back as it found it', () => {
    expect(code, screen).toBe(130);
    expect(screen).toContain(HIDE_CURSOR);
    expect(screen).toContain(WRAP_OFF);
    expect(screen.indexOf(SHOW_CURSOR, screen.lastIndexOf(HIDE_CURSOR))).toBeGreaterThan(0);
    expect(screen.indexOf(WRAP_ON, screen.lastIndexOf(WRAP_OFF))).toBeGreaterThan(0);
  });

  it('waited for the lines in flight and says what it did and how to go on', async () => {
    const map = await linesOf(join(folder, 'ctrl-c.map.ndjson'));
    const sent = map.length;

    expect(screen).toContain('SIGINT: sending no more lines, waiting for those in flight');
    expect(screen).toContain(
      `stopped (SIGINT) with ${size - sent} of ${size} records left: sent ${sent} (${size} records, created ${sent}, replayed 0, refused 0`,
    );
    expect(screen).toContain(
      `to go on: npm run import -- ${path} --api ${server.url} --concurrency 8 --resume\r\n`,
    );
    expect(screen).not.toContain('stopped at once');
    // Every line taken was answered and recorded, in line order: the map is the file's first lines.
    expect(map.map(({ line }) => line)).toEqual(Array.from({ length: sent }, (_, n) => n + 1));
    expect(sent).toBeLessThan(size);
  });

  it('the command it printed finishes the file, each line imported once, the map in line order', async () => {
    const sentBefore = (await linesOf(join(folder, 'ctrl-c.map.ndjson'))).length;
    const command = /to go on: (.*)\r\n/.exec(screen)?.[1] as string;

    const resumed = await shell(command);

    expect(resumed.code, resumed.output).toBe(0);
    expect(resumed.output).toContain(
      `${size} records, created ${size - sentBefore}, replayed 0, refused 0, skipped ${sentBefore} (settled before)`,
    );
    const map = await linesOf(join(folder, 'ctrl-c.map.ndjson'));
    expect(map.map(({ line }) => line)).toEqual(Array.from({ length: size }, (_, n) => n + 1));
    expect(new Set(map.map(({ id }) => id)).size).toBe(size);
    expect(await linesOf(join(folder, 'ctrl-c.rejects.ndjson'))).toEqual([]);
    const tag = /"local_reference_id":"([^"]+)-1"/.exec(await readFile(path, 'utf8'))?.[1] as string;
    for (const line of [1, sentBefore, sentBefore + 1, size]) {
      const response = await fetch(`${server.url}/Person?limit=0&local_reference_id=${tag}-${line}`);
      expect(((await response.json()) as { Pagination: { count: number } }).Pagination.count).toBe(1);
    }
  }, 180_000);
});
