/**
 * API Gateway's JWT authorizer, locally (API.md 9.1, issue #40 step 2): with `REQUESTER_BINDING=on`,
 * `npm start` checks `Authorization: Bearer` tokens as the deployed authorizer does and hands the
 * handlers the claims where API Gateway puts them (`requestContext.authorizer.jwt`), so a handler
 * cannot tell the two apart. Verification is jose's (`jwtVerify` against the issuer's JWKS, fetched
 * and cached by `createRemoteJWKSet`), not hand-written: an RS256 or ES256 signature, `iss`, `aud`,
 * `exp` (required, as a token that never expires is refused) and `nbf`; `alg: none` and every other
 * algorithm are refused.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { type AuthorizerContext, scopesOf } from '../domain/principal';

export interface JwtSettings {
  issuer: string;
  audience: string;
  /** The issuer's JWKS; without it, the `jwks_uri` of its `/.well-known/openid-configuration`. */
  jwksUrl?: string;
}

/** The settings of `REQUESTER_BINDING=on`, `JWT_ISSUER`, `JWT_AUDIENCE`, `JWT_JWKS_URL`; undefined when off. */
export const jwtSettingsFromEnv = (env: NodeJS.ProcessEnv = process.env): JwtSettings | undefined => {
  if (!/^(on|true|1)$/i.test(env.REQUESTER_BINDING ?? '')) return undefined;
  const { JWT_ISSUER: issuer, JWT_AUDIENCE: audience, JWT_JWKS_URL: jwksUrl } = env;
  if (!issuer || !audience)
    throw new Error('REQUESTER_BINDING=on needs JWT_ISSUER and JWT_AUDIENCE (and JWT_JWKS_URL, optionally)');
  return { issuer, audience, ...(jwksUrl ? { jwksUrl } : {}) };
};

const ALGORITHMS = ['RS256', 'ES256'];

/** The JWKS URL an issuer publishes in its OpenID configuration. */
const discoveredJwks = async (issuer: string): Promise<URL> => {
  const response = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`The issuer's OpenID configuration answered ${response.status}`);
  const { jwks_uri: jwksUri } = (await response.json()) as { jwks_uri?: unknown };
  if (typeof jwksUri !== 'string') throw new Error("The issuer's OpenID configuration has no jwks_uri");
  return new URL(jwksUri);
};

/**
 * Checks a request's `Authorization` header: the authorizer context of a valid token, else undefined
 * (no token, another scheme, or any check failing).
 */
export const jwtAuthorizer = ({ issuer, audience, jwksUrl }: JwtSettings) => {
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const keySet = () => {
    keys ??= (jwksUrl ? Promise.resolve(new URL(jwksUrl)) : discoveredJwks(issuer)).then((url) =>
      createRemoteJWKSet(url),
    );
    // A discovery that failed is tried again by the next request.
    keys.catch(() => {
      keys = undefined;
    });
    return keys;
  };
  return async (authorization: string | undefined): Promise<AuthorizerContext | undefined> => {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) return undefined;
    try {
      const { payload } = await jwtVerify(token, await keySet(), {
        issuer,
        audience,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp'],
      });
      const claims = payload as Record<string, unknown>;
      return { jwt: { claims, scopes: scopesOf({ claims }) } };
    } catch {
      return undefined;
    }
  };
};
