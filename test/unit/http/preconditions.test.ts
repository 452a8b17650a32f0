import { describe, expect, it } from 'vitest';
import { matchesVersion } from '../../../lib/domain/representation';
import { ifMatchOf, ifNoneMatchOf } from '../../../lib/http/preconditions';
import { httpEvent } from '../../support/events';

const withHeader = (name: string, value: string) =>
  httpEvent({ method: 'GET', route: '/Person/{id}', path: '/Person/3', headers: { [name]: value } });

const noHeader = httpEvent({ method: 'GET', route: '/Person/{id}', path: '/Person/3' });

describe('If-Match at the HTTP edge', () => {
  it.each<[string, number, boolean]>([
    ['"3"', 3, true],
    [' "3" ', 3, true],
    ['"1", "3"', 3, true],
    ['"3","4"', 3, true],
    ['*', 3, true],
    [' * ', 7, true],
    ['W/"3"', 3, false],
    ['"4"', 3, false],
    ['"1", "2"', 3, false],
    ['3', 3, false],
    ['"33"', 3, false],
    ['"03"', 3, false],
    ['"abc"', 3, false],
  ])('If-Match %s accepts version %i: %s (strong comparison)', (header, version, accepted) => {
    const match = ifMatchOf(withHeader('If-Match', header));
    expect(match).toBeDefined();
    expect(matchesVersion(match ?? [], version)).toBe(accepted);
  });

  it('is no condition when absent or empty', () => {
    expect(ifMatchOf(noHeader)).toBeUndefined();
    expect(ifMatchOf(withHeader('if-match', ''))).toBeUndefined();
  });
});

describe('If-None-Match at the HTTP edge', () => {
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
  ])('If-None-Match %s names version %i: %s (weak comparison)', (header, version, holds) => {
    const match = ifNoneMatchOf(withHeader('If-None-Match', header));
    expect(match).toBeDefined();
    expect(matchesVersion(match ?? [], version)).toBe(holds);
  });

  it('is no condition when absent or empty', () => {
    expect(ifNoneMatchOf(noHeader)).toBeUndefined();
    expect(ifNoneMatchOf(withHeader('if-none-match', ''))).toBeUndefined();
  });
});
