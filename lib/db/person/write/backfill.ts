/**
 * The backfill of the search postings (issue #25), of the reference items (#32), of the survivors'
 * links to the persons merged into them (#56, merged-from.ts) and of the merged persons' merged
 * references (#58): makes every stored person's postings and reference item exactly what it implies,
 * gives each merged person's survivor its link and each merged person with a root key its merged
 * reference, for a table that held persons before they existed, or after a write left some postings
 * unfinished.
 * Idempotent: a person whose items are right costs one BatchGetItem of them (a merged person a
 * GetItem of its link and two BatchGetItems of its root key more, and with a key a GetItem per merge
 * of its chain and a BatchGetItem of its merged reference) and writes nothing. Resumable: the table
 * is scanned in segments, and each segment's position is kept in the table (`BACKFILL#postings`)
 * after every page, so a run that stops is continued by the next.
 *
 * A one-off, so it scans the whole table (every item once; persons are picked out by a filter). Each
 * person is written like a write's postings (postings.ts), with a check that the person is still at
 * the version read: a write that lands meanwhile makes the backfill read the person again.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { isMergedPerson, type MergedPerson } from '../../../domain/merge';
import { PERSON_TYPE, type Person } from '../../../domain/person';
import type { SearchTerms } from '../../../domain/search';
import { batchGet, keyString } from '../../table/batch-get';
import type { Storage } from '../../table/client';
import { backfillSegmentKey, personKey, postingsPendingKey } from '../../table/keys';
import { storageCall } from '../../table/storage-errors';
import { MAX_TRANSACTION_ACTIONS, transactionOf, versionCheck } from '../../write/actions';
import { jitteredBackoff, sendWrite } from '../../write/send';
import { keysOfEarlierMerges, MERGED_FROM_TYPE, mergedFromItem, mergedFromPut } from '../merged-from';
import { ERASED_PERSON_TYPE, fromStoredPersonItem, impliedPerson, MERGED_PERSON_TYPE } from '../person-items';
import { localReferenceItemOf, localReferencePut, mergedReferenceItem } from './local-references';
import { planPostings, postingChanges, postingItemsOf } from './postings';
import { sendChain } from './send-with-postings';

/** How far one segment of the scan has come. */
export interface SegmentProgress {
  segment: number;
  /** Persons checked, persons with items to write, postings, reference items and links put or deleted. */
  persons: number;
  repaired: number;
  written: number;
  done: boolean;
  /** Where the scan goes on (absent when done or not started). */
  lastKey?: Record<string, unknown>;
}

/** Times a person is read again because writes kept landing while its postings were written. */
const PERSON_ATTEMPTS = 10;

/** Persons of a page repaired at once. */
const PERSON_CONCURRENCY = 8;

/**
 * Makes one person's postings and reference item exactly what it implies; answers the items put or
 * deleted. Reads the postings and reference item it should have (and the `POSTINGS` item of an
 * unfinished write), writes only those missing or different and deletes the postings an unfinished
 * write may have left.
 */
export const repairPostings = async (storage: Storage, first: Person): Promise<number> => {
  const { client, tableName } = storage;
  let person = first;
  for (let attempt = 1; attempt <= PERSON_ATTEMPTS; attempt++) {
    const expected = postingItemsOf(person);
    const reference = localReferenceItemOf(person);
    const found = await batchGet(storage, [
      ...expected.map(({ pk, sk }) => ({ pk, sk })),
      postingsPendingKey(person.id),
      ...(reference ? [{ pk: reference.pk, sk: reference.sk }] : []),
    ]);
    const pending = (found.get(keyString(postingsPendingKey(person.id)))?.terms as SearchTerms) ?? null;
    const before = { person: null, pending };
    const changes = {
      puts: expected.filter((item) => !isDeepStrictEqual(found.get(keyString(item)), item)),
      deletes: postingChanges(before, person).deletes,
    };
    // The reference item, missing (a person stored before the items) or holding an older stub.
    const referencePut =
      reference && !isDeepStrictEqual(found.get(keyString(reference)), reference)
        ? [localReferencePut(tableName, reference)]
        : [];
    if (!pending && changes.puts.length === 0 && referencePut.length === 0) return 0;
    const guard = versionCheck(tableName, personKey(person.id), person.CoreMetaData.version);
    const plan = planPostings({
      tableName,
      personId: person.id,
      before,
      changes,
      room: MAX_TRANSACTION_ACTIONS - 1 - referencePut.length,
      token: randomUUID(),
      guard,
    });
    const landed = await sendWrite(client, transactionOf([guard, ...referencePut, ...plan.inWrite]));
    const finished =
      landed &&
      (await sendChain(client, plan.chain, { deadline: Date.now() + 30_000, backoff: jitteredBackoff })) ===
        'done';
    if (finished) return changes.puts.length + changes.deletes.length + referencePut.length;
    const { Item } = await storageCall(() =>
      client.send(new GetCommand({ TableName: tableName, Key: personKey(person.id), ConsistentRead: true })),
    );
    person = impliedPerson(Item ?? {});
  }
  throw new Error(`Person ${first.id} kept changing while its postings were written`);
};

