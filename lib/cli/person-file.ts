/**
 * A file of persons to import: NDJSON (one JSON object a line; blank lines skipped) or one JSON array
 * of objects, in this service's Person shape or GRC's (the API takes both, API.md 11.1). NDJSON is
 * read line by line, in constant memory; an array is read whole. A record is sent as it is written
 * (an array's element as its text in the file, not parsed and written again), so the API, not the
 * importer, says what is wrong with it, and nothing is altered on the way: a line that is not UTF-8
 * is no record but an unreadable line, refused without a request (not sent with U+FFFD in place of its
 * bytes), and an array that is not UTF-8 is no file to import.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { CommandError } from './command';
import { checkReadable } from './files';

export interface PersonRecord {
  /** The line of an NDJSON file, or the position (from 1) of an element in a JSON array. */
  line: number;
  /** The request body: the line, or the element, as written. */
  body: string;
}

/** A line that cannot be sent as it is written: the importer refuses it without a request. */
export interface UnreadableLine {
  line: number;
  /** Why, as a problem type's last segment would say it. */
  type: 'not-utf-8';
  /** What is wrong, and where. */
  detail: string;
  /** The line's bytes, as read. */
  bytes: Buffer;
}

export type FileRecord = PersonRecord | UnreadableLine;

export interface PersonFile {
  path: string;
  format: 'ndjson' | 'json-array';
  /** SHA-256 of the file's bytes, hex: the same file gives the same Idempotency-Keys. */
  hash: string;
  /** How many records it holds (unreadable lines included). */
  total: number;
  records(): AsyncIterable<FileRecord>;
}

const LF = 0x0a;
const CR = 0x0d;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Strict: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Where the first byte that is not part of a UTF-8 sequence is (RFC 3629's table), or -1. */
export const firstInvalidByte = (bytes: Uint8Array): number => {
  for (let at = 0; at < bytes.length; ) {
    const lead = bytes[at] as number;
    const length =
      lead < 0x80 ? 1 : lead < 0xc2 ? 0 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : lead < 0xf5 ? 4 : 0;
    if (length === 0) return at;
    // The second byte's range is narrower after E0, ED, F0 and F4 (no overlong forms, no surrogates,
    // nothing past U+10FFFF).
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let next = 1; next < length; next++) {
      const byte = bytes[at + next];
      if (byte === undefined || byte < (next === 1 ? low : 0x80) || byte > (next === 1 ? high : 0xbf))
        return at;
    }
    at += length;
  }
  return -1;
};

const hex = (byte: number | undefined) => `0x${(byte ?? 0).toString(16).toUpperCase().padStart(2, '0')}`;
const CONVERT = 'convert the file to UTF-8 first (from Windows-1252: iconv -f WINDOWS-1252 -t UTF-8 FILE)';

/**
 * The lines of a file as bytes, split where an editor (and Node's readline) splits them: at `\n`,
 * `\r\n` or a lone `\r`.
 */
const byteLines = async function* (path: string): AsyncGenerator<Buffer> {
  let pieces: Buffer[] = [];
  let afterCR = false;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let at = 0; at < chunk.length; at++) {
      const byte = chunk[at];
      if (byte === LF && afterCR) {
        // The \n of a \r\n: the line ended at the \r.
        afterCR = false;
        start = at + 1;
        continue;
      }
      afterCR = byte === CR;
      if (byte !== LF && byte !== CR) continue;
      pieces.push(chunk.subarray(start, at));
      yield Buffer.concat(pieces);
      pieces = [];
      start = at + 1;
    }
    if (start < chunk.length) pieces.push(chunk.subarray(start));
  }
  if (pieces.length > 0) yield Buffer.concat(pieces);
};

const lines = async function* (path: string): AsyncGenerator<FileRecord> {
  let line = 0;
  for await (const read of byteLines(path)) {
    line++;
    // A byte order mark on the first line is the file's, not the record's.
    const bytes = line === 1 && read.subarray(0, 3).equals(BOM) ? read.subarray(3) : read;
    let body: string;
    try {
      body = utf8.decode(bytes);
    } catch {
      const at = Math.max(0, firstInvalidByte(bytes));
      yield {
        line,
        type: 'not-utf-8',
        detail: `line ${line} is not UTF-8: byte ${hex(bytes[at])} at byte ${at + 1} of the line, not sent: ${CONVERT}`,
        bytes,
      };
      continue;
    }
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

/**
 * Where each element of a JSON array is written in its text, `[from, to)`: the array's own commas
 * and brackets, found by counting brackets outside strings (no recursion, so no depth is too deep).
 * The text is a valid JSON array (JSON.parse said so).
 */
const elementSpans = (text: string): [number, number][] => {
  const spans: [number, number][] = [];
  let depth = 0;
  let inString = false;
  let from = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (inString) {
      if (char === '\\') at++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') {
      depth++;
      if (depth === 1) from = at + 1;
    } else if (char === ']' || char === '}') {
      depth--;
      if (depth === 0) {
        if (text.slice(from, at).trim() !== '') spans.push([from, at]);
        break;
      }
    } else if (char === ',' && depth === 1) {
      spans.push([from, at]);
      from = at + 1;
    }
  }
  return spans;
};

export class UnreadableFile extends CommandError {}

/** A JSON array's text: its bytes as UTF-8, or an UnreadableFile that says where they are not. */
const arrayText = (path: string, bytes: Buffer) => {
  try {
    return utf8.decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    const at = Math.max(0, firstInvalidByte(bytes));
    const before = bytes.subarray(0, at);
    const line = before.filter((byte) => byte === LF).length + 1;
    throw new UnreadableFile(
      `${path} is not UTF-8: byte ${hex(bytes[at])} at byte ${at - before.lastIndexOf(LF)} of line ${line}; nothing sent: ${CONVERT}`,
    );
  }
};

/** Reads what an import needs to know before it starts: format, content hash, number of records. */
export const openPersonFile = async (path: string): Promise<PersonFile> => {
  await checkReadable(path);
  const hashing = createHash('sha256');
  for await (const chunk of createReadStream(path)) hashing.update(chunk as Buffer);
  const hash = hashing.digest('hex');

  if ((await firstCharacter(path)) === '[') {
    const text = arrayText(path, await readFile(path));
    let elements: unknown;
    try {
      elements = JSON.parse(text);
    } catch (error) {
      throw new UnreadableFile(`${path} starts with [ but is not a JSON array: ${(error as Error).message}`);
    }
    if (!Array.isArray(elements)) throw new UnreadableFile(`${path} is not a JSON array`);
    const spans = elementSpans(text);
    if (spans.length !== elements.length)
      throw new Error(`${path}: found ${spans.length} elements of ${elements.length}`);
    return {
      path,
      format: 'json-array',
      hash,
      total: spans.length,
      async *records() {
        for (const [index, [from, to]] of spans.entries())
          yield { line: index + 1, body: text.slice(from, to).trim() };
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
