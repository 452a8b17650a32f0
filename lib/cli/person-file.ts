/**
 * A file of persons to import: NDJSON (one JSON object a line; blank lines skipped) or one JSON array
 * of objects, in this service's Person shape or GRC's (the API takes both, API.md 11.1). NDJSON is
 * read line by line, in constant memory; an array is parsed whole. A line is sent as it is written, so
 * the API, not the importer, says what is wrong with it.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { CommandError } from './command';

export interface PersonRecord {
  /** The line of an NDJSON file, or the position (from 1) of an element in a JSON array. */
  line: number;
  /** The request body: the line as written, or the element serialised. */
  body: string;
}

export interface PersonFile {
  path: string;
  format: 'ndjson' | 'json-array';
  /** SHA-256 of the file's bytes, hex: the same file gives the same Idempotency-Keys. */
  hash: string;
  /** How many records it holds. */
  total: number;
  records(): AsyncIterable<PersonRecord>;
}

const lines = async function* (path: string) {
  const reader = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const text of reader) {
    line++;
    // A byte order mark on the first line is the file's, not the record's.
    const body = line === 1 ? text.replace(/^\uFEFF/, '') : text;
    if (body.trim() !== '') yield { line, body };
  }
};

/** The first character that is not white space (or a byte order mark): `[` means a JSON array. */
const firstCharacter = async (path: string) => {
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 4096 })) {
    const found = (chunk as string).replace(/^[\s\uFEFF]+/, '');
    if (found.length > 0) return found[0];
  }
  return undefined;
};

export class UnreadableFile extends CommandError {}

/** Reads what an import needs to know before it starts: format, content hash, number of records. */
export const openPersonFile = async (path: string): Promise<PersonFile> => {
  const hashing = createHash('sha256');
  for await (const chunk of createReadStream(path)) hashing.update(chunk as Buffer);
  const hash = hashing.digest('hex');

  if ((await firstCharacter(path)) === '[') {
    let elements: unknown;
    try {
      elements = JSON.parse((await readFile(path, 'utf8')).replace(/^\uFEFF/, ''));
    } catch (error) {
      throw new UnreadableFile(`${path} starts with [ but is not a JSON array: ${(error as Error).message}`);
    }
    if (!Array.isArray(elements)) throw new UnreadableFile(`${path} is not a JSON array`);
    const array = elements as unknown[];
    return {
      path,
      format: 'json-array',
      hash,
      total: array.length,
      async *records() {
        for (const [index, element] of array.entries())
          yield { line: index + 1, body: JSON.stringify(element) };
      },
    };
  }

  let total = 0;
  for await (const _ of lines(path)) total++;
  return { path, format: 'ndjson', hash, total, records: () => lines(path) };
};

/**
 * The Idempotency-Key of a record: the file's content hash and the record's line, so that a rerun of
 * the same file, or a resumed one, sends each record with the key it had (and gets its first answer
 * back instead of a second person), while another file never shares a key with this one.
 */
export const idempotencyKeyOf = (file: Pick<PersonFile, 'hash'>, line: number) =>
  `import:${file.hash}:${line}`;
