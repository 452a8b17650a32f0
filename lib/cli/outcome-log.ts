/**
 * What an import run leaves beside its input: the map (one NDJSON line per person created or
 * replayed: the record's line, the new id, the `local_reference_id` sent) and the rejects (one per
 * refused record: its line, its input and the API's problem+json). A resumed run reads both to skip the
 * lines they settled, and appends to them.
 */
import { once } from 'node:events';
import { createReadStream, existsSync, type WriteStream } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { openWritable } from './files';
import type { RecordOutcome } from './importer';

export interface OutcomePaths {
  map: string;
  rejects: string;
}

/** `persons.ndjson` gives `persons.map.ndjson` and `persons.rejects.ndjson`, beside it. */
export const outcomePathsFor = (input: string): OutcomePaths => {
  const stem = join(dirname(input), basename(input, extname(input)));
  return { map: `${stem}.map.ndjson`, rejects: `${stem}.rejects.ndjson` };
};

/** The lines an earlier run recorded in these files. */
export const settledLines = async (paths: readonly string[]): Promise<Set<number>> => {
  const lines = new Set<number>();
  for (const path of paths) {
    if (!existsSync(path)) continue;
    for await (const text of createInterface({
      input: createReadStream(path),
      crlfDelay: Number.POSITIVE_INFINITY,
    })) {
      if (text.trim() === '') continue;
      try {
        const { line } = JSON.parse(text) as { line?: unknown };
        if (Number.isSafeInteger(line)) lines.add(line as number);
      } catch {
        // A line cut short by a run that was killed while writing it: that record is sent again.
      }
    }
  }
  return lines;
};

const write = async (stream: WriteStream, value: unknown) => {
  if (!stream.write(`${JSON.stringify(value)}\n`)) await once(stream, 'drain');
};

export interface OutcomeLog {
  settled: ReadonlySet<number>;
  record(outcome: RecordOutcome): Promise<void>;
  close(): Promise<void>;
}

export const openOutcomeLog = async (paths: OutcomePaths, resume: boolean): Promise<OutcomeLog> => {
  // Opened first: a path that cannot be written (a folder, no such folder) is a message, before anything.
  const flags = resume ? 'a' : 'w';
  const map = await openWritable(paths.map, flags);
  const rejects = await openWritable(paths.rejects, flags);
  const settled = resume ? await settledLines([paths.map, paths.rejects]) : new Set<number>();
  return {
    settled,
    record: (outcome) =>
      outcome.outcome === 'refused'
        ? write(rejects, {
            line: outcome.line,
            status: outcome.status,
            type: outcome.type,
            input: outcome.input,
            problem: outcome.problem,
          })
        : outcome.outcome === 'unreadable'
          ? // No answer of the API: the importer's own reason, and the line's bytes as they are.
            write(rejects, {
              line: outcome.line,
              type: outcome.type,
              detail: outcome.detail,
              input_base64: outcome.bytes.toString('base64'),
            })
          : write(map, {
              line: outcome.line,
              id: outcome.id,
              local_reference_id: outcome.local_reference_id,
              ...(outcome.outcome === 'replayed' ? { replayed: true } : {}),
            }),
    close: async () => {
      await Promise.all([map, rejects].map((stream) => new Promise((done) => stream.end(done))));
    },
  };
};
