import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  idempotencyKeyOf,
  openPersonFile,
  type PersonRecord,
  UnreadableFile,
} from '../../../lib/cli/person-file';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'person-file-'));
});

const fileWith = async (name: string, text: string) => {
  const path = join(folder, name);
  await writeFile(path, text);
  return path;
};

const recordsOf = async (path: string) => {
  const records: PersonRecord[] = [];
  for await (const record of (await openPersonFile(path)).records()) records.push(record);
  return records;
};

describe('a file of persons to import', () => {
  it('reads NDJSON line by line, numbering lines as an editor does and skipping blank ones', async () => {
    const path = await fileWith('a.ndjson', '\uFEFF{"a":1}\r\n\n  \n{"b":2}\nnot json\n');

    const file = await openPersonFile(path);

    expect(file.format).toBe('ndjson');
    expect(file.total).toBe(3);
    expect(await recordsOf(path)).toEqual([
      { line: 1, body: '{"a":1}' },
      { line: 4, body: '{"b":2}' },
      { line: 5, body: 'not json' },
    ]);
  });

  it('reads a JSON array as records numbered from 1, whatever its layout', async () => {
    const path = await fileWith('b.json', ' \n[\n  {"a": 1},\n  {"b": [2, 3]}\n]\n');

    const file = await openPersonFile(path);

    expect(file.format).toBe('json-array');
    expect(file.total).toBe(2);
    expect(await recordsOf(path)).toEqual([
      { line: 1, body: '{"a":1}' },
      { line: 2, body: '{"b":[2,3]}' },
    ]);
  });

  it('refuses a file that starts as an array and is not one', async () => {
    await expect(openPersonFile(await fileWith('c.json', '[{"a":1},'))).rejects.toThrow(UnreadableFile);
  });

  it('hashes the bytes: the same content gives the same keys, another content other keys', async () => {
    const one = await openPersonFile(await fileWith('d1.ndjson', '{"a":1}\n'));
    const same = await openPersonFile(await fileWith('d2.ndjson', '{"a":1}\n'));
    const other = await openPersonFile(await fileWith('d3.ndjson', '{"a":2}\n'));

    expect(one.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyKeyOf(one, 1)).toBe(idempotencyKeyOf(same, 1));
    expect(idempotencyKeyOf(one, 1)).not.toBe(idempotencyKeyOf(other, 1));
    expect(idempotencyKeyOf(one, 1)).not.toBe(idempotencyKeyOf(one, 2));
  });

  it('makes keys the API takes: 1 to 255 visible ASCII characters', async () => {
    const file = await openPersonFile(await fileWith('e.ndjson', '{}\n'));

    expect(idempotencyKeyOf(file, 9_999_999)).toMatch(/^[\x21-\x7e]{1,255}$/);
  });
});
