import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CommandError } from '../../../lib/cli/command';
import {
  type FileRecord,
  firstInvalidByte,
  idempotencyKeyOf,
  openPersonFile,
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
  const records: FileRecord[] = [];
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

  it('reads a JSON array as records numbered from 1, each element as written, whatever its layout', async () => {
    const path = await fileWith(
      'b.json',
      ' \n[\n  {"a": 1},\n  {"b": [2, 3], "c": "],{\\"["}\n, [] ,{"id": 12345678901234567890, "x": 1.0}]\n',
    );

    const file = await openPersonFile(path);

    expect(file.format).toBe('json-array');
    expect(file.total).toBe(4);
    // Not parsed and written again: a big integer, 1.0 and the spacing reach the API as they are.
    expect(await recordsOf(path)).toEqual([
      { line: 1, body: '{"a": 1}' },
      { line: 2, body: '{"b": [2, 3], "c": "],{\\"["}' },
      { line: 3, body: '[]' },
      { line: 4, body: '{"id": 12345678901234567890, "x": 1.0}' },
    ]);
  });

  it('reads an element nested 100 000 deep as written, where writing it again would run out of stack', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const path = await fileWith('deep.json', `[{"a":1},${deep}]`);

    expect(await recordsOf(path)).toEqual([
      { line: 1, body: '{"a":1}' },
      { line: 2, body: deep },
    ]);
  });

  it('refuses an array that is not UTF-8, saying where, rather than send U+FFFD for its bytes', async () => {
    const path = join(folder, 'latin1.json');
    await writeFile(
      path,
      Buffer.concat([Buffer.from('[\n{"a":1},\n{"b":"Jos'), Buffer.from([0xe9]), Buffer.from('"}]')]),
    );

    await expect(openPersonFile(path)).rejects.toThrow(
      /latin1\.json is not UTF-8: byte 0xE9 at byte 10 of line 3;/,
    );
  });

  it('gives a line that is not UTF-8 as unreadable, with its line and bytes, and reads the others', async () => {
    const latin1 = Buffer.concat([Buffer.from('{"first_name":"Jos'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const path = join(folder, 'latin1.ndjson');
    await writeFile(path, Buffer.concat([Buffer.from('{"a":"é"}\n\n'), latin1, Buffer.from('\n{"b":2}\n')]));

    const file = await openPersonFile(path);

    expect(file.total).toBe(3);
    expect(await recordsOf(path)).toEqual([
      { line: 1, body: '{"a":"é"}' },
      {
        line: 3,
        type: 'not-utf-8',
        detail: expect.stringMatching(/^line 3 is not UTF-8: byte 0xE9 at byte 19 of the line, not sent/),
        bytes: latin1,
      },
      { line: 4, body: '{"b":2}' },
    ]);
  });

  it('splits lines on bytes: a character or a \\r\\n across two reads of the file is whole', async () => {
    // createReadStream reads 64 KiB at a time: put a 2-byte character, then a CRLF, across a boundary.
    const first = `{"a":"${'x'.repeat(65_529)}é"}`;
    const second = `{"b":"${'y'.repeat(65_522)}"}`;
    const text = `${first}\r\n${second}\r\n{"c":"ü"}\r{"d":1}`;
    const path = await fileWith('long.ndjson', text);

    const bytes = Buffer.from(text);
    expect(bytes.indexOf('é')).toBe(65_535);
    expect(bytes.indexOf('\r\n', 65_541)).toBe(131_071);
    expect(await recordsOf(path)).toEqual([
      { line: 1, body: first },
      { line: 2, body: second },
      { line: 3, body: '{"c":"ü"}' },
      { line: 4, body: '{"d":1}' },
    ]);
  });

  it.each([
    [
      'plain ASCII and every length of character',
      [0x41, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80],
      -1,
    ],
    ['a continuation byte alone', [0x41, 0x80], 1],
    ['an overlong form', [0x41, 0xc0, 0x80], 1],
    ['a surrogate', [0xed, 0xa0, 0x80], 0],
    ['past U+10FFFF', [0x41, 0x41, 0xf4, 0x90, 0x80, 0x80], 2],
    ['a sequence cut short', [0x41, 0xe2, 0x82], 1],
  ])('finds the first byte that is not UTF-8: %s', (_, bytes, at) => {
    expect(firstInvalidByte(Uint8Array.from(bytes))).toBe(at);
  });

  it.each([
    ['a folder', 'a-folder.ndjson', /a-folder\.ndjson is a folder, not a file/],
    ['a missing file', 'missing.ndjson', /missing\.ndjson: no such file/],
  ])('refuses %s with a message', async (_, name, message) => {
    await mkdir(join(folder, 'a-folder.ndjson'), { recursive: true });

    const opening = openPersonFile(join(folder, name));

    await expect(opening).rejects.toThrow(CommandError);
    await expect(opening).rejects.toThrow(message);
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
