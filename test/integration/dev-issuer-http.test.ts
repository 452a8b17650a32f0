/**
 * Trying requester binding locally takes one command (issue #53 step 5): `npm start` with
 * `REQUESTER_BINDING=on` and no `JWT_ISSUER` runs the local development issuer, its banner says so
 * and gives the command that prints a token, and `npm run token` (the real script, a child process)
 * prints tokens the server accepts: a caller's, a delegate's. A tampered or expired token is 401 with
 * RFC 6750's `invalid_token` challenge, and the server's log says why without the token. With
 * `--data`, the key is kept in the folder, readable by the user only, and a token outlives a restart.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataIssuerFile, portIssuerFile } from '../../lib/local/dev-issuer';
import { DEV_AUDIENCE } from '../../lib/local/jwt-authorizer';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { request } from '../support/http';
import { type ServerProcess, startServer } from '../support/server';

/** No issuer of the environment: the local development issuer is what the test is about. */
const BINDING_ON = {
  ENRICHMENT: 'off',
  REQUESTER_BINDING: 'on',
  JWT_ISSUER: undefined,
  JWT_AUDIENCE: undefined,
  JWT_JWKS_URL: undefined,
};

/** Runs a shell command (the banner's, say) or `npm run -s token -- ...args`: its exit code and output. */
const run = (command: string, args: string[] = []) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'sh',
      ['-c', args.length > 0 ? `${command} ${args.map((arg) => `'${arg}'`).join(' ')}` : command],
      { cwd: process.cwd(), env: { ...process.env, PORT: undefined } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

/** A token from `npm run -s token`, for the server on `port`. */
const tokenFor = async (port: number, ...args: string[]) => {
  const answer = await run('npm run -s token --', ['--port', String(port), ...args]);
  expect(answer.code, answer.stderr).toBe(0);
  return answer.stdout.trim();
};

const portOf = (server: ServerProcess) => Number(new URL(server.url).port);

const call = (
  server: ServerProcess,
  method: string,
  path: string,
  { bearer, body, requester }: { bearer?: string; body?: object; requester?: number } = {},
) => request(server, method, path, { bearer, body, requester, redirect: 'manual' });

/** Whether the server's output holds `line` (waiting a little for its stderr to arrive). */
const logged = async (server: ServerProcess, line: string) => {
  for (const deadline = Date.now() + 2_000; Date.now() < deadline; )
    if (server.output().includes(line)) return true;
    else await new Promise((wait) => setTimeout(wait, 20));
  return server.output().includes(line);
};

/** One character of the token's signature changed. */
const tampered = (token: string) => {
  const at = token.lastIndexOf('.') + 10;
  return `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
};

describe('npm start with REQUESTER_BINDING=on and no JWT_ISSUER: the local development issuer', () => {
  let server: ServerProcess;
  let issuer: string;

  beforeAll(async () => {
    server = await startServer({ env: BINDING_ON });
    issuer = `${server.url}/dev-issuer`;
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('says in its banner that binding is on, with the issuer and the exact command that prints a token', () => {
    expect(server.output()).toContain(
      `Requester binding: on, tokens of the local development issuer ${issuer} (for this machine only; audience ${DEV_AUDIENCE}`,
    );
    expect(server.output()).toContain(`A token: npm run -s token -- --sub alice --port ${portOf(server)}`);
  });

  it('accepts the token the banner’s command prints: alice registers herself, and /Person/me is 303 to her', async () => {
    const command = /A token: (npm run -s token -- [^\n]+?)\s{2,}/.exec(server.output())?.[1] ?? '';
    const printed = await run(command);
    expect(printed.code, printed.stderr).toBe(0);
    const alice = printed.stdout.trim();
    expect(alice).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const created = await call(server, 'POST', '/Person', {
      bearer: alice,
      requester: 0,
      body: personBody('Alice', uniqueTag('Local'), uniqueEmail()),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const me = await call(server, 'GET', '/Person/me', { bearer: alice });
    expect(me.status).toBe(303);
    expect(me.headers.get('location')).toBe(`${server.url}/Person/${id}`);
  });

  it('prints a delegate’s token with --delegate: it may write as another person, a caller’s may not', async () => {
    const port = portOf(server);
    const owner = await tokenFor(port, '--sub', uniqueTag('owner'));
    const created = await call(server, 'POST', '/Person', {
      bearer: owner,
      requester: 0,
      body: personBody('Owned', uniqueTag('Person'), uniqueEmail()),
    });
    const { id } = (await created.json()) as { id: number };
    const write = (bearer: string) =>
      call(server, 'PATCH', `/Person/${id}`, { bearer, requester: id, body: { local_reference_id: 'x' } });
    const stranger = await write(await tokenFor(port, '--sub', uniqueTag('stranger')));
    expect(stranger.status).toBe(403);
    expect(await stranger.json()).toMatchObject({ type: '/problems/requester-mismatch' });
    expect((await write(await tokenFor(port, '--sub', 'importer', '--delegate'))).status).toBe(200);
  });

  it('refuses a tampered token and an expired one 401 invalid_token, logging why and never the token', async () => {
    const port = portOf(server);
    for (const [bearer, reason] of [
      [tampered(await tokenFor(port, '--sub', 'alice')), 'the token signature does not verify'],
      [await tokenFor(port, '--sub', 'alice', '--expires=-1m'), 'the token has expired (exp)'],
    ] as const) {
      const refused = await call(server, 'GET', '/Person/me', { bearer });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer error="invalid_token", error_description="${reason}"`,
      );
      expect(await refused.json()).toMatchObject({
        type: '/problems/unauthorized',
        detail: expect.stringContaining(reason),
      });
      expect(await logged(server, `token refused: ${reason} (GET /Person/me)`)).toBe(true);
      expect(server.output()).not.toContain(bearer);
      expect(server.output()).not.toContain(bearer.slice(bearer.lastIndexOf('.') + 1));
    }
    // No token at all: RFC 6750 3's bare challenge, no error code.
    const none = await call(server, 'GET', '/Person/me');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('publishes its OpenID configuration and public key on loopback, never the private part', async () => {
    const configuration = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
      jwks_uri: string;
    };
    expect(configuration).toMatchObject({ issuer, jwks_uri: `${issuer}/jwks.json` });
    const { keys } = (await (await fetch(configuration.jwks_uri)).json()) as {
      keys: Record<string, unknown>[];
    };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(keys[0]).not.toHaveProperty('d');
  });

  it('tells a token command for a port where no issuer runs what to do, exit 2', async () => {
    const answer = await run('npm run -s token --', ['--sub', 'alice', '--port', '1']);
    expect(answer.code).toBe(2);
    expect(answer.stdout).toBe('');
    expect(answer.stderr).toContain('No local development issuer runs on port 1');
  });
});

