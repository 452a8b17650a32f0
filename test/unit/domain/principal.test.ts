import { describe, expect, it } from 'vitest';
import { DelegateRequired, Unauthorized } from '../../../lib/domain/errors';
import {
  callerOf,
  DELEGATE_SCOPE,
  OPEN,
  principalName,
  requesterRuling,
  scopesOf,
} from '../../../lib/domain/principal';

const ISSUER = 'https://issuer.example.org';
const ARN = 'arn:aws:iam::123456789012:role/importer';

describe('the caller of a request (API.md 9.1)', () => {
  it('is the JWT’s issuer and subject, or the IAM caller’s ARN', () => {
    expect(callerOf({ jwt: { claims: { iss: ISSUER, sub: 'ada' } } }, [])).toEqual({
      principal: { kind: 'jwt', issuer: ISSUER, subject: 'ada' },
      delegate: false,
    });
    expect(callerOf({ iam: { userArn: ARN } }, [])).toEqual({
      principal: { kind: 'iam', arn: ARN },
      delegate: false,
    });
  });

  it('is no one without an authorizer, or with a token missing its issuer or subject', () => {
    for (const authorizer of [
      undefined,
      {},
      { jwt: { claims: { sub: 'ada' } } },
      { jwt: { claims: { iss: ISSUER, sub: '' } } },
      { jwt: { claims: { iss: ISSUER, sub: 7 } } },
      { iam: { userArn: null } },
    ])
      expect(callerOf(authorizer, [ARN]), JSON.stringify(authorizer)).toEqual({
        principal: null,
        delegate: false,
      });
  });

  it('is a delegate by the JWT scope persons/delegate, in `scope`, `scp` or API Gateway’s scopes, or by a listed ARN', () => {
    const jwt = (claims: Record<string, unknown>, scopes?: string[]) => ({
      jwt: { claims: { iss: ISSUER, sub: 'svc', ...claims }, ...(scopes ? { scopes } : {}) },
    });
    expect(callerOf(jwt({ scope: `openid ${DELEGATE_SCOPE}` }), []).delegate).toBe(true);
    expect(callerOf(jwt({ scp: [DELEGATE_SCOPE] }), []).delegate).toBe(true);
    expect(callerOf(jwt({ scp: DELEGATE_SCOPE }), []).delegate).toBe(true);
    expect(callerOf(jwt({}, [DELEGATE_SCOPE]), []).delegate).toBe(true);
    expect(callerOf(jwt({ scope: 'persons/delegates openid' }), []).delegate).toBe(false);
    expect(callerOf({ iam: { userArn: ARN } }, [ARN]).delegate).toBe(true);
    expect(callerOf({ iam: { userArn: `${ARN}-2` } }, [ARN]).delegate).toBe(false);
    // A JWT is never a delegate by the ARN list, nor an IAM caller by a scope.
    expect(callerOf(jwt({ sub: ARN }), [ARN]).delegate).toBe(false);
  });

  it('reads scopes from every place a token or API Gateway puts them, once each', () => {
    expect(scopesOf({ claims: { scope: 'a b  c', scp: ['c', 'd', 3] }, scopes: ['e', 'a'] })).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
    ]);
  });

  it('names JWT and IAM principals apart', () => {
    expect(principalName({ kind: 'jwt', issuer: ISSUER, subject: 'ada' })).not.toBe(
      principalName({ kind: 'iam', arn: `${ISSUER} ada` }),
    );
  });
});

describe('what a write may name as its requester', () => {
  const ada = { principal: { kind: 'jwt' as const, issuer: ISSUER, subject: 'ada' }, delegate: false };

  it('is any person with binding off, whoever calls', () => {
    expect(requesterRuling(false, { principal: null, delegate: false }, 5)).toEqual(OPEN);
    expect(requesterRuling(false, ada, 0)).toEqual(OPEN);
  });

  it('with binding on: no caller is 401; a delegate any person; self-registration binds; else only its own', () => {
    expect(() => requesterRuling(true, { principal: null, delegate: false }, 5)).toThrow(Unauthorized);
    expect(requesterRuling(true, { ...ada, delegate: true }, 5)).toEqual(OPEN);
    expect(requesterRuling(true, { ...ada, delegate: true }, 0)).toEqual(OPEN);
    expect(requesterRuling(true, ada, 0)).toEqual({ kind: 'register', principal: ada.principal });
    expect(requesterRuling(true, ada, 5)).toEqual({ kind: 'own', principal: ada.principal });
  });

  it('with binding on, refuses a write for delegates (a merge) to anyone but a delegate, 403 before anything', () => {
    const delegate = { ...ada, delegate: true };
    expect(requesterRuling(true, delegate, 5, 'delegates')).toEqual(OPEN);
    // Alice writing as her own person, or as another: either way not hers to make.
    expect(() => requesterRuling(true, ada, 5, 'delegates')).toThrow(DelegateRequired);
    expect(() => requesterRuling(true, ada, 0, 'delegates')).toThrow(DelegateRequired);
    // No caller at all is still 401, not 403.
    expect(() => requesterRuling(true, { principal: null, delegate: false }, 5, 'delegates')).toThrow(
      Unauthorized,
    );
    // With binding off it is any person's write, as before.
    expect(requesterRuling(false, ada, 5, 'delegates')).toEqual(OPEN);
    expect(requesterRuling(false, { principal: null, delegate: false }, 5, 'delegates')).toEqual(OPEN);
  });
});
