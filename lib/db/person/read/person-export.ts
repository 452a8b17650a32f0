/**
 * The export (`GET /Person/export`, see the cost notes in keys.ts): every person, a page at a time,
 * each page as cheap whatever the table holds. A page walks the `byName` index partitions in order
 * (the 8 shards, then the legacy one), one Query of one partition for the page's ids (a second when
 * that partition ends before the page is full), then reads the full Person items with BatchGetItem,
 * 100 a call. Where the next page starts is the cursor: the partition and the index key of the last
 * person given, opaque to the client (base64url JSON) and checked strictly when it comes back.
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { type FieldError, ValidationFailed } from '../../../domain/errors';
import type { Person } from '../../../domain/person';
import type { PersonExport } from '../../../domain/ports/lists';
import { logger as defaultLogger } from '../../../logger';
import { batchGet, keyString } from '../../table/batch-get';
import type { Storage } from '../../table/client';
import { PERSON_LIST_INDEX, PERSON_LIST_PARTITIONS, personKey } from '../../table/keys';
import { storageCall } from '../../table/storage-errors';
import { fromPersonItem, isLivePersonItem } from '../person-items';
import { costRecorder } from './list-reads';

/** A person's place in the `byName` index: the table's key and the index's (a Query's start key). */
export interface IndexKey {
  pk: string;
  sk: string;
  listPk: string;
  listSk: string;
}

const INDEX_KEY_ATTRIBUTES = ['pk', 'sk', 'listPk', 'listSk'] as const satisfies readonly (keyof IndexKey)[];

/** Where a page starts: a partition of PERSON_LIST_PARTITIONS (by index), after `after` or at its start. */
export interface ExportPosition {
  partition: number;
  after?: IndexKey;
}

/** DynamoDB's key limits (2048 bytes of partition key, 1024 of sort key): a longer key names no item. */
const MAX_KEY_BYTES = { pk: 2048, sk: 1024, listPk: 2048, listSk: 1024 } as const;

/** The cursor of a position: base64url of `{"p":<partition>,"k":<index key>}` (no `k` at a partition's start). */
export const encodeExportCursor = ({ partition, after }: ExportPosition): string =>
  Buffer.from(JSON.stringify(after ? { p: partition, k: after } : { p: partition })).toString('base64url');

const refused = (message: string): never => {
  const errors: FieldError[] = [{ path: '/cursor', message }];
  throw new ValidationFailed(errors, 'The query is not valid');
};

const NOT_A_CURSOR = 'Not a cursor of this export: send the one a `next` link holds';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The position a cursor names, or 400 `validation-error` naming `/cursor`: only what
 * `encodeExportCursor` writes is taken (exactly its attributes, string keys within DynamoDB's limits, a
 * partition that exists, a key in that partition and of a Person item), so no cursor a client edits
 * can make the Query read elsewhere or fail in storage.
 */
export const decodeExportCursor = (cursor: string): ExportPosition => {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return refused(NOT_A_CURSOR);
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return refused(NOT_A_CURSOR);
  }
  if (!isRecord(decoded)) return refused(NOT_A_CURSOR);
  const { p: partition, k: key, ...rest } = decoded;
  if (Object.keys(rest).length > 0) return refused(NOT_A_CURSOR);
  if (
    !Number.isInteger(partition) ||
    (partition as number) < 0 ||
    (partition as number) >= PERSON_LIST_PARTITIONS.length
  )
    return refused(NOT_A_CURSOR);
  const index = partition as number;
  if (!('k' in decoded)) return { partition: index };
  if (!isRecord(key)) return refused(NOT_A_CURSOR);
  const names = Object.keys(key).sort();
  if (names.join() !== [...INDEX_KEY_ATTRIBUTES].sort().join()) return refused(NOT_A_CURSOR);
  for (const name of INDEX_KEY_ATTRIBUTES) {
    const value = key[name];
    if (typeof value !== 'string' || value === '' || Buffer.byteLength(value) > MAX_KEY_BYTES[name])
      return refused(NOT_A_CURSOR);
  }
  const after = key as unknown as IndexKey;
  const id = /^PERSON#([1-9]\d{0,15})$/.exec(after.pk)?.[1];
  if (
    after.listPk !== PERSON_LIST_PARTITIONS[index] ||
    id === undefined ||
    after.pk !== personKey(Number(id)).pk ||
    after.sk !== personKey(Number(id)).sk
  )
    return refused(NOT_A_CURSOR);
  return { partition: index, after };
};

/**
 * The Query of one partition from a position: `limit` + 1 entries, so a page that ends inside the
 * partition knows there is more (and gives the last one's key), and one that reads to the partition's
 * end moves on without an empty Query. Only the keys and the id: the index projects no Person.
 */
