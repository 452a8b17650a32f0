/**
 * Counting DynamoDB calls with an SDK middleware, and the capacity they cost computed from item
 * sizes, because DynamoDB Local under-reports what transactions consume.
 *
 * The rules (DynamoDB developer guide, "Item sizes and formats" and "Read/write capacity mode"):
 * - an item's size is the UTF-8 length of its attribute names plus their values: strings by UTF-8
 *   length, numbers about 1 byte per 2 significant digits plus 1, booleans and null 1 byte, lists and
 *   maps 3 bytes plus 1 byte per element (plus the element's name in a map);
 * - a write costs 1 WCU per started KB of the item (the larger of old and new for a replacing Put),
 *   doubled in a transaction;
 * - a read costs 1 RCU per started 4 KB strongly consistent, 0.5 eventually consistent, per item for
 *   GetItem and BatchGetItem, and over the summed size of what was read (before any filter) for Query;
 *   index entries are sized by the table's measured average entry; a Query of the table itself (the
 *   search postings, projected) takes DynamoDB Local's own count, which charges whole items as AWS does;
 * - a `ConditionCheck` in a transaction is counted as a transactional read of its item (2 RCU).
 * The write units of the search postings (and their `POSTINGS` item) are also counted apart: the same
 * write without them is what it cost before the search index.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface RecordedCall {
  command: string;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
}

export interface Tally {
  calls: number;
  byCommand: Record<string, number>;
}

export const newTally = (): Tally => ({ calls: 0, byCommand: {} });

/** What the middleware does with each call: counted into `tally`, recorded in full into `recording`. */
export interface Instrument {
  tally: Tally | undefined;
  /** While set, calls also ask for `ReturnConsumedCapacity: TOTAL`, to show what DynamoDB Local reports. */
  recording: RecordedCall[] | undefined;
}

/** Adds the counting middleware to a client (and so to every document client command it sends). */
export const instrument = (client: DynamoDBDocumentClient): Instrument => {
  const state: Instrument = { tally: undefined, recording: undefined };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      // Taken when the call starts: concurrent calls of one operation count where they began.
      const { tally, recording } = state;
      const command = (context.commandName ?? 'unknown').replace(/Command$/, '');
      if (tally) {
        tally.calls += 1;
        tally.byCommand[command] = (tally.byCommand[command] ?? 0) + 1;
      }
      const input = args.input as Record<string, unknown>;
      if (recording) input.ReturnConsumedCapacity ??= 'TOTAL';
      const result = await next(args);
      recording?.push({ command, input, output: result.output as Record<string, unknown> });
      return result;
    },
    { step: 'initialize', name: 'benchInstrument', priority: 'high' },
  );
  return state;
};

const utf8 = (value: string) => Buffer.byteLength(value, 'utf8');

