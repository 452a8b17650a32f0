import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personBody, uniqueEmail } from '../support/api';
import { runEntry, type ServerProcess, startServer } from '../support/server';

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  headers: { 'content-type': 'application/json', 'x-requester-person': '0', ...headers },
  body: JSON.stringify(body),
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions themselves
const read = (response: Response) => response.json() as Promise<Record<string, any>>;

const exited = (child: ReturnType<typeof runEntry>['child']) =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

const unreachable = async (url: string) => {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return false;
  } catch {
    return true;
  }
};

describe('npm start: the API over HTTP on loopback', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer();
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('listens on 127.0.0.1 and says where the docs are', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.output()).toContain(`${server.url}/docs`);
  });

  it('runs a create, get, patch and list round trip', async () => {
    const email = uniqueEmail('roundtrip');
    const created = await fetch(`${server.url}/Person`, {
      method: 'POST',
      ...json(personBody('Round', 'Trip', email)),
    });
    expect(created.status).toBe(201);
    const person = await read(created);
    expect(created.headers.get('location')).toBe(`${server.url}/Person/${person.id}`);
    expect(person['@id']).toBe(`${server.url}/Person/${person.id}`);

    const got = await fetch(created.headers.get('location') as string);
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe('"1"');

    const patched = await fetch(`${server.url}/Person/${person.id}`, {
      method: 'PATCH',
      ...json(
        { local_reference_id: 'patched' },
        { 'x-requester-person': String(person.id), 'if-match': '"1"' },
      ),
    });
    expect(patched.status).toBe(200);
    expect((await read(patched)).local_reference_id).toBe('patched');

    const listed = await fetch(`${server.url}/Person?email=${encodeURIComponent(email)}`);
    expect(await read(listed)).toMatchObject({
      Pagination: { count: 1, limit: 1, offset: 0 },
      '@set': [{ id: person.id, property_value: 'Round Trip' }],
    });
  });

  it('says Cache-Control: no-store on every Person, audit and ChangeHistory answer, refusals too', async () => {
    const email = uniqueEmail('nostore');
    const created = await fetch(`${server.url}/Person`, {
      method: 'POST',
      ...json(personBody('No', 'Store', email)),
    });
    const { id } = await read(created);
    const history = await read(await fetch(`${server.url}/ChangeHistory?endpoint=Person&object_id=${id}`));
    const answers = [
      created,
      await fetch(`${server.url}/Person/${id}`),
      await fetch(`${server.url}/Person/${id}`, { headers: { 'if-none-match': '"1"' } }),
      await fetch(`${server.url}/Person/${id}`, {
        method: 'PATCH',
        ...json({ local_reference_id: 'no-store' }, { 'x-requester-person': String(id) }),
      }),
      await fetch(`${server.url}/Person?search=store`),
      await fetch(`${server.url}/Person/${id}/audit`),
      await fetch(`${server.url}/ChangeHistory`),
      await fetch(`${server.url}/ChangeHistory/${history['@set'][0].id}`),
      await fetch(`${server.url}/Person`, { method: 'POST', ...json(personBody('No', 'Store', email)) }),
      await fetch(`${server.url}/Person/999999999`),
    ];
    expect(answers.map(({ status }) => status)).toEqual([201, 200, 304, 200, 200, 200, 200, 200, 409, 404]);
    for (const answer of answers) expect(answer.headers.get('cache-control'), answer.url).toBe('no-store');
  });

  it('serves the reference data it seeded', async () => {
    const response = await fetch(`${server.url}/Prefix/21`);
    expect(await read(response)).toMatchObject({ id: 21, prefix: 'Doctor', abbreviation: 'Dr.' });
  });

  it('answers an unknown path with 404 problem+json', async () => {
    const response = await fetch(`${server.url}/Nothing/here`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await read(response)).toMatchObject({ type: '/problems/not-found', status: 404 });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await fetch(`${server.url}/Person/1`, { method: 'PUT' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE');
    expect(await read(response)).toMatchObject({ type: '/problems/method-not-allowed', status: 405 });
  });

  it('answers a malformed body with 400 problem+json', async () => {
    const response = await fetch(`${server.url}/Person`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requester-person': '0' },
      body: '{"Names": [',
    });
    expect(response.status).toBe(400);
    expect(await read(response)).toMatchObject({ type: '/problems/validation-error' });
  });
});

describe('npm start: lifecycle', () => {
  it('stops on SIGTERM with exit code 0 and leaves no DynamoDB Local behind', async () => {
    const server = await startServer();
    expect(await unreachable(`${server.dynamoEndpoint}/`)).toBe(false);
    expect(await server.stop()).toBe(0);
    expect(server.output()).toContain('stopping');
    expect(await unreachable(`${server.dynamoEndpoint}/`)).toBe(true);
  }, 90_000);

  it('keeps data in a --data folder across restarts, and starts again on it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'persons-'));
    try {
      const first = await startServer({ args: ['--data', dataDir] });
      const created = await fetch(`${first.url}/Person`, {
        method: 'POST',
        ...json(personBody('Kept', 'Person')),
      });
      const { id } = await read(created);
      expect(await first.stop()).toBe(0);

      const second = await startServer({ env: { DATA_DIR: dataDir } });
      try {
        const got = await fetch(`${second.url}/Person/${id}`);
        expect(got.status).toBe(200);
        expect((await read(got)).fullname).toBe('Kept Person');
        expect((await read(await fetch(`${second.url}/Person?limit=0`))).Pagination.count).toBe(1);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('exits non-zero with a clear message when the port is taken', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => blocker.once('listening', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const { child, output } = runEntry({ env: { PORT: String(port) } });
      expect(await exited(child)).toBe(1);
      expect(output()).toContain(`Port ${port} is already in use`);
    } finally {
      blocker.close();
    }
  }, 90_000);

  it('exits non-zero with a clear message when Java is missing', async () => {
    const emptyPath = await mkdtemp(join(tmpdir(), 'no-java-'));
    try {
      const { child, output } = runEntry({ env: { PATH: emptyPath } });
      expect(await exited(child)).toBe(1);
      expect(output()).toContain('Java 17 or later is needed');
    } finally {
      await rm(emptyPath, { recursive: true, force: true });
    }
  }, 30_000);
});