/**
 * Gives the survivor of a merge made before the links (merged-from.ts) its link to the merged person
 * `first` (an item under a Person's key); answers the links put, 0 or 1. Reads the link first, so a
 * link already there costs one GetItem and writes nothing; the Put, the same item a merge puts with
 * `at` the merged person's last change (its merge), is checked against the merged person's version,
 * so it lands only while that person is still merged into that survivor.
 */
export const repairMergedFrom = async (storage: Storage, first: Record<string, unknown>): Promise<number> => {
  const { client, tableName } = storage;
  let item = first;
  for (let attempt = 1; attempt <= PERSON_ATTEMPTS; attempt++) {
    const merged = fromStoredPersonItem(item);
    if (!isMergedPerson(merged)) return 0;
    const link = mergedFromItem(merged.superceded_by, merged.id, merged.CoreMetaData.date_modified);
    const { Item: found } = await storageCall(() =>
      client.send(
        new GetCommand({ TableName: tableName, Key: { pk: link.pk, sk: link.sk }, ConsistentRead: true }),
      ),
    );
    if (found?.type === MERGED_FROM_TYPE && found.sourceId === merged.id) return 0;
    const guard = versionCheck(tableName, personKey(merged.id), merged.CoreMetaData.version);
    if (await sendWrite(client, transactionOf([guard, mergedFromPut(tableName, link)]))) return 1;
    const { Item } = await storageCall(() =>
      client.send(new GetCommand({ TableName: tableName, Key: personKey(merged.id), ConsistentRead: true })),
    );
    item = Item ?? {};
  }
  throw new Error(`Person ${String(first.id)} kept changing while its survivor's link was written`);
};

/** Whether a merged person's chain ends in an erased person (followed by GetItem, at most 16 merges). */
const endsErased = async ({ client, tableName }: Storage, merged: MergedPerson) => {
  let next = merged.superceded_by;
  for (let hop = 0; hop < 16; hop++) {
    const { Item } = await storageCall(() =>
      client.send(new GetCommand({ TableName: tableName, Key: personKey(next), ConsistentRead: true })),
    );
    if (Item?.type !== MERGED_PERSON_TYPE) return Item?.type === ERASED_PERSON_TYPE;
    next = Item.superceded_by as number;
  }
  return false;
};

/**
 * Gives a person merged before merges kept their keys (API.md 13.1) its merged reference
 * (local-references.ts), under the root key its merge read (`keysOfEarlierMerges`); answers the items
 * put, 0 or 1. A person with no key, one that has its reference already, or one whose chain ends in an
 * erased person (its erasure deletes them) costs its reads and writes nothing. The Put is checked
 * against the merged person's version, so it lands only while that person is still merged.
 */
export const repairMergedReference = async (
  storage: Storage,
  first: Record<string, unknown>,
): Promise<number> => {
  let item = first;
  for (let attempt = 1; attempt <= PERSON_ATTEMPTS; attempt++) {
    const merged = fromStoredPersonItem(item);
    if (!isMergedPerson(merged)) return 0;
    const value = (await keysOfEarlierMerges(storage, [merged.id])).get(merged.id);
    if (!value || (await endsErased(storage, merged))) return 0;
    const reference = mergedReferenceItem(value, merged.id);
    const found = await batchGet(storage, [{ pk: reference.pk, sk: reference.sk }]);
    if (isDeepStrictEqual(found.get(keyString(reference)), reference)) return 0;
    const guard = versionCheck(storage.tableName, personKey(merged.id), merged.CoreMetaData.version);
    const put = localReferencePut(storage.tableName, reference);
    if (await sendWrite(storage.client, transactionOf([guard, put]))) return 1;
    const { Item } = await storageCall(() =>
      storage.client.send(
        new GetCommand({ TableName: storage.tableName, Key: personKey(merged.id), ConsistentRead: true }),
      ),
    );
    item = Item ?? {};
  }
  throw new Error(`Person ${String(first.id)} kept changing while its merged reference was written`);
};

