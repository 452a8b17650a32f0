import { describe, expect, it } from 'vitest';
import { isEmailAddress, normaliseEmail } from '../../../lib/domain/email';

describe('isEmailAddress', () => {
  it.each([
    'jsmith@no-reply.org',
    'john.q+tag@example.org',
    "o'brien!#$%&*/=?^_`{|}~-@example.org",
    'josé@example.org',
    'user@bücher.de',
    'user@xn--bcher-kva.de',
    '用户@例子.广告',
    'δοκιμή@παράδειγμα.δοκιμή',
    `${'a'.repeat(64)}@example.org`,
    `${'é'.repeat(32)}@example.org`,
    `a@${'b'.repeat(63)}.org`,
  ])('accepts %s', (address) => {
    expect(isEmailAddress(address)).toBe(true);
  });

  it.each([
    ['no @', 'jsmith.example.org'],
    ['an empty local part', '@example.org'],
    ['a 65-octet local part (RFC 5321 allows 64)', `${'a'.repeat(65)}@example.org`],
    ['a local part of 33 two-octet letters (66 octets)', `${'é'.repeat(33)}@example.org`],
    ['a leading dot', '.john@example.org'],
    ['two dots in a row', 'jo..hn@example.org'],
    ['a trailing dot in the local part', 'john.@example.org'],
    ['a space', 'jo hn@example.org'],
    ['a zero-width space', 'jo\u200bhn@example.org'],
    ['a soft hyphen', 'jo\u00adhn@example.org'],
    ['a right-to-left override', 'jo\u202ehn@example.org'],
    ['a control character', 'jo\u0007hn@example.org'],
    ['a no-break space', 'jo\u00a0hn@example.org'],
    ['a second @ in the local part', 'jo@hn@example.org'],
    ['a one-label domain', 'john@localhost'],
    ['an IP address', 'john@127.0.0.1'],
    ['an address literal', 'john@[127.0.0.1]'],
    ['a label over 63 octets', `john@${'b'.repeat(64)}.org`],
    ['a label starting with a hyphen', 'john@-example.org'],
    ['an underscore in the domain', 'john@ex_ample.org'],
    ['an empty label', 'john@example..org'],
    ['a trailing dot', 'john@example.org.'],
    ['a numeric top-level label', 'john@example.123'],
    ['a domain over 253 octets in IDNA form', `john@${Array(4).fill('ü'.repeat(60)).join('.')}.de`],
  ])('refuses %s', (_, address) => {
    expect(isEmailAddress(address)).toBe(false);
  });
});

describe('normaliseEmail', () => {
  it('compares email addresses trimmed and case-insensitively', () => {
    expect(normaliseEmail('  JSmith@No-Reply.ORG \t')).toBe('jsmith@no-reply.org');
    expect(normaliseEmail('JSMITH@no-reply.org ')).toBe(normaliseEmail('jsmith@NO-REPLY.org'));
  });

  it('leaves the inside of an address as it is', () => {
    expect(normaliseEmail('john.q+tag@example.org')).toBe('john.q+tag@example.org');
  });

  it('compares domains in their IDNA form: a Unicode domain and its punycode are one address', () => {
    expect(normaliseEmail('user@bücher.de')).toBe('user@xn--bcher-kva.de');
    expect(normaliseEmail('user@BÜCHER.de')).toBe(normaliseEmail('user@xn--bcher-kva.de'));
  });

  it('compares in Unicode NFC: a composed and a decomposed é are one address', () => {
    expect(normaliseEmail('jos\u00e9@example.org')).toBe(normaliseEmail('jose\u0301@example.org'));
    expect(normaliseEmail('JOSÉ@example.org')).toBe('jos\u00e9@example.org');
  });

  it('keeps local parts that differ in accents apart (only case is folded there)', () => {
    expect(normaliseEmail('josé@example.org')).not.toBe(normaliseEmail('jose@example.org'));
  });
});
