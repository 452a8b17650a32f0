/**
 * Requester binding over real HTTP (API.md 9.1, issue #40 step 2): `npm start` with
 * `REQUESTER_BINDING=on` checks `Authorization: Bearer` tokens as API Gateway's JWT authorizer does,
 * against an issuer this test runs on loopback (its own key pair, its JWKS and OpenID configuration).
 * Wrong signature, issuer, audience, expiry, `nbf`, no `exp`, `alg: none` and HS256 are 401 on every
 * route but the public ones and the Reconciliation API; a valid token's claims reach the handlers
 * where API Gateway puts them, so binding, mismatch and delegates work as deployed.
 */
import { generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELEGATE_SCOPE } from '../../lib/domain/principal';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { request } from '../support/http';
import { type LoopbackIssuer, type SigningKey, startIssuer } from '../support/issuer';
import { type ServerProcess, startServer } from '../support/server';

let issuer: LoopbackIssuer;
let issuerUrl: string;
let signingKey: SigningKey;
let strangerKey: SigningKey;
let server: ServerProcess;
const AUDIENCE = 'persons-api';

const token = (...args: Parameters<LoopbackIssuer['token']>) => issuer.token(...args);

const call = (
  method: string,
  path: string,
  { bearer, body, requester }: { bearer?: string; body?: object; requester?: number } = {},
) => request(server, method, path, { bearer, body, requester });

/** Whether the server's output holds `line` (waiting a little for its stderr to arrive). */
const logged = async (line: string) => {
  for (const deadline = Date.now() + 2_000; Date.now() < deadline; )
    if (server.output().includes(line)) return true;
    else await new Promise((wait) => setTimeout(wait, 20));
  return server.output().includes(line);
};

beforeAll(async () => {
  issuer = await startIssuer(AUDIENCE);
  ({ url: issuerUrl, signingKey } = issuer);
  ({ privateKey: strangerKey } = await generateKeyPair('ES256'));
  server = await startServer({ env: { ENRICHMENT: 'off', ...issuer.env } });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await issuer?.close();
});

