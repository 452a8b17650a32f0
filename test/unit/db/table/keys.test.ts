import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CHANGE_SHARDS,
  changeCounterKey,
  changeCounterKeyOf,
  changeListKey,
  claimKey,
  historyKey,
  historyPartition,
  idCounterKey,
  localReferenceKey,
  PERSON_COUNTER_KEYS,
  PERSON_LIST_PARTITIONS,
  personCounterKey,
  personKey,
  personListKey,
  versionOfHistoryKey,
  vocabularyKey,
  vocabularyPartition,
} from '../../../../lib/db/table/keys';
import { RESOURCE_TYPES, type ResourceType } from '../../../../lib/domain/change-history';
import type { ClaimField } from '../../../../lib/domain/person';
import { LIMITS } from '../../../../lib/domain/schemas';

/** DynamoDB's limit on a partition key value, in UTF-8 bytes. */
const PARTITION_KEY_LIMIT_BYTES = 2048;

const CLAIM_FIELDS: ClaimField[] = ['email', 'name', 'NamePrefix', 'NameSuffix'];

const AT = '2026-01-02T03:04:05.000Z';

describe('key shapes', () => {
  it('puts a Person under PERSON#<id> with sort key PERSON', () => {
    expect(personKey(30863)).toEqual({ pk: 'PERSON#30863', sk: 'PERSON' });
  });

  it.each<[ResourceType, string]>([
    ['Person', 'PERSON#30863'],
    ['NamePrefix', 'NAMEPREFIX#30863'],
    ['NameSuffix', 'NAMESUFFIX#30863'],
  ])(
    "puts a %s's ChangeHistory entry in the object's history partition under AUDIT#<zero-padded version>",
    (endpoint, pk) => {
      expect(historyPartition(endpoint, 30863)).toBe(pk);
      expect(historyKey(endpoint, 30863, 7)).toEqual({ pk, sk: 'AUDIT#0000000007' });
    },
  );

  it("keeps a Person's ChangeHistory in the person's own partition", () => {
    expect(historyKey('Person', 30863, 1).pk).toBe(personKey(30863).pk);
  });

  it.each<[ClaimField, string, string]>([
    ['email', 'jsmith@no-reply.org', 'EMAIL#jsmith@no-reply.org'],
    ['name', 'john smith', 'NAME#john smith'],
    ['NamePrefix', 'dr.', 'ABBREVIATION#NamePrefix#dr.'],
    ['NameSuffix', 'phd', 'ABBREVIATION#NameSuffix#phd'],
  ])('puts a %s claim of %s under %s with sort key CLAIM', (field, value, pk) => {
    expect(claimKey({ field, value })).toEqual({ pk, sk: 'CLAIM' });
  });

  it('keeps the id counter in one item, the person count in 16 shards by id and the legacy counter', () => {
    expect(idCounterKey).toEqual({ pk: 'COUNTER#ids', sk: 'COUNTER' });
    expect(personCounterKey(1051)).toEqual({ pk: 'COUNTER#persons#3', sk: 'COUNTER' });
    expect(personCounterKey(1056)).toEqual({ pk: 'COUNTER#persons#15', sk: 'COUNTER' });
    expect(PERSON_COUNTER_KEYS.map(({ pk }) => pk)).toEqual([
      ...Array.from({ length: 16 }, (_, shard) => `COUNTER#persons#${shard}`),
      'COUNTER#persons',
    ]);
  });

  it.each([
    ['one apart (one container creating many)', 1],
    ['a block of 50 apart (one create per container)', 50],
  ])('spreads 32 creates with ids %s over the person counters, none in more than a quarter', (_, step) => {
    const perShard = new Map<string, number>();
    for (let n = 0; n < 32; n++) {
      const { pk } = personCounterKey(1051 + n * step);
      perShard.set(pk, (perShard.get(pk) ?? 0) + 1);
    }
    expect(perShard.size).toBeGreaterThanOrEqual(12);
    expect(Math.max(...perShard.values())).toBeLessThanOrEqual(32 / 4);
  });

  it('keeps each vocabulary in one partition, its entries sorted by zero-padded id', () => {
    expect(vocabularyPartition('NamePrefix')).toBe('VOCABULARY#NamePrefix');
    expect(vocabularyKey('NamePrefix', 3)).toEqual({ pk: 'VOCABULARY#NamePrefix', sk: 'ENTRY#0000000003' });
    expect(vocabularyKey('NameSuffix', 12)).toEqual({ pk: 'VOCABULARY#NameSuffix', sk: 'ENTRY#0000000012' });
  });

  it('keeps the change counter of each endpoint shard in its own item', () => {
    expect(changeCounterKey('Person', 3)).toEqual({ pk: 'COUNTER#changes#Person#3', sk: 'COUNTER' });
    expect(changeCounterKey('NameSuffix', 0)).toEqual({ pk: 'COUNTER#changes#NameSuffix#0', sk: 'COUNTER' });
  });

  it('places a ChangeHistory entry in byChange by endpoint shard, then time and zero-padded id, and in byChangeId by id', () => {
    expect(changeListKey('Person', 9_003, AT)).toEqual({
      changePk: 'CHANGES#Person#3',
      changeSk: `${AT}#0000000000009003`,
      changeId: 9_003,
    });
  });
});

