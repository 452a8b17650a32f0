import { describe, expect, it } from 'vitest';
import { PreconditionFailed } from '../../../lib/domain/errors';
import {
  type EntityTag,
  namesVersion,
  refusalMessage,
  refusalOf,
  strongTag,
} from '../../../lib/domain/preconditions';

const strong = (version: number): EntityTag => ({ form: 'strong', version, text: `"${version}"` });
const weak = (version: number): EntityTag => ({ form: 'weak', version, text: `W/"${version}"` });
const malformed = (text: string): EntityTag => ({ form: 'malformed', text });
const foreign = (text: string): EntityTag => ({ form: 'foreign', text });

describe('refusalOf: whether a write may land on a version', () => {
  it('lets a write without conditions land', () => {
    expect(refusalOf({}, 3)).toBeUndefined();
  });

  it('lets If-Match * land on any version, and a list that names the version strongly', () => {
    expect(refusalOf({ ifMatch: '*' }, 9)).toBeUndefined();
    expect(refusalOf({ ifMatch: [strong(1), strong(3)] }, 3)).toBeUndefined();
    expect(refusalOf({ ifMatch: [malformed('x'), strong(3)] }, 3)).toBeUndefined();
  });

  it('never matches a weak tag in If-Match, even of the current version', () => {
    expect(refusalOf({ ifMatch: [weak(3)] }, 3)).toEqual({ kind: 'no-match', tags: [weak(3)] });
  });

  it('refuses If-None-Match naming the current version weakly, and lets other versions land', () => {
    expect(refusalOf({ ifNoneMatch: [weak(3)] }, 3)).toEqual({ kind: 'names-current', tag: weak(3) });
    expect(refusalOf({ ifNoneMatch: [strong(3)] }, 3)).toEqual({ kind: 'names-current', tag: strong(3) });
    expect(refusalOf({ ifNoneMatch: [strong(2), weak(4), foreign('"x"')] }, 3)).toBeUndefined();
  });

  it('refuses If-None-Match * on the existing object, and a malformed If-None-Match', () => {
    expect(refusalOf({ ifNoneMatch: '*' }, 1)).toEqual({ kind: 'exists' });
    expect(refusalOf({ ifNoneMatch: [strong(2), malformed('3')] }, 3)).toEqual({
      kind: 'malformed',
      tags: [malformed('3')],
    });
  });
});

describe('namesVersion: the 304 of a GET', () => {
  it('names the version by a strong or weak tag, or *, and nothing when absent', () => {
    expect(namesVersion([weak(2)], 2)).toBe(true);
    expect(namesVersion([strong(2)], 2)).toBe(true);
    expect(namesVersion('*', 2)).toBe(true);
    expect(namesVersion([strong(1), malformed('2')], 2)).toBe(false);
    expect(namesVersion(undefined, 2)).toBe(false);
  });
});

describe('refusalMessage: the detail of a 412 says why, of the object it is about', () => {
  it('says the object has changed when If-Match names another version, and which version it is at', () => {
    const message = refusalMessage({ kind: 'no-match', tags: [strong(1)] }, 'NamePrefix', 3);
    expect(message).toMatch(/NamePrefix has changed/);
    expect(message).toMatch(/version 3/);
  });

  it('says a weak tag never matches a write and asks for the strong one, not that anything changed', () => {
    const message = refusalMessage({ kind: 'no-match', tags: [weak(2)] }, 'person', 2);
    expect(message).toMatch(/weak/);
    expect(message).toContain('"2"');
    expect(message).toMatch(/RFC 9110 13\.1\.1/);
    expect(message).not.toMatch(/changed/);
  });

  it('says a weak tag of another version is weak and names the version the object is at', () => {
    const message = refusalMessage({ kind: 'no-match', tags: [weak(1)] }, 'person', 4);
    expect(message).toMatch(/weak/);
    expect(message).toMatch(/at version 4/);
  });

  it('says what a tag of this service looks like when If-Match is not an entity tag', () => {
    const message = refusalMessage({ kind: 'no-match', tags: [malformed('2')] }, 'person', 3);
    expect(message).toMatch(/2 is not an entity tag/);
    expect(message).toContain('"3"');
    expect(message).not.toMatch(/changed/);
  });

  it('says a well-formed tag of another shape is none this service gives', () => {
    expect(refusalMessage({ kind: 'no-match', tags: [foreign('"abc"')] }, 'person', 3)).toMatch(
      /"abc" is no ETag this service gives.*"3"/,
    );
  });

  it('names the reason of each tag of a list in short', () => {
    const message = refusalMessage(
      { kind: 'no-match', tags: [strong(1), weak(2), malformed('abc')] },
      'NameSuffix',
      2,
    );
    expect(message).toMatch(/version 2, the version the NameSuffix is at/);
    expect(message).toMatch(/"1" names version 1/);
    expect(message).toMatch(/W\/"2" is a weak tag/);
    expect(message).toMatch(/abc is not an entity tag/);
  });

  it('says If-None-Match * fails because the object exists, and a current tag because it is current', () => {
    expect(refusalMessage({ kind: 'exists' }, 'NamePrefix', 5)).toMatch(/exists, at version 5/);
    expect(refusalMessage({ kind: 'names-current', tag: weak(5) }, 'NamePrefix', 5)).toMatch(
      /If-None-Match W\/"5" names version 5, the version the NamePrefix is at/,
    );
  });

  it('says a malformed If-None-Match is not an entity tag', () => {
    expect(refusalMessage({ kind: 'malformed', tags: [malformed('5')] }, 'person', 5)).toMatch(
      /If-None-Match 5 is not an entity tag/,
    );
  });

  it('cuts a long tag short', () => {
    const message = refusalMessage({ kind: 'no-match', tags: [malformed('x'.repeat(5000))] }, 'person', 1);
    expect(message.length).toBeLessThan(200);
  });

  it('never speaks of a person when the object is a vocabulary entry', () => {
    const refusals = [
      { kind: 'no-match' as const, tags: [strong(1)] },
      { kind: 'no-match' as const, tags: [weak(3), malformed('3')] },
      { kind: 'exists' as const },
      { kind: 'names-current' as const, tag: strong(3) },
      { kind: 'malformed' as const, tags: [malformed('3')] },
    ];
    for (const refusal of refusals) {
      const error = new PreconditionFailed(3, refusal, 'NamePrefix');
      expect(error.message).not.toMatch(/person/i);
      expect(error).toMatchObject({ currentVersion: 3, refusal });
    }
  });
});

describe('strongTag', () => {
  it('is the version in double quotes', () => {
    expect(strongTag(12)).toBe('"12"');
  });
});
