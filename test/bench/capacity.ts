/**
 * Counting DynamoDB calls with an SDK middleware, and the capacity they cost computed from item
 * sizes, because DynamoDB Local under-reports what transactions consume.
 *
 * The rules (DynamoDB developer guide; the sizes and units in lib/db/table/item-size.ts, which the
 * capacity model, lib/capacity/, predicts with):
 * - a write costs 1 WCU per started KB of the item (the larger of old and new for a replacing Put),
 *   doubled in a transaction;
 * - a read costs 1 RCU per started 4 KB strongly consistent, 0.5 eventually consistent, per item for
 *   GetItem and BatchGetItem, and over the summed size of what was read (before any filter) for Query;
 *   index entries are sized by the table's measured average entry; a Query of the table itself (the
 *   search postings, projected) takes DynamoDB Local's own count, which charges whole items as AWS does;
 * - a `ConditionCheck` in a transaction is counted as a transactional read of its item (2 RCU);
 * - a conditional PutItem that fails costs what it would have written: the larger of its item and the
 *   one there (DynamoDB developer guide, "Capacity unit consumption for write operations"); the item
 *   there comes back with it (`ReturnValuesOnConditionCheckFailure: ALL_OLD`) for no read units;
 * - an UpdateItem that only SETs attributes of an item the operation wrote or read before is sized as
 *   that item with them (the larger of before and after); any other update by its key.
 * The write units of the search postings (and their `POSTINGS` item) are also counted apart: the same
 * write without them is what it cost before the search index; so are those of the idempotency records
 * (lib/db/idempotency/idempotency-store.ts), which Powertools sends through the raw client.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { itemSize, READ_UNIT_BYTES, unitsOf, WRITE_UNIT_BYTES } from '../../lib/db/table/item-size';
import { idempotencyKey } from '../../lib/db/table/keys';

/** One call, its items in document form whichever client sent it. */
export interface RecordedCall {
  command: string;
  input: Record<string, unknown>;
  /** What came back; for a failed conditional write, the item there (`Item`, when it was asked for). */
  output: Record<string, unknown>;
  /** The call was refused (a condition that failed, say): it still costs what it would have written. */
  failed?: boolean;
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

const IDEMPOTENCY_PREFIX = idempotencyKey('').pk as string;

/** The partition a single-item call names, in document or attribute-value form. */
const partitionOf = (input: Record<string, unknown>): string | undefined => {
  const pk = ((input.Key ?? input.Item) as Record<string, unknown> | undefined)?.pk;
  return typeof pk === 'string' ? pk : ((pk as { S?: string } | undefined)?.S ?? undefined);
};

/** The name a call is counted under: its command, and what it touches when that is not a person. */
const labelOf = (command: string, input: Record<string, unknown>) =>
  partitionOf(input)?.startsWith(IDEMPOTENCY_PREFIX) ? `${command} (idempotency record)` : command;

type AttributeMap = Record<string, AttributeValue>;
const fromAttributes = (value: unknown) => (value ? unmarshall(value as AttributeMap) : value);

/** A raw client's call in document form, as the document client's calls are recorded. */
const documentForm = (input: Record<string, unknown>, output: Record<string, unknown>) => ({
  input: {
    ...input,
    ...(input.Item ? { Item: fromAttributes(input.Item) } : {}),
    ...(input.Key ? { Key: fromAttributes(input.Key) } : {}),
    ...(input.ExpressionAttributeValues
      ? { ExpressionAttributeValues: fromAttributes(input.ExpressionAttributeValues) }
      : {}),
  },
  output: {
    ...output,
    ...(output.Item ? { Item: fromAttributes(output.Item) } : {}),
    ...(output.Attributes ? { Attributes: fromAttributes(output.Attributes) } : {}),
  },
});

/**
 * Adds the counting middleware to a client (and so to every document client command it sends), and
 * to the raw client under it, which Powertools' idempotency layer sends through (lib/db/from-env.ts):
 * the two share one middleware stack, so the raw client's `send` marks its own commands, whose items
 * are recorded unmarshalled.
 */
export const instrument = (client: DynamoDBDocumentClient, raw?: DynamoDBClient): Instrument => {
  const state: Instrument = { tally: undefined, recording: undefined };
  const sentRaw = new WeakSet<object>();
  if (raw) {
    const send = raw.send.bind(raw) as (command: object, ...rest: unknown[]) => Promise<unknown>;
    raw.send = ((command: object, ...rest: unknown[]) => {
      sentRaw.add(command);
      return send(command, ...rest);
    }) as typeof raw.send;
  }
  type Stack = DynamoDBDocumentClient['middlewareStack'];
  const addTo = (stack: Stack) =>
    stack.add(
      (next, context) => async (args) => {
        // Taken when the call starts: concurrent calls of one operation count where they began.
        const { tally, recording } = state;
        const command = (context.commandName ?? 'unknown').replace(/Command$/, '');
        const input = args.input as Record<string, unknown>;
        const isRaw = sentRaw.has(args as object);
        if (tally) {
          const label = labelOf(command, input);
          tally.calls += 1;
          tally.byCommand[label] = (tally.byCommand[label] ?? 0) + 1;
        }
        if (recording) input.ReturnConsumedCapacity ??= 'TOTAL';
        const record = (output: Record<string, unknown>, failed: boolean) =>
          recording?.push({
            command,
            ...(isRaw ? documentForm(input, output) : { input, output }),
            ...(failed ? { failed } : {}),
          });
        try {
          const result = await next(args);
          record(result.output as Record<string, unknown>, false);
          return result;
        } catch (error) {
          // A failed condition costs write units too; with ALL_OLD it brings the item there.
          // (Only the raw client's is known to be in attribute-value form.)
          const item = isRaw ? (error as { Item?: unknown }).Item : undefined;
          record(item ? { Item: item } : {}, true);
          throw error;
        }
      },
      { step: 'initialize', name: 'benchInstrument', priority: 'high' },
    );
  addTo(client.middlewareStack);
  // A raw client of its own (not the one under the document client) has a stack of its own.
  if (raw && (raw.middlewareStack as unknown) !== client.middlewareStack)
    addTo(raw.middlewareStack as unknown as Stack);
  return state;
};

export interface Capacity {
  /** Computed read capacity units. */
  rcu: number;
  /** Computed write capacity units. */
  wcu: number;
  /** Of `wcu`, what the search postings and their `POSTINGS` item cost (lib/db/person/write/postings.ts). */
  postingsWcu: number;
  /** Of `wcu`, what the idempotency records of keyed writes cost (lib/db/idempotency/). */
  idempotencyWcu: number;
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
const units = unitsOf;

const reportedOf = (output: Record<string, unknown>) =>
  [output.ConsumedCapacity]
    .flat()
    .reduce(
      (sum: number, consumed) => sum + ((consumed as { CapacityUnits?: number })?.CapacityUnits ?? 0),
      0,
    );

/**
 * The item an UpdateItem leaves when it only SETs attributes (`SET #a = :a, b = :b`) of an item
 * known before it; undefined for any other update or an unknown item.
 */
const afterUpdate = (before: Key | undefined, input: Record<string, unknown>): Key | undefined => {
  const expression = input.UpdateExpression;
  if (!before || typeof expression !== 'string') return undefined;
  const set = /^\s*SET\s+(.*)$/i.exec(expression)?.[1];
  if (!set) return undefined;
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  const after: Key = { ...before };
  for (const assignment of set.split(',')) {
    const [name, value] = assignment.split('=').map((part) => part.trim());
    if (!name || !value?.startsWith(':') || !(value in values) || /[\s.[(+-]/.test(name)) return undefined;
    after[names[name] ?? name] = values[value];
  }
  return after;
};

/**
 * The capacity of one operation's calls. `indexEntryBytes` is the average size of an entry of the
 * queried index (Query results carry only the projected attributes asked for, not what was read).
 */
export const capacityOf = (calls: readonly RecordedCall[], indexEntryBytes: number): Capacity => {
  let rcu = 0;
  let wcu = 0;
  let postingsWcu = 0;
  let idempotencyWcu = 0;
  let reported = 0;
  let bytesRead = 0;
  const isPosting = (key: Key) => String(key.pk).startsWith('GRAM#') || key.sk === 'POSTINGS';
  const isIdempotencyRecord = (key: Key) => String(key.pk).startsWith(IDEMPOTENCY_PREFIX);
  /** Sizes of items this operation read, for the "larger of old and new" rule of its writes. */
  const known = new Map<string, number>();
  /** Items this operation wrote whole (PutItem), for the size of an update of them. */
  const written = new Map<string, Key>();
  for (const { command, input, output, failed } of calls) {
    // A refused call costs nothing but a refused single-item write (as before, for the others).
    if (failed && !['PutItem', 'UpdateItem', 'DeleteItem'].includes(command)) continue;
    reported += reportedOf(output);
    const readUnit = input.ConsistentRead ? 1 : 0.5;
    switch (command) {
      case 'GetItem': {
        const item = output.Item as Key | undefined;
        const size = item ? itemSize(item) : 0;
        if (item) known.set(keyOf(item), size);
        bytesRead += size;
        rcu += units(size, READ_UNIT_BYTES) * readUnit;
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
            rcu += units(size, READ_UNIT_BYTES) * (ConsistentRead ? 1 : 0.5);
          }
        }
        break;
      }
      case 'Query': {
        if (input.IndexName) {
          const bytes = ((output.ScannedCount as number | undefined) ?? 0) * indexEntryBytes;
          bytesRead += bytes;
          rcu += units(bytes, READ_UNIT_BYTES) * readUnit;
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
        const there = output.Item as Key | undefined;
        const before = Math.max(known.get(keyOf(item)) ?? 0, there ? itemSize(there) : 0);
        const after = command === 'UpdateItem' ? afterUpdate(written.get(keyOf(item)), input) : undefined;
        const cost = units(Math.max(itemSize(after ?? item), before), WRITE_UNIT_BYTES);
        wcu += cost;
        if (isIdempotencyRecord(item)) idempotencyWcu += cost;
        if (!failed && command !== 'DeleteItem') {
          const now = command === 'PutItem' ? item : after;
          if (now) {
            written.set(keyOf(item), now);
            known.set(keyOf(item), itemSize(now));
          }
        }
        break;
      }
      case 'TransactWriteItems': {
        for (const action of input.TransactItems as Record<string, { Item?: Key; Key?: Key }>[]) {
          const [kind, body] = Object.entries(action)[0] as [string, { Item?: Key; Key?: Key }];
          const key = (body.Item ?? body.Key) as Key;
          const old = known.get(keyOf(key)) ?? 0;
          if (kind === 'ConditionCheck') {
            rcu += 2 * units(old, READ_UNIT_BYTES);
            continue;
          }
          const written =
            kind === 'Put'
              ? 2 * units(Math.max(itemSize(body.Item as Key), old), WRITE_UNIT_BYTES)
              : 2 * units(old, WRITE_UNIT_BYTES);
          wcu += written;
          if (isPosting(key)) postingsWcu += written;
        }
        break;
      }
      default:
        break;
    }
  }
  return { rcu, wcu, postingsWcu, idempotencyWcu, reported, bytesRead };
};