describe('the byName index', () => {
  it('lists persons in 8 partitions by a hash of the id, and reads the legacy partition as a ninth', () => {
    expect(PERSON_LIST_PARTITIONS).toEqual([
      ...Array.from({ length: 8 }, (_, shard) => `PERSONS#${shard}`),
      'PERSON',
    ]);
    expect(personListKey('john smith', 100)).toEqual({
      listPk: 'PERSONS#2',
      listSk: 'john smith\u00010000000000000100',
    });
  });

  it.each([1, 50])('spreads ids %i apart over every partition', (step) => {
    const partitions = new Set(
      Array.from({ length: 64 }, (_, n) => personListKey('a', 1051 + n * step).listPk),
    );
    expect(partitions.size).toBe(8);
  });
});

describe('history sort keys', () => {
  it('sort in version order when compared as strings', () => {
    const versions = [1, 2, 9, 10, 11, 99, 100, 101, 1_000, 12_345, 999_999_999, 1_000_000_000];
    const shuffled = [...versions].reverse().sort((a, b) => (a % 7) - (b % 7));

    const sortKeys = shuffled.map((version) => historyKey('Person', 1, version).sk).sort();

    expect(sortKeys).toEqual(versions.map((version) => historyKey('Person', 1, version).sk));
  });

  it('never collide for two versions of one object', () => {
    const sortKeys = new Set(
      Array.from({ length: 1_000 }, (_, version) => historyKey('Person', 1, version + 1).sk),
    );
    expect(sortKeys.size).toBe(1_000);
  });

  it.each([1, 7, 10, 1_000, 999_999_999])('read back version %i', (version) => {
    expect(versionOfHistoryKey(historyKey('NamePrefix', 21, version).sk)).toBe(version);
  });

  it('never collide for the same id and version of two endpoints', () => {
    const keys = RESOURCE_TYPES.map((endpoint) => JSON.stringify(historyKey(endpoint, 21, 1)));
    expect(new Set(keys).size).toBe(RESOURCE_TYPES.length);
  });
});

describe('change list keys', () => {
  const partitionsOf = (endpoint: ResourceType) =>
    new Set(Array.from({ length: 1_000 }, (_, index) => changeListKey(endpoint, 5_000 + index, AT).changePk));

  it('spread Person entries over 8 partitions', () => {
    expect(CHANGE_SHARDS.Person).toBe(8);
    expect(partitionsOf('Person')).toEqual(
      new Set(Array.from({ length: 8 }, (_, shard) => `CHANGES#Person#${shard}`)),
    );
  });

  it.each<ResourceType>(['NamePrefix', 'NameSuffix'])('keep %s entries in one partition', (endpoint) => {
    expect(CHANGE_SHARDS[endpoint]).toBe(1);
    expect(partitionsOf(endpoint)).toEqual(new Set([`CHANGES#${endpoint}#0`]));
  });

  it.each<ResourceType>([...RESOURCE_TYPES])(
    'count a %s entry in the counter of the shard that lists it',
    (endpoint) => {
      for (let id = 9_000; id < 9_020; id++) {
        const shard = changeListKey(endpoint, id, AT).changePk.split('#').at(-1);
        expect(changeCounterKeyOf(endpoint, id)).toEqual(changeCounterKey(endpoint, Number(shard)));
      }
    },
  );

  it('sort entries of one shard by time, then by id', () => {
    const entries: [number, string][] = [
      [9_000, '2026-01-02T03:04:05.000Z'],
      [80, '2026-01-02T03:04:05.001Z'],
      [800, '2026-01-02T03:04:05.001Z'],
      [8, '2026-01-03T00:00:00.000Z'],
    ];
    const shuffled = [entries[3], entries[1], entries[0], entries[2]] as [number, string][];

    const sorted = shuffled.map(([id, at]) => changeListKey('Person', id, at).changeSk).sort();

    expect(sorted).toEqual(entries.map(([id, at]) => changeListKey('Person', id, at).changeSk));
  });
});

