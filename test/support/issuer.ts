/**
 * A token issuer on loopback for tests of requester binding (API.md 9.1): its own ES256 key pair, its
 * JWKS (`/jwks.json`) and OpenID configuration (`/.well-known/openid-configuration`), as an identity
 * provider publishes them, so `npm start`'s JWT authorizer finds its keys as API Gateway's does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

export type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface TokenOptions {
  claims?: Record<string, unknown>;
  /** Another key than the issuer's (a forged signature). */
  key?: SigningKey;
  iss?: string;
  aud?: string;
  /** jose's time span (`5m`, `-1m`), or null for a token without `exp`. */
  expires?: string | null;
}

export interface LoopbackIssuer {
  /** The issuer's URL: its `iss`, and where its OpenID configuration is. */
  url: string;
  audience: string;
  /** The private key the issuer signs with. */
  signingKey: SigningKey;
  /** A token for `subject`, signed by the issuer unless told otherwise. */
  token(subject: string, options?: TokenOptions): Promise<string>;
  /** The environment that points `npm start`'s JWT authorizer at this issuer, binding on. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export const startIssuer = async (audience = 'persons-api'): Promise<LoopbackIssuer> => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'ES256', use: 'sig' };
  let url = '';
  const server = createServer((request, response) => {
    const body =
      request.url === '/.well-known/openid-configuration'
        ? { issuer: url, jwks_uri: `${url}/jwks.json` }
        : request.url === '/jwks.json'
          ? { keys: [publicJwk] }
          : undefined;
    response
      .writeHead(body ? 200 : 404, { 'content-type': 'application/json' })
      .end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    audience,
    signingKey: privateKey,
    async token(subject, { claims = {}, key = privateKey, iss = url, aud = audience, expires = '5m' } = {}) {
      const jwt = new SignJWT({ ...claims } as JWTPayload)
        .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
        .setIssuer(iss)
        .setAudience(aud)
        .setSubject(subject)
        .setIssuedAt();
      if (expires) jwt.setExpirationTime(expires);
      return jwt.sign(key);
    },
    // No JWT_JWKS_URL: the keys are found through the issuer's OpenID configuration.
    env: { REQUESTER_BINDING: 'on', JWT_ISSUER: url, JWT_AUDIENCE: audience },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