export const buildExportQuery = (
  tableName: string,
  { partition, after }: ExportPosition,
  limit: number,
): QueryCommandInput => ({
  TableName: tableName,
  IndexName: PERSON_LIST_INDEX,
  KeyConditionExpression: 'listPk = :partition',
  ExpressionAttributeValues: { ':partition': PERSON_LIST_PARTITIONS[partition] },
  ProjectionExpression: 'id, pk, sk, listPk, listSk',
  Limit: limit + 1,
  ReturnConsumedCapacity: 'TOTAL',
  ...(after ? { ExclusiveStartKey: { ...after } } : {}),
});

/** At most this many Queries a page: the page's partition, and the next when it ends first. */
export const MAX_EXPORT_QUERIES = 2;

/**
 * The stored Person JSON a page may carry, at most: Lambda answers at most 6 MB, and the
 * representation adds links, `@type`s and the example objects of empty sets. A page of larger persons
 * ends early (at least one person: an item is at most 400 KB), and its cursor goes on from there.
 */
export const MAX_EXPORT_PAGE_BYTES = 4 * 1024 * 1024;

interface Entry extends IndexKey {
  id: number;
}

/** Only the key attributes of an index entry (or of a LastEvaluatedKey), for the cursor. */
const keyOf = (entry: Record<string, unknown>): IndexKey =>
  Object.fromEntries(INDEX_KEY_ATTRIBUTES.map((name) => [name, entry[name]])) as unknown as IndexKey;

/** Where the partition read from `at` goes on after this Query's answer, or null after the last one. */
const positionAfter = (
  at: ExportPosition,
  wanted: number,
  {
    Items = [],
    LastEvaluatedKey,
  }: { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> },
): ExportPosition | null => {
  const last = Items.slice(0, wanted).at(-1);
  // More than the page takes: the partition goes on after the last one taken.
  if (Items.length > wanted && last) return { partition: at.partition, after: keyOf(last) };
  // Fewer, but not at the end: DynamoDB's 1 MB a Query stopped it (never with 500 small entries).
  if (LastEvaluatedKey) return { partition: at.partition, after: keyOf(LastEvaluatedKey) };
  return at.partition + 1 < PERSON_LIST_PARTITIONS.length ? { partition: at.partition + 1 } : null;
};

export const personExport = ({
  client,
  tableName,
  logger = defaultLogger,
  maxPageBytes = MAX_EXPORT_PAGE_BYTES,
}: Storage & { logger?: Pick<typeof defaultLogger, 'info'>; maxPageBytes?: number }): PersonExport => ({
  async page({ limit, cursor }) {
    const { cost, record } = costRecorder();
    /** The page's index entries, each with the partition it came from. */
    const entries: { entry: Entry; partition: number }[] = [];
    let position: ExportPosition | null =
      cursor === undefined ? { partition: 0 } : decodeExportCursor(cursor);
    for (let queries = 0; position && entries.length < limit && queries < MAX_EXPORT_QUERIES; queries++) {
      const at: ExportPosition = position;
      const wanted = limit - entries.length;
      const answer = await storageCall(() =>
        client.send(new QueryCommand(buildExportQuery(tableName, at, wanted))),
      );
      record(answer.Items?.length ?? 0, answer.ConsumedCapacity?.CapacityUnits ?? 0);
      for (const entry of (answer.Items ?? []).slice(0, wanted) as Entry[])
        entries.push({ entry, partition: at.partition });
      position = positionAfter(at, wanted, answer);
    }
    const items = await batchGet(
      { client, tableName },
      entries.map(({ entry }) => personKey(entry.id)),
      { consistent: false, onCall: record },
    );
    const persons: Person[] = [];
    let bytes = 0;
    for (const [n, { entry }] of entries.entries()) {
      const item = items.get(keyString(personKey(entry.id)));
      // Gone or merged into another since the index was read (it is eventually consistent): nothing
      // to export.
      if (!item || !isLivePersonItem(item)) continue;
      const person = fromPersonItem(item);
      bytes += Buffer.byteLength(JSON.stringify(person));
      if (bytes > maxPageBytes && persons.length > 0) {
        // The page is full: the next starts after the last person it holds.
        const { entry: last, partition } = entries[n - 1] as (typeof entries)[number];
        position = { partition, after: keyOf(last as unknown as Record<string, unknown>) };
        break;
      }
      persons.push(person);
    }
    logger.info('export cost', { limit, persons: persons.length, ...cost });
    return { persons, next: position ? encodeExportCursor(position) : null, cost };
  },
});