describe('claim keys', () => {
  const pairsOfFields = CLAIM_FIELDS.flatMap((first, index) =>
    CLAIM_FIELDS.slice(index + 1).map((second): [ClaimField, ClaimField] => [first, second]),
  );

  it.each(pairsOfFields)('differ for a %s claim and a %s claim of the same value', (first, second) => {
    for (const value of ['jsmith@no-reply.org', 'dr.', 'john smith']) {
      expect(claimKey({ field: first, value }).pk).not.toBe(claimKey({ field: second, value }).pk);
    }
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
    for (const field of CLAIM_FIELDS) {
      const { pk } = claimKey({ field, value });
      expect(pk).toMatch(
        /^HASHED#(EMAIL|NAME|ABBREVIATION#NamePrefix|ABBREVIATION#NameSuffix)#[0-9a-f]{64}$/,
      );
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

  it.each(CLAIM_FIELDS)('never give a %s value the key of another value hashed', (field) => {
    const long = 'ł'.repeat(2_000);
    const hex = createHash('sha256').update(long).digest('hex');
    const hashed = claimKey({ field, value: long }).pk;
    // Every spelling of the hash a client could send as a literal value, in every claim partition.
    for (const literal of [hex, `sha256:${hex}`, hashed, hashed.slice(hashed.indexOf('#') + 1)])
      for (const other of CLAIM_FIELDS)
        expect(claimKey({ field: other, value: literal }).pk).not.toBe(hashed);
  });

  it.each(pairsOfFields)(
    'give hashed %s and %s claims of the same long value different keys',
    (first, second) => {
      const value = 'ł'.repeat(2_000);
      expect(claimKey({ field: first, value }).pk).not.toBe(claimKey({ field: second, value }).pk);
    },
  );
});

describe('local reference keys', () => {
  it('put a reference item under LOCALREF#<value> verbatim, sorted by the 16-digit id', () => {
    expect(localReferenceKey('ref-1', 30863)).toEqual({ pk: 'LOCALREF#ref-1', sk: '0000000000030863' });
  });

  it.each([
    ['case', 'ref-1', 'REF-1'],
    ['a longer value it begins', 'ref-1', 'ref-10'],
    ['a shorter value it begins with', 'ref-1', 'ref'],
    ['accents (no folding)', 'José', 'Jose'],
    ['composed and decomposed forms (no normalising)', 'Jos\u00e9', 'Jose\u0301'],
  ])('keep values apart that differ by %s', (_, a, b) => {
    expect(localReferenceKey(a, 1).pk).not.toBe(localReferenceKey(b, 1).pk);
  });

  it("sort one value's persons by id as strings", () => {
    const sorted = [9, 10, 100, 30863, 999_999_999].map((id) => localReferenceKey('r', id).sk);
    expect([...sorted].sort()).toEqual(sorted);
  });

  it.each([
    ['BMP characters of 3 bytes', '\u20ac'.repeat(LIMITS.localReferenceId)],
    ['characters beyond the BMP', '\u{1F600}'.repeat(LIMITS.localReferenceId / 2)],
  ])('fit the longest value of %s in a partition key without hashing', (_, value) => {
    expect(value.length).toBe(LIMITS.localReferenceId);
    expect(Buffer.byteLength(localReferenceKey(value, 1).pk)).toBeLessThanOrEqual(
      PARTITION_KEY_LIMIT_BYTES / 4,
    );
  });
});
