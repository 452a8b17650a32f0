/**
 * API Gateway's JWT authorizer, locally (API.md 9.1, issue #40 step 2): with `REQUESTER_BINDING=on`,
 * `npm start` checks `Authorization: Bearer` tokens as the deployed authorizer does and hands the
 * handlers the claims where API Gateway puts them (`requestContext.authorizer.jwt`), so a handler
 * cannot tell the two apart. Verification is jose's (`jwtVerify` against the issuer's JWKS, fetched
 * and cached by `createRemoteJWKSet`), not hand-written: an RS256 or ES256 signature, `iss`, `aud`,
 * `exp` (required, as a token that never expires is refused) and `nbf`; `alg: none` and every other
 * algorithm are refused. A refusal says why (`refusalReason`): the server puts it in RFC 6750's
 * `invalid_token` challenge, as API Gateway does, and in a log line, never the token. Without
 * `JWT_ISSUER` the issuer is the local development issuer (dev-issuer.ts).
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { type AuthorizerContext, scopesOf } from '../domain/principal';

export interface JwtSettings {
  issuer: string;
  audience: string;
  /** The issuer's JWKS; without it, the `jwks_uri` of its `/.well-known/openid-configuration`. */
  jwksUrl?: string;
}

/**
 * Requester binding on without `JWT_ISSUER`: `npm start` runs the local development issuer
 * (dev-issuer.ts) and checks its tokens, for `audience`.
 */
export interface DevIssuerSettings {
  devIssuer: true;
  audience: string;
}

/** The audience of the local development issuer's tokens when `JWT_AUDIENCE` names none. */
export const DEV_AUDIENCE = 'persons-api';

/**
 * The settings of `REQUESTER_BINDING=on`, `JWT_ISSUER`, `JWT_AUDIENCE`, `JWT_JWKS_URL`; undefined when
 * off. Without `JWT_ISSUER`, the local development issuer's.
 */
export const jwtSettingsFromEnv = (
  env: NodeJS.ProcessEnv = process.env,
): JwtSettings | DevIssuerSettings | undefined => {
  if (!/^(on|true|1)$/i.test(env.REQUESTER_BINDING ?? '')) return undefined;
  const { JWT_ISSUER: issuer, JWT_AUDIENCE: audience, JWT_JWKS_URL: jwksUrl } = env;
  if (!issuer) {
    if (jwksUrl) throw new Error('JWT_JWKS_URL needs JWT_ISSUER: the issuer whose keys it lists');
    return { devIssuer: true, audience: audience || DEV_AUDIENCE };
  }
  if (!audience)
    throw new Error('REQUESTER_BINDING=on with JWT_ISSUER needs JWT_AUDIENCE (and JWT_JWKS_URL, optionally)');
  return { issuer, audience, ...(jwksUrl ? { jwksUrl } : {}) };
};

/**
 * What the authorizer made of a request's `Authorization` header: no bearer token at all, a valid one
 * (the context API Gateway would hand the function), or one refused, and why (for the log and the
 * `WWW-Authenticate` challenge; never the token itself).
 */
export type TokenCheck =
  | { token: 'none' }
  | { token: 'valid'; context: AuthorizerContext }
  | { token: 'invalid'; reason: string };

/**
 * Why jose refused a token, in words fit for a log line and for RFC 6750's `error_description` (no
 * `"` or `\`): from the error's code and claim only, never its message or payload (which hold the
 * token's claims).
 */
export const refusalReason = (error: unknown): string => {
  const { code, claim } = (error ?? {}) as { code?: unknown; claim?: unknown };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'the token has expired (exp)';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'iss') return 'the token is from another issuer (iss)';
      if (claim === 'aud') return 'the token is for another audience (aud)';
      if (claim === 'nbf') return 'the token is not valid yet (nbf)';
      if (claim === 'exp') return 'the token has no expiry (exp)';
      return 'a claim of the token is not valid';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'the token signature does not verify';
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'no key of the issuer signed the token (kid)';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return 'the token is not signed with RS256 or ES256 (alg)';
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'the token is malformed';
    default:
      return 'the issuer keys could not be fetched to check the token';
  }
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
 * Checks a request's `Authorization` header: `none` without a bearer token (no header, another
 * scheme), `valid` with the authorizer context of a token that passes every check, else `invalid`
 * with the reason.
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
  return async (authorization: string | undefined): Promise<TokenCheck> => {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) return { token: 'none' };
    try {
      const { payload } = await jwtVerify(token, await keySet(), {
        issuer,
        audience,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp'],
      });
      const claims = payload as Record<string, unknown>;
      return { token: 'valid', context: { jwt: { claims, scopes: scopesOf({ claims }) } } };
    } catch (error) {
      return { token: 'invalid', reason: refusalReason(error) };
    }
  };
};

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750 3 and 3.1): `Bearer` alone to a request that
 * sent no token, `invalid_token` with the reason to one whose token was refused.
 */
export const bearerChallenge = (check: TokenCheck): string =>
  check.token === 'invalid'
    ? `Bearer error="invalid_token", error_description="${check.reason.replace(/["\\]/g, '')}"`
    : 'Bearer';