describe('npm start with requester binding on: tokens checked as API Gateway checks them', () => {
  it('refuses a request without a valid token 401 with RFC 6750’s challenge, on reads and writes, logging why but never the token', async () => {
    // Each wrong token, and the reason the challenge and the log line give (undefined: no token at all).
    const wrong = async (): Promise<[string, string | undefined, RegExp | undefined][]> => [
      ['none', undefined, undefined],
      ['garbage', 'not.a.token', /malformed/],
      ['another key', await token('ada', { key: strangerKey }), /signature/],
      ['another issuer', await token('ada', { iss: 'https://elsewhere.example.org' }), /issuer \(iss\)/],
      ['another audience', await token('ada', { aud: 'another-api' }), /audience \(aud\)/],
      ['expired', await token('ada', { expires: '-1m' }), /expired \(exp\)/],
      ['no exp', await token('ada', { expires: null }), /no expiry \(exp\)/],
      [
        'not yet valid',
        await new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
          .setIssuer(issuerUrl)
          .setAudience(AUDIENCE)
          .setSubject('ada')
          .setNotBefore('10m')
          .setExpirationTime('20m')
          .sign(signingKey),
        /not valid yet \(nbf\)/,
      ],
      [
        'alg none',
        new UnsecuredJWT({})
          .setIssuer(issuerUrl)
          .setAudience(AUDIENCE)
          .setSubject('ada')
          .setExpirationTime('5m')
          .encode(),
        /RS256 or ES256 \(alg\)|malformed/,
      ],
      [
        'HS256',
        await new SignJWT({})
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer(issuerUrl)
          .setAudience(AUDIENCE)
          .setSubject('ada')
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode('a-shared-secret-of-32-bytes!!!!!')),
        /RS256 or ES256 \(alg\)/,
      ],
    ];
    for (const [label, bearer, reason] of await wrong()) {
      for (const [method, path, body] of [
        ['GET', '/Person', undefined],
        ['POST', '/Person', personBody('No', 'Token', uniqueEmail())],
      ] as const) {
        const answer = await call(method, path, {
          ...(bearer ? { bearer } : {}),
          ...(body ? { body, requester: 0 } : {}),
        });
        expect(answer.status, `${label}: ${method} ${path}`).toBe(401);
        const challenge = answer.headers.get('www-authenticate') ?? '';
        if (!reason || !bearer) expect(challenge).toBe('Bearer');
        else {
          // RFC 6750 3.1: the error code, and a description without `"` or `\`.
          const [, description = ''] =
            /^Bearer error="invalid_token", error_description="([^"\\]+)"$/.exec(challenge) ?? [];
          expect(description, `${label}: ${challenge}`).toMatch(reason);
          expect(await logged(`token refused: ${description} (${method} ${path})`)).toBe(true);
          // Neither the token nor its signature is in the log.
          for (const secret of [bearer, bearer.split('.').at(-1) ?? ''].filter((part) => part.length > 16))
            expect(server.output()).not.toContain(secret);
        }
        expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await answer.json()).toMatchObject({ type: '/problems/unauthorized', status: 401 });
      }
    }
  });

  it('leaves the public documents and the Reconciliation API open', async () => {
    for (const path of ['/openapi.json', '/context.jsonld', '/reconcile'])
      expect((await call('GET', path)).status, path).toBe(200);
  });

  it('binds a self-registration to the token’s principal, and holds every other write to that person', async () => {
    const ada = await token(uniqueTag('ada'));
    const created = await call('POST', '/Person', {
      bearer: ada,
      requester: 0,
      body: personBody('Ada', uniqueTag('Bound'), uniqueEmail()),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const again = await call('POST', '/Person', {
      bearer: ada,
      requester: 0,
      body: personBody('Ada', uniqueTag('Twice'), uniqueEmail()),
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ type: '/problems/principal-already-bound' });
    expect(
      (
        await call('PATCH', `/Person/${id}`, {
          bearer: ada,
          requester: id,
          body: { local_reference_id: 'own' },
        })
      ).status,
    ).toBe(200);

    const grace = await token(uniqueTag('grace'));
    const other = await call('POST', '/Person', {
      bearer: grace,
      requester: 0,
      body: personBody('Grace', uniqueTag('Other'), uniqueEmail()),
    });
    const otherId = ((await other.json()) as { id: number }).id;
    const mismatch = await call('PATCH', `/Person/${id}`, {
      bearer: ada,
      requester: otherId,
      body: { local_reference_id: 'not-mine' },
    });
    expect(mismatch.status).toBe(403);
    expect(await mismatch.json()).toMatchObject({ type: '/problems/requester-mismatch' });
    // GET /Person/me: 303 to the caller's own person.
    const me = await fetch(`${server.url}/Person/me`, {
      headers: { authorization: `Bearer ${ada}` },
      redirect: 'manual',
    });
    expect(me.status).toBe(303);
    expect(me.headers.get('location')).toBe(`${server.url}/Person/${id}`);
    // A read needs a token, but no binding.
    expect((await call('GET', `/Person/${id}`, { bearer: await token(uniqueTag('reader')) })).status).toBe(
      200,
    );
  });

  it('lets a delegate (scope persons/delegate) write as any person, its subject in provider_data.caller', async () => {
    const owner = await token(uniqueTag('owner'));
    const created = await call('POST', '/Person', {
      bearer: owner,
      requester: 0,
      body: personBody('Owned', uniqueTag('Person'), uniqueEmail()),
    });
    const { id } = (await created.json()) as { id: number };
    const importer = await token('importer-service', { claims: { scope: `openid ${DELEGATE_SCOPE}` } });
    const written = await call('PATCH', `/Person/${id}`, {
      bearer: importer,
      requester: id,
      body: { local_reference_id: 'imported' },
    });
    expect(written.status).toBe(200);
    const history = (await (
      await call('GET', `/ChangeHistory?endpoint=Person&object_id=${id}&limit=1`, { bearer: importer })
    ).json()) as {
      '@set': { provider_data: { caller: string } }[];
    };
    expect(history['@set'][0]?.provider_data.caller).toBe('importer-service');
  });

  it('leaves a merge to delegates (issue #53 step 9): Alice cannot move Bob’s binding, a delegate can', async () => {
    const register = async (subject: string) => {
      const bearer = await token(subject);
      const created = await call('POST', '/Person', {
        bearer,
        requester: 0,
        body: personBody(subject, uniqueTag('Self'), uniqueEmail()),
      });
      expect(created.status).toBe(201);
      return { bearer, id: ((await created.json()) as { id: number }).id };
    };
    const ownPerson = async (bearer: string) =>
      (
        await fetch(`${server.url}/Person/me`, {
          headers: { authorization: `Bearer ${bearer}` },
          redirect: 'manual',
        })
      ).headers.get('location');
    const read = async (id: number, bearer: string) => {
      const answer = await call('GET', `/Person/${id}`, { bearer });
      return { status: answer.status, etag: answer.headers.get('etag'), body: await answer.json() };
    };
    const [alice, bob] = [await register(uniqueTag('alice')), await register(uniqueTag('bob'))];
    const importer = await token('merge-tool', { claims: { scope: DELEGATE_SCOPE } });
    const unbound = await call('POST', '/Person', {
      bearer: importer,
      requester: alice.id,
      body: personBody('Unbound', uniqueTag('Target'), uniqueEmail()),
    });
    const target = ((await unbound.json()) as { id: number }).id;
    const before = [await read(bob.id, alice.bearer), await read(target, alice.bearer)];

    for (const body of [{ source: bob.id }, { source: bob.id, preview: true }]) {
      const refused = await call('POST', `/Person/${target}/merge`, {
        bearer: alice.bearer,
        requester: alice.id,
        body,
      });
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await refused.json()).toMatchObject({ type: '/problems/delegate-required', status: 403 });
    }
    // Nothing written: both persons as they were, and Bob still bound to his own.
    expect([await read(bob.id, alice.bearer), await read(target, alice.bearer)]).toEqual(before);
    expect(await ownPerson(bob.bearer)).toBe(`${server.url}/Person/${bob.id}`);

    // A delegate's merge is the one that moves the binding (API.md 9.1): Bob is now the survivor.
    const merged = await call('POST', `/Person/${target}/merge`, {
      bearer: importer,
      requester: alice.id,
      body: { source: bob.id },
    });
    expect(merged.status).toBe(200);
    expect(await ownPerson(bob.bearer)).toBe(`${server.url}/Person/${target}`);
  });

  it('lets a delegate bind and unbind a principal over HTTP; any other caller is 403', async () => {
    const admin = await token('admin-tool', { claims: { scope: DELEGATE_SCOPE } });
    const created = await call('POST', '/Person', {
      bearer: admin,
      requester: 0,
      body: personBody('Pre', uniqueTag('Bound'), uniqueEmail()),
    });
    const { id } = (await created.json()) as { id: number };
    const subject = uniqueTag('employee');
    const principal = `/Person/${id}/principal`;
    const refused = await call('PUT', principal, {
      bearer: await token(subject),
      body: { issuer: issuerUrl, subject },
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ type: '/problems/delegate-required' });
    const bound = await call('PUT', principal, { bearer: admin, body: { issuer: issuerUrl, subject } });
    expect(bound.status).toBe(204);
    expect(await bound.text()).toBe('');
    // The principal's own token now writes as the person, and /Person/me names it.
    const employee = await token(subject);
    expect(
      (
        await call('PATCH', `/Person/${id}`, {
          bearer: employee,
          requester: id,
          body: { local_reference_id: 'mine' },
        })
      ).status,
    ).toBe(200);
    const me = await fetch(`${server.url}/Person/me`, {
      headers: { authorization: `Bearer ${employee}` },
      redirect: 'manual',
    });
    expect(me.headers.get('location')).toBe(`${server.url}/Person/${id}`);
    // The path takes PUT and DELETE only.
    const read = await call('GET', principal, { bearer: admin });
    expect(read.status).toBe(405);
    expect(read.headers.get('allow')).toBe('PUT, DELETE');
    expect((await call('DELETE', principal, { bearer: employee })).status).toBe(403);
    expect((await call('DELETE', principal, { bearer: admin })).status).toBe(204);
    expect(
      (
        await call('PATCH', `/Person/${id}`, {
          bearer: employee,
          requester: id,
          body: { local_reference_id: 'gone' },
        })
      ).status,
    ).toBe(403);
  });
});
