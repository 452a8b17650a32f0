import { describe, expect, it } from 'vitest';
import { namesVersion, refusalOf } from '../../../lib/domain/preconditions';
import { ifNoneMatchOf, preconditionsOf, tagListOf } from '../../../lib/http/preconditions';
import { httpEvent } from '../../support/events';

const patchWith = (headers: Record<string, string>) =>
  httpEvent({ method: 'PATCH', route: '/Person/{id}', path: '/Person/3', headers, body: {} });

const getWith = (headers: Record<string, string>) =>
  httpEvent({ method: 'GET', route: '/Person/{id}', path: '/Person/3', headers });

describe('reading a conditional header into its tags', () => {
  it.each([
    ['"3"', [{ form: 'strong', version: 3, text: '"3"' }]],
    [' "3" ', [{ form: 'strong', version: 3, text: '"3"' }]],
    ['W/"3"', [{ form: 'weak', version: 3, text: 'W/"3"' }]],
    [
      '"1", W/"3"',
      [
        { form: 'strong', version: 1, text: '"1"' },
        { form: 'weak', version: 3, text: 'W/"3"' },
      ],
    ],
    [
      '"1","2" ,, "4"',
      [
        { form: 'strong', version: 1, text: '"1"' },
        { form: 'strong', version: 2, text: '"2"' },
        { form: 'strong', version: 4, text: '"4"' },
      ],
    ],
    ['"abc"', [{ form: 'foreign', text: '"abc"' }]],
    ['"03"', [{ form: 'foreign', text: '"03"' }]],
    ['"0"', [{ form: 'foreign', text: '"0"' }]],
    ['""', [{ form: 'foreign', text: '""' }]],
    ['W/"x"', [{ form: 'foreign', text: 'W/"x"' }]],
    ['"a,b"', [{ form: 'foreign', text: '"a,b"' }]],
    ['"9999999999999999"', [{ form: 'foreign', text: '"9999999999999999"' }]],
  ])('reads %s as entity tags', (header, tags) => {
    expect(tagListOf(header)).toEqual(tags);
  });

  it.each([
    ['2', ['2']],
    ['abc', ['abc']],
    ['w/"3"', ['w/"3"']],
    ['"3', ['"3']],
    ['"3"x', ['"3"x']],
    ['W/ "3"', ['W/ "3"']],
    ['"3" "4"', ['"3" "4"']],
    ['*, "3"', ['*']],
    ['"1", 2', ['2']],
  ])('keeps what is not an entity tag in %s as malformed', (header, malformed) => {
    const tags = tagListOf(header);
    expect(tags).not.toBe('*');
    const found = (tags === '*' ? [] : (tags ?? [])).filter((tag) => tag.form === 'malformed');
    expect(found.map((tag) => tag.text)).toEqual(malformed);
  });

  it('reads * as any object', () => {
    expect(tagListOf('*')).toBe('*');
    expect(tagListOf(' * ')).toBe('*');
  });

  it('is no condition when absent, empty or only commas', () => {
    expect(tagListOf(undefined)).toBeUndefined();
    expect(tagListOf('')).toBeUndefined();
    expect(tagListOf(' , ')).toBeUndefined();
    expect(preconditionsOf(patchWith({}))).toEqual({});
    expect(preconditionsOf(patchWith({ 'if-match': '' }))).toEqual({});
  });

  it('reads both headers of a write, whatever their case', () => {
    expect(preconditionsOf(patchWith({ 'If-Match': '"2"', 'IF-NONE-MATCH': '*' }))).toEqual({
      ifMatch: [{ form: 'strong', version: 2, text: '"2"' }],
      ifNoneMatch: '*',
    });
  });
});

describe('If-Match on a write (strong comparison, RFC 9110 13.1.1)', () => {
  it.each<[string, number, boolean]>([
    ['"3"', 3, true],
    [' "3" ', 3, true],
    ['"1", "3"', 3, true],
    ['"3","4"', 3, true],
    ['2, "3"', 3, true],
    ['*', 3, true],
    [' * ', 7, true],
    ['W/"3"', 3, false],
    ['"4"', 3, false],
    ['"1", "2"', 3, false],
    ['3', 3, false],
    ['"33"', 3, false],
    ['"03"', 3, false],
    ['"abc"', 3, false],
  ])('If-Match %s lets a write land on version %i: %s', (header, version, holds) => {
    const refusal = refusalOf(preconditionsOf(patchWith({ 'if-match': header })), version);
    expect(refusal === undefined).toBe(holds);
  });
});