/** Runs `work` over `items`, `concurrency` at a time. */
const inParallel = async <T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
};

export interface BackfillOptions {
  /** Names the run: its positions are its own (`npm run backfill` uses `manual`, the stack its version). */
  run: string;
  segment: number;
  segments: number;
  /** Epoch ms: the segment stops after the page it is on at that time (and goes on at the next run). */
  deadline?: number;
  /** Starts the segment from the beginning, whatever an earlier run recorded. */
  restart?: boolean;
  /** Items a scan page evaluates (persons and every other item alike). */
  pageSize?: number;
  /** Told after every page. */
  onPage?: (progress: SegmentProgress) => void;
}

/** Scans one page of the segment from `progress`, repairs its persons' postings, and answers the new progress. */
const backfillPage = async (
  storage: Storage,
  { segment, segments, pageSize }: { segment: number; segments: number; pageSize: number },
  progress: SegmentProgress,
): Promise<SegmentProgress> => {
  const { client, tableName } = storage;
  const page = await storageCall(() =>
    client.send(
      new ScanCommand({
        TableName: tableName,
        Segment: segment,
        TotalSegments: segments,
        Limit: pageSize,
        ConsistentRead: true,
        // Merged and erased persons too: one whose merge or erasure left postings pending has them
        // deleted (it implies none).
        FilterExpression: '#type IN (:person, :merged, :erased)',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: {
          ':person': PERSON_TYPE,
          ':merged': MERGED_PERSON_TYPE,
          ':erased': ERASED_PERSON_TYPE,
        },
        ...(progress.lastKey ? { ExclusiveStartKey: progress.lastKey } : {}),
      }),
    ),
  );
  const persons = page.Items ?? [];
  let repaired = 0;
  let written = 0;
  await inParallel(persons, PERSON_CONCURRENCY, async (item) => {
    const count =
      (await repairPostings(storage, impliedPerson(item))) +
      (item.type === MERGED_PERSON_TYPE
        ? (await repairMergedFrom(storage, item)) + (await repairMergedReference(storage, item))
        : 0);
    if (count > 0) repaired++;
    written += count;
  });
  const { lastKey: _previous, ...counted } = progress;
  return {
    ...counted,
    persons: progress.persons + persons.length,
    repaired: progress.repaired + repaired,
    written: progress.written + written,
    done: !page.LastEvaluatedKey,
    ...(page.LastEvaluatedKey ? { lastKey: page.LastEvaluatedKey } : {}),
  };
};

/** Backfills one segment of the table's scan, from where an earlier run stopped. */
export const backfillSegment = async (
  storage: Storage,
  {
    run,
    segment,
    segments,
    deadline = Number.POSITIVE_INFINITY,
    restart = false,
    pageSize = 200,
    onPage,
  }: BackfillOptions,
): Promise<SegmentProgress> => {
  const { client, tableName } = storage;
  const key = backfillSegmentKey(run, segment, segments);
  const { Item } = restart
    ? { Item: undefined }
    : await storageCall(() =>
        client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true })),
      );
  let progress: SegmentProgress = (Item?.progress as SegmentProgress) ?? {
    segment,
    persons: 0,
    repaired: 0,
    written: 0,
    done: false,
  };
  while (!progress.done && Date.now() < deadline) {
    progress = await backfillPage(storage, { segment, segments, pageSize }, progress);
    await storageCall(() =>
      client.send(new PutCommand({ TableName: tableName, Item: { ...key, type: 'Backfill', progress } })),
    );
    onPage?.(progress);
  }
  return progress;
};

/** Backfills every segment at once; answers each segment's progress (all done unless the deadline came). */
export const backfillPostings = (storage: Storage, options: Omit<BackfillOptions, 'segment'>) =>
  Promise.all(
    Array.from({ length: options.segments }, (_, segment) =>
      backfillSegment(storage, { ...options, segment }),
    ),
  );

/** What the segments of a run have done between them. */
export const backfillTotals = (segments: readonly SegmentProgress[]) => ({
  persons: segments.reduce((total, segment) => total + segment.persons, 0),
  repaired: segments.reduce((total, segment) => total + segment.repaired, 0),
  written: segments.reduce((total, segment) => total + segment.written, 0),
  segmentsDone: segments.filter((segment) => segment.done).length,
});