const numberSize = (value: number | bigint) => {
  const digits = String(value)
    .replace(/^-/, '')
    .replace(/e.*$/i, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
};

/** The size DynamoDB counts for one attribute value (document form, as the document client sends it). */
export const valueSize = (value: unknown): number => {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberSize(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueSize(element), 0);
  if (Array.isArray(value))
    return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object')
    return (
      3 +
      Object.entries(value).reduce(
        (sum, [name, element]) => (element === undefined ? sum : sum + 1 + utf8(name) + valueSize(element)),
        0,
      )
    );
  return utf8(String(value));
};

/** The size of an item: its attribute names and values. */
export const itemSize = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce(
    (sum, [name, value]) => (value === undefined ? sum : sum + utf8(name) + valueSize(value)),
    0,
  );

export interface Capacity {
  /** Computed read capacity units. */
  rcu: number;
  /** Computed write capacity units. */
  wcu: number;
  /** Of `wcu`, what the search postings and their `POSTINGS` item cost (lib/db/search/postings.ts). */
  postingsWcu: number;
  /** What DynamoDB Local said it consumed (ReturnConsumedCapacity), for comparison. */
  reported: number;
  /**
   * Bytes of what the reads answered: index entries at their average size, items as returned (for a
   * projected Query of postings, the part asked for, not what the read units are charged on).
   */
  bytesRead: number;
}

type Key = Record<string, unknown>;
const keyOf = (key: Key) => `${String(key.pk)}\u0000${String(key.sk)}`;
const units = (bytes: number, unit: number) => Math.max(1, Math.ceil(bytes / unit));

const reportedOf = (output: Record<string, unknown>) =>
  [output.ConsumedCapacity]
    .flat()
    .reduce(
      (sum: number, consumed) => sum + ((consumed as { CapacityUnits?: number })?.CapacityUnits ?? 0),
      0,
    );

/**
 * The capacity of one operation's calls. `indexEntryBytes` is the average size of an entry of the
 * queried index (Query results carry only the projected attributes asked for, not what was read).
 */
export const capacityOf = (calls: readonly RecordedCall[], indexEntryBytes: number): Capacity => {
  let rcu = 0;
  let wcu = 0;
  let postingsWcu = 0;
  let reported = 0;
  let bytesRead = 0;
  const isPosting = (key: Key) => String(key.pk).startsWith('GRAM#') || key.sk === 'POSTINGS';
  /** Sizes of items this operation read, for the "larger of old and new" rule of its writes. */
  const known = new Map<string, number>();
  for (const { command, input, output } of calls) {
    reported += reportedOf(output);
    const readUnit = input.ConsistentRead ? 1 : 0.5;
    switch (command) {
      case 'GetItem': {
        const item = output.Item as Key | undefined;
        const size = item ? itemSize(item) : 0;
        if (item) known.set(keyOf(item), size);
        bytesRead += size;
        rcu += units(size, 4096) * readUnit;
        break;
      }
      case 'BatchGetItem': {
        const requests = input.RequestItems as Record<string, { Keys: Key[]; ConsistentRead?: boolean }>;
        const responses = (output.Responses ?? {}) as Record<string, Key[]>;
        for (const [table, { Keys, ConsistentRead }] of Object.entries(requests)) {
          const found = new Map((responses[table] ?? []).map((item) => [keyOf(item), itemSize(item)]));
          for (const key of Keys) {
            const size = found.get(keyOf(key)) ?? 0;
            if (found.has(keyOf(key))) known.set(keyOf(key), size);
            bytesRead += size;
            rcu += units(size, 4096) * (ConsistentRead ? 1 : 0.5);
          }
        }
        break;
      }
      case 'Query': {
        if (input.IndexName) {
          const bytes = ((output.ScannedCount as number | undefined) ?? 0) * indexEntryBytes;
          bytesRead += bytes;
          rcu += units(bytes, 4096) * readUnit;
        } else {
          // The items as asked for (a posting Query projects part of each); what they are charged on
          // is the whole items, which DynamoDB Local counts right for a Query (not for transactions).
          bytesRead += ((output.Items ?? []) as Key[]).reduce((sum, item) => sum + itemSize(item), 0);
          rcu += reportedOf(output);
        }
        break;
      }
      case 'UpdateItem':
      case 'PutItem':
      case 'DeleteItem': {
        const item = (input.Item ?? input.Key) as Key;
        wcu += units(Math.max(itemSize(item), known.get(keyOf(item)) ?? 0), 1024);
        break;
      }
      case 'TransactWriteItems': {
        for (const action of input.TransactItems as Record<string, { Item?: Key; Key?: Key }>[]) {
          const [kind, body] = Object.entries(action)[0] as [string, { Item?: Key; Key?: Key }];
          const key = (body.Item ?? body.Key) as Key;
          const old = known.get(keyOf(key)) ?? 0;
          if (kind === 'ConditionCheck') {
            rcu += 2 * units(old, 4096);
            continue;
          }
          const written =
            kind === 'Put'
              ? 2 * units(Math.max(itemSize(body.Item as Key), old), 1024)
              : 2 * units(old, 1024);
          wcu += written;
          if (isPosting(key)) postingsWcu += written;
        }
        break;
      }
      default:
        break;
    }
  }
  return { rcu, wcu, postingsWcu, reported, bytesRead };
};
