/**
 * The query of `GET /Person/export` (listing.ts): `limit` 1..500 (100 by default) and an opaque
 * `cursor`, nothing else; and the link to the next page that carries both.
 */
import { describe, expect, it } from 'vitest';
import { ExportPersonsQuery, exportPageUrl, exportRequest } from '../../../lib/domain/listing';
import { wireErrors } from '../../../lib/domain/schemas';

const parse = (query: Record<string, string>) => ExportPersonsQuery.safeParse(query, { error: wireErrors });

describe('the export query', () => {
  it('takes no parameter at all: the first page of 100', () => {
    const parsed = parse({});

    expect(parsed.success && exportRequest(parsed.data)).toEqual({ limit: 100 });
  });

  it.each([
    ['1', 1],
    ['7', 7],
    ['500', 500],
  ])('takes limit=%s', (limit, expected) => {
    const parsed = parse({ limit, cursor: 'eyJwIjoxfQ' });

    expect(parsed.success && exportRequest(parsed.data)).toEqual({ limit: expected, cursor: 'eyJwIjoxfQ' });
  });

  it.each(['0', '501', '-1', '1.5', 'ten', '', ' 7', '1e2', '9999999999'])('refuses limit=%j', (limit) => {
    const parsed = parse({ limit });

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map(({ path }) => path)).toEqual([['limit']]);
  });

  it.each([
    ['padding', 'eyJwIjoxfQ=='],
    ['base64 that is not base64url', 'ab+/'],
    ['an empty value', ''],
    ['a value longer than any cursor', 'A'.repeat(4_097)],
  ])('refuses a cursor with %s before storage sees it', (_, cursor) => {
    const parsed = parse({ cursor });

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map(({ path }) => path)).toEqual([['cursor']]);
  });

  it("refuses the list's parameters, naming the two it takes", () => {
    const parsed = parse({ offset: '10', search: 'ada' });

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(
      'offset and search are not query parameters of this route; it accepts limit, cursor',
    );
  });
});

describe('the link to the next page', () => {
  it('is absolute, on the same path, with limit and cursor', () => {
    expect(exportPageUrl('https://api.example.test/prod', '/Person/export', 7, 'eyJwIjoxfQ')).toBe(
      'https://api.example.test/prod/Person/export?limit=7&cursor=eyJwIjoxfQ',
    );
  });
});
