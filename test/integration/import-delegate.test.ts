/**
 * `npm run import` against `npm start` with requester binding on (API.md 9.1, issue #40): a child
 * process sending a file with `--token`, the tokens signed by an issuer on loopback. A delegate's token
 * (scope `persons/delegate`) imports every line, as the requester it names or, with requester 0, each
 * person its own creator and no one bound to the delegate; any other token stops the run at the first
 * answer that shows it cannot do the job (exit 2, saying what it needs), its lines left for `--resume`.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { cli } from '../support/cli';
import { request } from '../support/http';
import { type LoopbackIssuer, startIssuer } from '../support/issuer';
import { type ServerProcess, startServer } from '../support/server';

let issuer: LoopbackIssuer;
let server: ServerProcess;
let folder: string;

beforeAll(async () => {
  issuer = await startIssuer();
  // Enrichment off: each person's history is its create alone.
  [server, folder] = await Promise.all([
    startServer({ env: { ENRICHMENT: 'off', ...issuer.env } }),
    mkdtemp(join(tmpdir(), 'import-delegate-')),
  ]);
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await issuer?.close();
});

/** Headers a proxy does not pass on as they are (the body is read whole and sent again). */
const withoutHopByHop = (headers: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) =>
        ![
          'connection',
          'keep-alive',
          'transfer-encoding',
          'content-length',
          'content-encoding',
          'host',
        ].includes(name),
    ),
  );

/** The scope API.md 9.1 names, as an identity provider would put it in a token. */
const delegateToken = (subject: string, expires = '5m') =>
  issuer.token(subject, { claims: { scope: 'persons/delegate' }, expires });

const get = async (path: string, bearer: string) =>
  request(server, 'GET', path, { bearer, redirect: 'manual' });