describe('If-None-Match on a write (weak comparison, RFC 9110 13.1.2)', () => {
  it.each<[string, number, boolean]>([
    ['"4"', 3, true],
    ['W/"4"', 3, true],
    ['"1", "2"', 3, true],
    ['"abc"', 3, true],
    ['"3"', 3, false],
    ['W/"3"', 3, false],
    ['"1", W/"3"', 3, false],
    ['*', 3, false],
    ['3', 3, false],
    ['"4", abc', 3, false],
  ])('If-None-Match %s lets a write land on version %i: %s', (header, version, holds) => {
    const refusal = refusalOf(preconditionsOf(patchWith({ 'if-none-match': header })), version);
    expect(refusal === undefined).toBe(holds);
  });
});

describe('If-None-Match on a read (304 when it names the current version)', () => {
  it.each<[string, number, boolean]>([
    ['"3"', 3, true],
    ['W/"3"', 3, true],
    [' W/"3" ', 3, true],
    ['"1", W/"3"', 3, true],
    ['"1","3","4"', 3, true],
    ['*', 3, true],
    [' * ', 9, true],
    ['"4"', 3, false],
    ['W/"4"', 3, false],
    ['"1", "2"', 3, false],
    ['w/"3"', 3, false],
    ['3', 3, false],
    ['"33"', 3, false],
  ])('If-None-Match %s names version %i: %s', (header, version, names) => {
    expect(namesVersion(ifNoneMatchOf(getWith({ 'If-None-Match': header })), version)).toBe(names);
  });

  it('names nothing when absent or empty', () => {
    expect(namesVersion(ifNoneMatchOf(getWith({})), 3)).toBe(false);
    expect(namesVersion(ifNoneMatchOf(getWith({ 'if-none-match': '' })), 3)).toBe(false);
  });
});

describe('the reasons a write is refused, from the headers as sent', () => {
  const refusal = (headers: Record<string, string>, version = 2) =>
    refusalOf(preconditionsOf(patchWith(headers)), version);

  it.each([
    ['"1"', 'strong'],
    ['W/"2"', 'weak'],
    ['"abc"', 'foreign'],
    ['2', 'malformed'],
    ['abc', 'malformed'],
  ])('If-Match %s on version 2 is refused as %s', (header, form) => {
    expect(refusal({ 'if-match': header })).toEqual({
      kind: 'no-match',
      tags: [expect.objectContaining({ form, text: header })],
    });
  });

  it('names every tag of an If-Match list that matches nothing', () => {
    expect(refusal({ 'if-match': '"1", W/"2", 2' })).toEqual({
      kind: 'no-match',
      tags: [
        { form: 'strong', version: 1, text: '"1"' },
        { form: 'weak', version: 2, text: 'W/"2"' },
        { form: 'malformed', text: '2' },
      ],
    });
  });

  it('refuses If-None-Match * because the object exists', () => {
    expect(refusal({ 'if-none-match': '*' })).toEqual({ kind: 'exists' });
  });

  it('refuses If-None-Match naming the current version, weak or strong', () => {
    expect(refusal({ 'if-none-match': '"1", W/"2"' })).toEqual({
      kind: 'names-current',
      tag: { form: 'weak', version: 2, text: 'W/"2"' },
    });
  });

  it('refuses If-None-Match with something that is not an entity tag', () => {
    expect(refusal({ 'if-none-match': '"1", 2' })).toEqual({
      kind: 'malformed',
      tags: [{ form: 'malformed', text: '2' }],
    });
  });

  it('checks If-Match first, then If-None-Match (RFC 9110 13.2.2)', () => {
    expect(refusal({ 'if-match': '"1"', 'if-none-match': '*' })).toMatchObject({ kind: 'no-match' });
    expect(refusal({ 'if-match': '"2"', 'if-none-match': '*' })).toEqual({ kind: 'exists' });
  });
});