describe('the local development issuer with --data', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dev-issuer-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A port free now: the restart must listen on the same one, as the issuer's URL names it. */
  const freePort = () =>
    new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });

  it('keeps its key in the folder, for the user only, so that a token outlives a restart', async () => {
    const port = await freePort();
    const start = () => startServer({ args: ['--data', dir], env: { ...BINDING_ON, PORT: String(port) } });
    const first = await start();
    let token: string;
    try {
      expect(first.output()).toContain(`its key in ${dataIssuerFile(dir)} (new), kept across restarts`);
      expect((await stat(dataIssuerFile(dir))).mode & 0o777).toBe(0o600);
      expect((await stat(portIssuerFile(port))).mode & 0o777).toBe(0o600);
      // --data reads the kept key: no port needed.
      const printed = await run('npm run -s token --', ['--sub', 'keeper', '--data', dir]);
      expect(printed.code, printed.stderr).toBe(0);
      token = printed.stdout.trim();
      expect((await call(first, 'GET', '/Person?limit=0', { bearer: token })).status).toBe(200);
    } finally {
      await first.stop();
    }
    // Stopped: the file for its port is gone, the kept key stays.
    await expect(stat(portIssuerFile(port))).rejects.toThrow();
    const second = await start();
    try {
      expect(second.output()).toContain(`its key in ${dataIssuerFile(dir)}, kept across restarts`);
      expect((await call(second, 'GET', '/Person?limit=0', { bearer: token })).status).toBe(200);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