const linesOf = async (path: string) =>
  (await readFile(path, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { line: number; id: number });

/** Persons stored with this last name, counted by a reader with no binding. */
const countNamed = async (lastName: string) => {
  const answer = await get(`/Person?limit=0&last_name=${lastName}`, await issuer.token(uniqueTag('reader')));
  return ((await answer.json()) as { Pagination: { count: number } }).Pagination.count;
};

/** A file of `size` persons with one last name of their own; where it is and what its outputs are. */
const personFile = async (size: number) => {
  const lastName = uniqueTag('Imported');
  const path = join(folder, `${lastName}.ndjson`);
  await writeFile(
    path,
    Array.from(
      { length: size },
      (_, n) => `${JSON.stringify(personBody(`P${n}`, lastName, uniqueEmail()))}\n`,
    ).join(''),
  );
  const stem = path.slice(0, -'.ndjson'.length);
  return { path, lastName, map: `${stem}.map.ndjson`, rejects: `${stem}.rejects.ndjson` };
};

/** The create's ChangeHistory entry of a person. */
const createEntryOf = async (id: number, bearer: string) => {
  const answer = await get(`/ChangeHistory?endpoint=Person&object_id=${id}`, bearer);
  expect(answer.status).toBe(200);
  const { '@set': entries } = (await answer.json()) as {
    '@set': { type: string; person_fk: number | null; provider_data: { caller?: string } }[];
  };
  expect(entries.map(({ type }) => type)).toEqual(['POST']);
  return entries[0] as (typeof entries)[number];
};

/** A person registered by a token of its own: an existing, bound requester. */
const registeredPerson = async () => {
  const answer = await fetch(`${server.url}/Person`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await issuer.token(uniqueTag('owner'))}`,
      'content-type': 'application/json',
      'x-requester-person': '0',
    },
    body: JSON.stringify(personBody('Owner', uniqueTag('Requester'), uniqueEmail())),
  });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { id: number }).id;
};

const NEEDS_A_DELEGATE =
  'an import needs a delegate: a token with the scope persons/delegate, or an IAM principal listed in the deploy option delegates';

describe('npm run import with a delegate token', () => {
  it('creates every line as the requester it names, the token’s subject recorded as the caller', async () => {
    const size = 12;
    const requester = await registeredPerson();
    const subject = uniqueTag('importer');
    const token = await delegateToken(subject);
    const file = await personFile(size);

    const run = await cli('import', [
      file.path,
      '--api',
      server.url,
      '--token',
      token,
      '--requester',
      `${requester}`,
    ]);

    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`${size} records, created ${size}, replayed 0, refused 0`);
    expect(await countNamed(file.lastName)).toBe(size);
    const map = await linesOf(file.map);
    expect(map.map(({ line }) => line).sort((a, b) => a - b)).toEqual(
      Array.from({ length: size }, (_, n) => n + 1),
    );
    for (const { id } of map)
      expect(await createEntryOf(id, token)).toMatchObject({
        person_fk: requester,
        provider_data: { caller: subject },
      });
  }, 60_000);

  it('with requester 0 makes each person its own creator, and binds none of them to the delegate', async () => {
    const size = 12;
    const subject = uniqueTag('importer');
    const token = await delegateToken(subject);
    const file = await personFile(size);

    const run = await cli('import', [file.path, '--api', server.url, '--token', token, '--requester', '0']);

    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`${size} records, created ${size}, replayed 0, refused 0`);
    const map = await linesOf(file.map);
    expect(new Set(map.map(({ id }) => id)).size).toBe(size);
    for (const { id } of map)
      expect(await createEntryOf(id, token)).toMatchObject({
        person_fk: id,
        provider_data: { caller: subject },
      });
    expect((await get('/Person/me', token)).status).toBe(404);
  }, 60_000);
});

describe('npm run import with a token that is no delegate’s', () => {
  it('naming a person: stops at the first 403 requester-mismatch with exit 2, writes nothing, and --resume with a delegate goes on', async () => {
    const size = 12;
    const requester = await registeredPerson();
    const file = await personFile(size);
    const args = [file.path, '--api', server.url, '--requester', `${requester}`];

    const run = await cli('import', [...args, '--token', await issuer.token(uniqueTag('clerk'))]);

    expect(run.code, run.output).toBe(2);
    expect(run.output).toMatch(/The import stopped: line \d+ was refused 403 requester-mismatch/);
    expect(run.output).toContain(NEEDS_A_DELEGATE);
    expect(run.output).toContain('--resume goes on from there');
    expect(await countNamed(file.lastName)).toBe(0);
    expect(await linesOf(file.map)).toEqual([]);
    // The refused lines are no rejects: each is sent again when the run is resumed.
    expect(await linesOf(file.rejects)).toEqual([]);

    const resumed = await cli('import', [
      ...args,
      '--token',
      await delegateToken(uniqueTag('importer')),
      '--resume',
    ]);

    expect(resumed.code, resumed.output).toBe(0);
    expect(resumed.output).toContain(`${size} records, created ${size}, replayed 0, refused 0`);
    expect(await countNamed(file.lastName)).toBe(size);
  }, 60_000);

  it('registering each line itself: stops at 409 principal-already-bound with exit 2, the one person it wrote bound to the token', async () => {
    const size = 12;
    const token = await issuer.token(uniqueTag('clerk'));
    const file = await personFile(size);

    const run = await cli('import', [file.path, '--api', server.url, '--token', token, '--requester', '0']);

    expect(run.code, run.output).toBe(2);
    expect(run.output).toContain(NEEDS_A_DELEGATE);
    expect(await linesOf(file.rejects)).toEqual([]);
    // Of the lines sent at once, one registered the token's principal: the 409 names its person.
    const map = await linesOf(file.map);
    expect(map).toHaveLength(1);
    const id = map[0]?.id;
    expect(run.output).toMatch(
      new RegExp(
        `The import stopped: line \\d+ was refused 409 principal-already-bound \\(The principal is bound to person ${id} already\\)`,
      ),
    );
    expect(await countNamed(file.lastName)).toBe(1);
    expect((await get('/Person/me', token)).headers.get('location')).toBe(`${server.url}/Person/${id}`);
  }, 60_000);

  it('stops at the first 401 when the credentials stop working during the run, the rest left for --resume', async () => {
    // A token that expires mid-run, made certain: the API is reached through a proxy on loopback that
    // answers the 21st create and every request after it as API Gateway answers an expired token.
    const size = 60;
    const file = await personFile(size);
    let creates = 0;
    const proxy = createServer(async (request, response) => {
      if (request.method === 'POST' && ++creates > 20) {
        response
          .writeHead(401, { 'content-type': 'application/problem+json', 'www-authenticate': 'Bearer' })
          .end(
            JSON.stringify({
              type: '/problems/unauthorized',
              title: 'A valid token is required',
              status: 401,
            }),
          );
        return;
      }
      let body = '';
      for await (const chunk of request) body += chunk;
      const answer = await fetch(`${server.url}${request.url}`, {
        method: request.method,
        headers: withoutHopByHop(request.headers as Record<string, string>),
        ...(body ? { body } : {}),
      });
      response
        .writeHead(answer.status, withoutHopByHop(Object.fromEntries(answer.headers)))
        .end(await answer.text());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const through = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const token = await delegateToken(uniqueTag('importer'));
    try {
      const run = await cli('import', [file.path, '--api', through, '--concurrency', '1', '--token', token]);
      expect(run.code, run.output).toBe(2);
      expect(run.output).toMatch(/The import stopped: line 21 was refused 401 unauthorized/);
      expect(run.output).toContain('the API does not accept the credentials (a token expired?)');
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
    expect(await linesOf(file.rejects)).toEqual([]);
    expect((await linesOf(file.map)).length).toBe(20);
    expect(await countNamed(file.lastName)).toBe(20);

    const args = [file.path, '--api', server.url, '--concurrency', '1', '--token', token, '--resume'];
    const resumed = await cli('import', args);
    expect(resumed.code, resumed.output).toBe(0);
    expect(resumed.output).toContain(`created ${size - 20}, replayed 0, refused 0, skipped 20`);
    expect(await countNamed(file.lastName)).toBe(size);
  }, 120_000);
});
