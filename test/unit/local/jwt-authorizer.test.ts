import { errors } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  bearerChallenge,
  DEV_AUDIENCE,
  jwtSettingsFromEnv,
  refusalReason,
} from '../../../lib/local/jwt-authorizer';

describe('requester binding’s settings from the environment (npm start)', () => {
  it('is off unless REQUESTER_BINDING is on', () => {
    expect(jwtSettingsFromEnv({ JWT_ISSUER: 'https://login.example.org' })).toBeUndefined();
  });

  it('checks an issuer’s tokens with JWT_ISSUER, which then needs JWT_AUDIENCE', () => {
    expect(
      jwtSettingsFromEnv({ REQUESTER_BINDING: 'on', JWT_ISSUER: 'https://i.example', JWT_AUDIENCE: 'a' }),
    ).toEqual({ issuer: 'https://i.example', audience: 'a' });
    expect(() => jwtSettingsFromEnv({ REQUESTER_BINDING: 'on', JWT_ISSUER: 'https://i.example' })).toThrow(
      /JWT_AUDIENCE/,
    );
  });

  it('runs the local development issuer without JWT_ISSUER, for JWT_AUDIENCE or persons-api', () => {
    expect(jwtSettingsFromEnv({ REQUESTER_BINDING: 'on' })).toEqual({
      devIssuer: true,
      audience: DEV_AUDIENCE,
    });
    expect(jwtSettingsFromEnv({ REQUESTER_BINDING: 'on', JWT_AUDIENCE: 'mine' })).toEqual({
      devIssuer: true,
      audience: 'mine',
    });
    expect(() => jwtSettingsFromEnv({ REQUESTER_BINDING: 'on', JWT_JWKS_URL: 'http://k.example' })).toThrow(
      /JWT_ISSUER/,
    );
  });
});

describe('why a token is refused, and the 401’s challenge (RFC 6750 3 and 3.1)', () => {
  it('names the check that failed from jose’s error, never its message or payload', () => {
    const payload = { sub: 'secret-subject' };
    expect(refusalReason(new errors.JWTExpired('"exp" claim timestamp check failed', payload, 'exp'))).toBe(
      'the token has expired (exp)',
    );
    expect(refusalReason(new errors.JWTClaimValidationFailed('x', payload, 'iss'))).toMatch(/issuer/);
    expect(refusalReason(new errors.JWTClaimValidationFailed('x', payload, 'aud'))).toMatch(/audience/);
    expect(refusalReason(new errors.JWSSignatureVerificationFailed())).toMatch(/signature/);
    expect(refusalReason(new Error('fetch failed'))).toMatch(/could not be fetched/);
  });

  it('is Bearer alone without a token, invalid_token with a description free of quotes otherwise', () => {
    expect(bearerChallenge({ token: 'none' })).toBe('Bearer');
    expect(bearerChallenge({ token: 'invalid', reason: 'a "quoted" \\ reason' })).toBe(
      'Bearer error="invalid_token", error_description="a quoted  reason"',
    );
  });
});
