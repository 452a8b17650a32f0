/**
 * Imports a file of persons through the API: each record a `POST /Person` with an Idempotency-Key of
 * its own (person-file.ts), a bounded number at once. Each record ends created (or replayed: a rerun
 * given its first answer again), or refused with the API's problem+json; what each ended as goes to the
 * caller, which keeps the map and the rejects. An answer that no line could get past (the credentials
 * refused, or requester binding refusing this caller the requester it names) stops the run instead, that
 * line unsettled, so `--resume` with other credentials goes on from it.
 */
import { DELEGATE_SCOPE } from '../domain/principal';
import type { ApiAnswer, ApiClient } from './api-client';
import { idempotencyKeyOf, type PersonFile, type PersonRecord } from './person-file';

export type RecordOutcome =
  | { line: number; outcome: 'created' | 'replayed'; id: number; local_reference_id: string | null }
  | { line: number; outcome: 'refused'; status: number; type: string; input: unknown; problem: unknown }
  /** A line that could not be sent as written (person-file.ts), refused by the importer itself. */
  | { line: number; outcome: 'unreadable'; type: string; detail: string; bytes: Buffer };

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
  /**
   * Called once per record settled, in line order (whatever order the answers come in), so the map
   * and the rejects of a run are in line order too.
   */
  onOutcome?: (outcome: RecordOutcome) => void | Promise<void>;
  /** Once aborted, no record is sent any more; the requests in flight end, their outcomes given. */
  signal?: AbortSignal;
}

/**
 * Gives outcomes on in the order their records were taken (line order), whatever order they end in: an
 * outcome waits for those of the records taken before it. A record that ends with no outcome (the run
 * stopped at it) is `settle(n, undefined)`, so it holds up no other.
 */
const inLineOrder = (give: (outcome: RecordOutcome) => void | Promise<void>) => {
  const ended = new Map<number, RecordOutcome | undefined>();
  let next = 0;
  let giving = Promise.resolve();
  return (taken: number, outcome: RecordOutcome | undefined) => {
    ended.set(taken, outcome);
    // One at a time: each outcome given once the one before it has been.
    giving = giving.then(async () => {
      while (ended.has(next)) {
        const ready = ended.get(next);
        ended.delete(next);
        next++;
        if (ready !== undefined) await give(ready);
      }
    });
    return giving;
  };
};

/** `--concurrency` when none is given: docs/import-export.md has the measurements behind it. */
export const DEFAULT_CONCURRENCY = 8;

export const refusedCount = (summary: ImportSummary) =>
  Object.values(summary.refused).reduce((sum, count) => sum + count, 0);

/** The problem type's name: `/problems/duplicate-email` (or an absolute URI of it) is `duplicate-email`. */
const typeName = (problem: unknown, status: number) => {
  const type = (problem as { type?: unknown } | null)?.type;
  return typeof type === 'string' && type !== '' ? (type.split('/').pop() ?? type) : `http-${status}`;
};

/**
 * A body as JSON to write in the rejects, or its text as it is when that cannot be: not JSON, or JSON
 * nested too deep to be written again (`[` x 100 000 parses, but JSON.stringify runs out of stack).
 */
const parsedOrRaw = (text: string): unknown => {
  try {
    const value: unknown = JSON.parse(text);
    JSON.stringify(value);
    return value;
  } catch {
    return text;
  }
};

const outcomeOf = (
  record: PersonRecord,
  answer: ApiAnswer,
): Exclude<RecordOutcome, { outcome: 'unreadable' }> => {
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

/**
 * An answer no line would get past, as an error that says what to do: a 401 (the credentials refused,
 * say a token that expired during the run), or with requester binding on (API.md 9.1) a caller that is
 * no delegate: 403 `requester-mismatch` on every line that names a person, or 409
 * `principal-already-bound` on every self-registration after the one that bound its principal.
 * Undefined for an answer about the line itself.
 */
const credentialsRefusal = (outcome: RecordOutcome, requester: number) => {
  if (outcome.outcome !== 'refused') return undefined;
  const advice =
    outcome.status === 401
      ? 'the API does not accept the credentials (a token expired?): a valid --token, or AWS credentials'
      : outcome.type === 'requester-mismatch' ||
          (requester === 0 && outcome.type === 'principal-already-bound')
        ? `with requester binding on, an import needs a delegate: a token with the scope ${DELEGATE_SCOPE}, or an IAM principal listed in the deploy option delegates`
        : undefined;
  if (advice === undefined) return undefined;
  const detail = (outcome.problem as { detail?: unknown } | null)?.detail;
  const answer = `${outcome.status} ${outcome.type}${typeof detail === 'string' ? ` (${detail})` : ''}`;
  return new Error(`line ${outcome.line} was refused ${answer}; ${advice}`);
};

export const importPersons = async ({
  file,
  client,
  requester,
  concurrency,
  settled = new Set(),
  onOutcome,
  signal,
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
  const settle = inLineOrder(async (outcome) => {
    await onOutcome?.(outcome);
  });
  let taken = 0;

  const worker = async () => {
    // Workers share the one iterator: each takes the next record when it is free.
    while (failed === undefined && !signal?.aborted) {
      const next = await records.next();
      if (next.done) return;
      const record = next.value;
      if (settled.has(record.line)) {
        summary.skipped++;
        continue;
      }
      const order = taken++;
      if (!('body' in record)) {
        const { line, type, detail, bytes } = record;
        summary.refused[type] = (summary.refused[type] ?? 0) + 1;
        await settle(order, { line, outcome: 'unreadable', type, detail, bytes }).catch((error: unknown) => {
          failed ??= error;
        });
        continue;
      }
      let outcome: RecordOutcome | undefined;
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
        const answered = outcomeOf(record, answer);
        const refusal = credentialsRefusal(answered, requester);
        if (refusal !== undefined) {
          // Not recorded: the line is no reject of its own, so `--resume` sends it again.
          failed ??= refusal;
        } else {
          outcome = answered;
          if (answered.outcome === 'refused')
            summary.refused[answered.type] = (summary.refused[answered.type] ?? 0) + 1;
          else summary[answered.outcome]++;
        }
      } catch (error) {
        // The API cannot be reached (or kept failing past the client's patience): stop sending. What
        // ended is recorded, and `--resume` goes on from there with the same keys.
        failed ??= error;
      }
      await settle(order, outcome).catch((error: unknown) => {
        // The map or the rejects could not be written: stop, as when the API goes away.
        failed ??= error;
      });
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
