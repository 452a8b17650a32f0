import { describe, expect, it } from 'vitest';
import { auditKey, claimKey, idCounterKey, personKey, prefixKey, suffixKey } from '../../../lib/db/keys';

/** DynamoDB's limit on a partition key value, in UTF-8 bytes. */
const PARTITION_KEY_LIMIT_BYTES = 2048;

describe('key shapes', () => {
  it('puts a Person under PERSON#<id> with sort key PERSON', () => {
    expect(personKey(30863)).toEqual({ pk: 'PERSON#30863', sk: 'PERSON' });
  });

  it("puts an AuditEntry in its Person's partition under AUDIT#<zero-padded version>", () => {
    expect(auditKey(30863, 7)).toEqual({ pk: 'PERSON#30863', sk: 'AUDIT#0000000007' });
  });

  it('puts an email claim under EMAIL#<value> with sort key CLAIM', () => {
    expect(claimKey({ field: 'email', value: 'jsmith@no-reply.org' })).toEqual({
      pk: 'EMAIL#jsmith@no-reply.org',
      sk: 'CLAIM',
    });
  });

  it('puts a name claim under NAME#<value> with sort key CLAIM', () => {
    expect(claimKey({ field: 'name', value: 'john smith' })).toEqual({ pk: 'NAME#john smith', sk: 'CLAIM' });
  });

  it('keeps the id counter in one fixed item', () => {
    expect(idCounterKey).toEqual({ pk: 'COUNTER#ids', sk: 'COUNTER' });
  });

  it('keeps Prefixes and Suffixes each in one partition, sorted by zero-padded id', () => {
    expect(prefixKey(3)).toEqual({ pk: 'PREFIX', sk: 'PREFIX#0000000003' });
    expect(suffixKey(12)).toEqual({ pk: 'SUFFIX', sk: 'SUFFIX#0000000012' });
  });
});

describe('audit sort keys', () => {
  it('sort in version order when compared as strings', () => {
    const versions = [1, 2, 9, 10, 11, 99, 100, 101, 1_000, 12_345, 999_999_999, 1_000_000_000];
    const shuffled = [...versions].reverse().sort((a, b) => (a % 7) - (b % 7));

    const sortKeys = shuffled.map((version) => auditKey(1, version).sk).sort();

    expect(sortKeys).toEqual(versions.map((version) => auditKey(1, version).sk));
  });

  it('never collide for two versions of one Person', () => {
    const sortKeys = new Set(Array.from({ length: 1_000 }, (_, version) => auditKey(1, version + 1).sk));
    expect(sortKeys.size).toBe(1_000);
  });
});

describe('claim keys', () => {
  it('differ for an email claim and a name claim of the same value', () => {
    const value = 'jsmith@no-reply.org';
    expect(claimKey({ field: 'email', value }).pk).not.toBe(claimKey({ field: 'name', value }).pk);
  });

  it('keep a value of the longest valid email address verbatim', () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(185)}.org`;
    expect(email).toHaveLength(254);
    expect(claimKey({ field: 'email', value: email }).pk).toBe(`EMAIL#${email}`);
  });

  it.each([
    ['ASCII', 'x'.repeat(5_000)],
    ['two-byte', 'é'.repeat(3_000)],
    ['three-byte', '名'.repeat(2_000)],
    ['four-byte', '😀'.repeat(1_500)],
  ])('hash a very long %s value and stay under the 2048-byte partition-key limit', (_, value) => {
    expect(Buffer.byteLength(value)).toBeGreaterThan(PARTITION_KEY_LIMIT_BYTES);
    for (const field of ['email', 'name'] as const) {
      const { pk } = claimKey({ field, value });
      expect(pk).toMatch(/^(EMAIL|NAME)#sha256:[0-9a-f]{64}$/);
      expect(Buffer.byteLength(pk)).toBeLessThanOrEqual(PARTITION_KEY_LIMIT_BYTES);
    }
  });

  it('hash a long multi-byte value that is short in characters but long in bytes', () => {
    const value = 'ü'.repeat(1_100);
    expect(value.length).toBeLessThan(PARTITION_KEY_LIMIT_BYTES);
    expect(Buffer.byteLength(value)).toBeGreaterThan(PARTITION_KEY_LIMIT_BYTES);

    const { pk } = claimKey({ field: 'name', value });

    expect(pk).not.toContain('ü');
    expect(Buffer.byteLength(pk)).toBeLessThanOrEqual(PARTITION_KEY_LIMIT_BYTES);
  });

  it('give the same long value the same key, so uniqueness still holds', () => {
    const first = claimKey({ field: 'name', value: 'ñ'.repeat(2_000) });
    const second = claimKey({ field: 'name', value: 'ñ'.repeat(2_000) });
    expect(first).toEqual(second);
  });

  it('give two long values that differ only in their last character different keys', () => {
    const stem = 'ö'.repeat(2_000);
    expect(claimKey({ field: 'name', value: `${stem}a` }).pk).not.toBe(
      claimKey({ field: 'name', value: `${stem}b` }).pk,
    );
  });

  it('give hashed email and name claims of the same long value different keys', () => {
    const value = 'ł'.repeat(2_000);
    expect(claimKey({ field: 'email', value }).pk).not.toBe(claimKey({ field: 'name', value }).pk);
  });
});
