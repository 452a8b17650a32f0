/**
 * Imports a file of persons through the API: each record a `POST /Person` with an Idempotency-Key of
 * its own (person-file.ts), a bounded number at once. Each record ends created (or replayed: a rerun
 * given its first answer again), or refused with the API's problem+json; what each ended as goes to the
 * caller, which keeps the map and the rejects.
 */
import type { ApiAnswer, ApiClient } from './api-client';
import { idempotencyKeyOf, type PersonFile, type PersonRecord } from './person-file';

export type RecordOutcome =
  | { line: number; outcome: 'created' | 'replayed'; id: number; local_reference_id: string | null }
  | { line: number; outcome: 'refused'; status: number; type: string; input: unknown; problem: unknown };

export interface ImportSummary {
  total: number;
  /** Records an earlier run settled (`--resume`), not sent again. */
  skipped: number;
  created: number;
  replayed: number;
  /** Refused records by problem type (`duplicate-email`, `validation-error`, ...). */
  refused: Record<string, number>;
  /** Requests sent again after a 429, a 503, a key in progress or a dropped connection. */
  retries: number;
}

export interface ImportOptions {
  file: PersonFile;
  client: ApiClient;
  /** `x-requester-person`: a person id, or 0 for each record to register itself. */
  requester: number;
  concurrency: number;
  /** Lines an earlier run settled, skipped by a resumed one. */
  settled?: ReadonlySet<number>;
  /** Called once per record sent, in the order they end. */
  onOutcome?: (outcome: RecordOutcome) => void | Promise<void>;
}

export const refusedCount = (summary: ImportSummary) =>
  Object.values(summary.refused).reduce((sum, count) => sum + count, 0);

/** The problem type's name: `/problems/duplicate-email` (or an absolute URI of it) is `duplicate-email`. */
const typeName = (problem: unknown, status: number) => {
  const type = (problem as { type?: unknown } | null)?.type;
  return typeof type === 'string' && type !== '' ? (type.split('/').pop() ?? type) : `http-${status}`;
};

const parsedOrRaw = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

const outcomeOf = (record: PersonRecord, answer: ApiAnswer): RecordOutcome => {
  const body = parsedOrRaw(answer.text);
  if (answer.status === 201) {
    const person = body as { id: number; local_reference_id?: string | null };
    return {
      line: record.line,
      outcome: answer.headers.get('idempotent-replayed') === 'true' ? 'replayed' : 'created',
      id: person.id,
      local_reference_id: person.local_reference_id ?? null,
    };
  }
  return {
    line: record.line,
    outcome: 'refused',
    status: answer.status,
    type: typeName(body, answer.status),
    input: parsedOrRaw(record.body),
    problem: body,
  };
};

export const importPersons = async ({
  file,
  client,
  requester,
  concurrency,
  settled = new Set(),
  onOutcome,
}: ImportOptions): Promise<ImportSummary> => {
  const summary: ImportSummary = {
    total: file.total,
    skipped: 0,
    created: 0,
    replayed: 0,
    refused: {},
    retries: 0,
  };
  const records = file.records()[Symbol.asyncIterator]();
  let failed: unknown;

  const worker = async () => {
    // Workers share the one iterator: each takes the next record when it is free.
    while (failed === undefined) {
      const next = await records.next();
      if (next.done) return;
      const record = next.value;
      if (settled.has(record.line)) {
        summary.skipped++;
        continue;
      }
      try {
        const answer = await client.send({
          method: 'POST',
          path: '/Person',
          headers: {
            'x-requester-person': String(requester),
            'idempotency-key': idempotencyKeyOf(file, record.line),
          },
          body: record.body,
        });
        const outcome = outcomeOf(record, answer);
        if (outcome.outcome === 'refused')
          summary.refused[outcome.type] = (summary.refused[outcome.type] ?? 0) + 1;
        else summary[outcome.outcome]++;
        await onOutcome?.(outcome);
      } catch (error) {
        // The API cannot be reached (or kept failing past the client's patience): stop sending. What
        // ended is recorded, and `--resume` goes on from there with the same keys.
        failed ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  summary.retries = client.retries;
  if (failed !== undefined) throw new ImportInterrupted(summary, failed);
  return summary;
};

export class ImportInterrupted extends Error {
  constructor(
    readonly summary: ImportSummary,
    readonly reason: unknown,
  ) {
    super(`The import stopped: ${(reason as Error)?.message ?? String(reason)}`);
  }
}
