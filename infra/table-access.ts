/**
 * What each function may do to the table, as data: the DynamoDB actions, on the table or an index,
 * limited to the partitions (leading keys) it uses, and for transaction parts to transactions only.
 * Written from the calls in lib/db/ (which actions each repository sends, on which keys from
 * keys.ts), so a grant is read here rather than inferred from a `grantReadWriteData`. Nothing here
 * allows table management or a write outside the partitions named, and only the deploy-time backfill
 * of the search postings (a one-off that reads every person) may `Scan`.
 */

import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  backfillSegmentKey,
  CHANGE_ID_INDEX,
  CHANGE_LIST_INDEX,
  CHANGE_SHARDS,
  changeCounterKey,
  claimPartitionPrefixes,
  duplicateLinkKey,
  duplicatePairKey,
  duplicateQueueKey,
  feedHeadKey,
  feedMarkKey,
  historyKey,
  idCounterKey,
  idempotencyKey,
  type Key,
  LEGACY_PERSON_COUNTER,
  localReferenceKey,
  PERSON_COUNTER_KEYS,
  PERSON_LIST_INDEX,
  personKey,
  postingCountKey,
  postingCountsCompleteKey,
  postingKey,
  principalKey,
  SUBSCRIPTION_PARTITION,
  subscriptionLaneKey,
  vocabularyPartition,
} from '../lib/db/table/keys';
import type { ResourceType } from '../lib/domain/change-history';
import type { ClaimField } from '../lib/domain/person';
import type { VocabularyKind } from '../lib/domain/vocabulary';

export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'Scan'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem';

export interface TableAccessRule {
  actions: readonly TableAction[];
  /** Query this index instead of the table (index reads are not limited by partition). */
  index?: string;
  /** The partition key values (IAM `StringLike` patterns) the actions may touch. */
  partitions?: readonly string[];
  /** Only as a part of `TransactWriteItems` (`dynamodb:EnclosingOperation`), never on its own. */
  transactional?: boolean;
}

/** `PERSON#12` → `PERSON#*`: every partition whose key is built the same way. */
export const partitionsLike = ({ pk }: Key): string => `${pk.slice(0, pk.indexOf('#') + 1)}*`;

/**
 * `ABBREVIATION#NamePrefix#*` and `HASHED#ABBREVIATION#NamePrefix#*`: the claims of one field only,
 * literal and (where its values can be that long) hashed; `literalOnly` for writers of short values.
 */
export const claimsOf = (field: ClaimField, { literalOnly = false } = {}): string[] =>
  claimPartitionPrefixes(field)
    .slice(0, literalOnly ? 1 : undefined)
    .map((prefix) => `${prefix}*`);

/** A vocabulary's one partition, exactly (`VOCABULARY#NamePrefix`): never the other kind's. */
export const vocabularyOf = (kind: VocabularyKind): string => vocabularyPartition(kind);

/** The change counters of a resource type, each shard's by name (never the id or person counter). */
/** The person counters a create adds to (the legacy `COUNTER#persons` is only read). */
export const PERSON_COUNTER_SHARDS: readonly string[] = PERSON_COUNTER_KEYS.filter(
  (key) => key !== LEGACY_PERSON_COUNTER,
).map(({ pk }) => pk);

export const changeCountersOf = (endpoint: ResourceType): string[] =>
  Array.from({ length: CHANGE_SHARDS[endpoint] }, (_, shard) => changeCounterKey(endpoint, shard).pk);

const PERSONS = partitionsLike(personKey(0));
/** History partitions: a Person's is the person's own (`PERSON#*`), a vocabulary entry's its own. */
const HISTORY: Record<ResourceType, string> = {
  Person: partitionsLike(historyKey('Person', 0, 1)),
  NamePrefix: partitionsLike(historyKey('NamePrefix', 0, 1)),
  NameSuffix: partitionsLike(historyKey('NameSuffix', 0, 1)),
};
const PERSON_CLAIMS = [...claimsOf('email'), ...claimsOf('name')];
/** The search postings (`GRAM#*`); a person's `POSTINGS` item is in its own partition (`PERSON#*`). */
const POSTINGS = partitionsLike(postingKey('abc', 0));
/** The count of each gram's postings (`POSTINGCOUNT#*`), kept from the stream (posting-counts.ts). */
const POSTING_COUNTS = partitionsLike(postingCountKey('abc'));
/** The reference items of root `local_reference_id`s (`LOCALREF#*`), written with their person. */
const LOCAL_REFERENCES = partitionsLike(localReferenceKey('ref', 0));
/** A principal's binding item (`PRINCIPAL#*`, API.md 9.1); a person's side is in its own partition. */
const BINDINGS = partitionsLike(principalKey('principal'));

const BACKFILL_POSITIONS = partitionsLike(backfillSegmentKey('1', 0, 1));
/** The change feed's shards (`FEED#*`: each one's head and events) and its marks (`FEEDEVENT#*`). */
const FEED = partitionsLike(feedHeadKey(0));
const FEED_MARKS = partitionsLike(feedMarkKey(1));
const VOCABULARIES = [vocabularyOf('NamePrefix'), vocabularyOf('NameSuffix')];
/** The duplicate pairs (`DUPPAIR#*`), their queue (`DUPQUEUE#*`) and each person's links (`DUPLICATES#*`). */
const DUPLICATE_PAIRS = partitionsLike(duplicatePairKey('1-2'));
const DUPLICATE_QUEUE = partitionsLike(duplicateQueueKey('open', 'certain', 100, [1, 2]));
const DUPLICATE_LINKS = partitionsLike(duplicateLinkKey(1, 2));
/** Webhook subscriptions: their one partition, exactly. */
const SUBSCRIPTIONS = SUBSCRIPTION_PARTITION;
/** Each subscription's own partition (`SUBSCRIPTION#*`): its delivery lane and attempts. */
const SUBSCRIPTION_LANES = partitionsLike(subscriptionLaneKey('id'));

/**
 * A write's `Idempotency-Key` record (lib/db/idempotency/idempotency-store.ts, Powertools' DynamoDB
 * layer): put in progress under a condition (a failed put returns the record it met, so Powertools
 * never needs its GetItem), completed with the answer, deleted when the write fails with a 5xx. A
 * replay of an answer about a person reads the person (BatchGetItem on `PERSON#*`, granted with each
 * person write's own reads) to answer 410 when it is erased since.
 */
const IDEMPOTENCY_RECORDS: TableAccessRule = {
  actions: ['PutItem', 'UpdateItem', 'DeleteItem'],
  partitions: [partitionsLike(idempotencyKey('hash'))],
};

/** Reserving a block of ids (ids.ts): one `UpdateItem ADD` on the id counter, outside transactions. */
const RESERVE_IDS: TableAccessRule = { actions: ['UpdateItem'], partitions: [idCounterKey.pk] };

/** A merge (write/person-merge.ts): its reads, its transaction's parts, and its chain of postings. */
const MERGE: TableAccessRule[] = [
  RESERVE_IDS,
  IDEMPOTENCY_RECORDS,
  { actions: ['BatchGetItem', 'GetItem'], partitions: [PERSONS] },
  // No name claim is taken, and an email claim only passes from one person to the other; the source's
  // reference item is put again as its merged reference (API.md 13.1), never deleted.
  {
    actions: ['PutItem'],
    partitions: [PERSONS, ...claimsOf('email', { literalOnly: true }), LOCAL_REFERENCES, POSTINGS],
    transactional: true,
  },
  {
    actions: ['DeleteItem'],
    partitions: [PERSONS, ...claimsOf('name'), POSTINGS],
    transactional: true,
  },
  {
    actions: ['UpdateItem'],
    partitions: [...PERSON_COUNTER_SHARDS, ...changeCountersOf('Person')],
    transactional: true,
  },
  // A chain of more than one transaction checks its POSTINGS item's token.
  { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
];

/**
 * An unmerge (write/person-unmerge.ts, API.md 13.1): both persons, their POSTINGS items and bindings
 * and the requester read together, the vocabulary entries their Names point at (for the fullnames),
 * the survivor's link to the source with the merge's record (GetItem; a merge made before records
 * were kept has its record rebuilt from its two MERGE entries, found by the change id index); both
 * persons put over their versions, both UNMERGE entries, the link deleted, the source's email claims
 * re-pointed back and the name claims each now needs taken (literal or hashed), a name claim the
 * survivor no longer holds released, the source's reference item put and its postings written, the
 * survivor's deleted, a person counter and the change counters stepped, in one transaction; postings
 * that do not fit follow as on update.
 */
const UNMERGE: TableAccessRule[] = [
  RESERVE_IDS,
  IDEMPOTENCY_RECORDS,
  { actions: ['BatchGetItem'], partitions: [PERSONS, ...VOCABULARIES] },
  { actions: ['GetItem'], partitions: [PERSONS] },
  { actions: ['Query'], index: CHANGE_ID_INDEX },
  {
    actions: ['PutItem'],
    partitions: [
      PERSONS,
      ...claimsOf('email', { literalOnly: true }),
      ...claimsOf('name'),
      LOCAL_REFERENCES,
      POSTINGS,
    ],
    transactional: true,
  },
  { actions: ['DeleteItem'], partitions: [PERSONS, ...claimsOf('name'), POSTINGS], transactional: true },
  {
    actions: ['UpdateItem'],
    partitions: [...PERSON_COUNTER_SHARDS, ...changeCountersOf('Person')],
    transactional: true,
  },
  { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
];

/** An entry's create (vocabulary-repository.ts): the entry, its history, counter and claim, the requester. */
const createEntry = (kind: VocabularyKind): TableAccessRule[] => [
  RESERVE_IDS,
  IDEMPOTENCY_RECORDS,
  {
    actions: ['PutItem'],
    partitions: [vocabularyOf(kind), HISTORY[kind], ...claimsOf(kind)],
    transactional: true,
  },
  { actions: ['UpdateItem'], partitions: changeCountersOf(kind), transactional: true },
  { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
];

/** An entry's update: the entry read first, then as create, with the old abbreviation's claim released. */
const updateEntry = (kind: VocabularyKind): TableAccessRule[] => [
  ...createEntry(kind),
  { actions: ['GetItem'], partitions: [vocabularyOf(kind)] },
  { actions: ['DeleteItem'], partitions: claimsOf(kind), transactional: true },
];

export const TABLE_ACCESS: Readonly<Record<string, readonly TableAccessRule[]>> = {
  'get-person': [{ actions: ['GetItem'], partitions: [PERSONS] }],
  // The caller's binding (API.md 9.1): one GetItem of its PRINCIPAL# item.
  'get-own-person': [{ actions: ['GetItem'], partitions: [BINDINGS] }],
  // Unfiltered, the list reads the index and the person counters (the shards and the legacy one);
  // filtered, the posting counts (a prefix's by Query), the search postings, without complete counts
  // the id counter (how far a probe's sample got) and, to check a fragment under 3 code points on
  // candidates, their persons (posting-search.ts); by local_reference_id, that value's reference
  // items (local-reference-search.ts). Nothing else.
  'list-persons': [
    { actions: ['Query'], index: PERSON_LIST_INDEX },
    { actions: ['Query'], partitions: [POSTINGS, POSTING_COUNTS, LOCAL_REFERENCES] },
    { actions: ['GetItem'], partitions: [idCounterKey.pk] },
    {
      actions: ['BatchGetItem'],
      partitions: [...PERSON_COUNTER_KEYS.map(({ pk }) => pk), POSTINGS, POSTING_COUNTS, PERSONS],
    },
  ],
  // Reconciliation (reconcile-candidates.ts): the email claims sent, the postings of the name and its
  // words, sized by their posting counts (posting-search.ts; no fragment under 3 code points, so no
  // prefix's counts) or without complete counts by samples with the id counter, then the candidates'
  // persons; data extension reads persons only.
  'reconcile-persons': [
    { actions: ['GetItem'], partitions: [...claimsOf('email', { literalOnly: true }), idCounterKey.pk] },
    { actions: ['Query'], partitions: [POSTINGS] },
    { actions: ['BatchGetItem'], partitions: [PERSONS, POSTING_COUNTS] },
  ],
  // Suggest reads the postings of the prefix typed (sized as a list's); properties and types nothing.
  'suggest-persons': [
    { actions: ['GetItem'], partitions: [idCounterKey.pk] },
    { actions: ['Query'], partitions: [POSTINGS] },
    { actions: ['BatchGetItem'], partitions: [POSTING_COUNTS] },
  ],
  'preview-person': [{ actions: ['BatchGetItem'], partitions: [PERSONS] }],
  // The export (person-export.ts): a page of ids from the byName index, then their Person items.
  'export-persons': [
    { actions: ['Query'], index: PERSON_LIST_INDEX },
    { actions: ['BatchGetItem'], partitions: [PERSONS] },
  ],
  // The stream's posting inserts and removes summed per gram and added to its count (posting-counts.ts).
  'count-postings': [{ actions: ['UpdateItem'], partitions: [POSTING_COUNTS] }],
  // The feed's appender (feed-log.ts): a shard's head and the events' marks read in one BatchGetItem,
  // then the head, the events and their marks put in one transaction.
  'append-events': [
    { actions: ['BatchGetItem'], partitions: [FEED, FEED_MARKS] },
    { actions: ['PutItem'], partitions: [FEED, FEED_MARKS], transactional: true },
  ],
  // The person's version (GetItem), then its history entries in its own partition (audit-log.ts).
  'list-person-audit': [{ actions: ['GetItem', 'Query'], partitions: [PERSONS] }],
  // The older /Prefix and /Suffix views read the same vocabulary partitions as /NamePrefix, /NameSuffix.
  'list-prefixes': [{ actions: ['Query'], partitions: [vocabularyOf('NamePrefix')] }],
  'get-prefix': [{ actions: ['GetItem'], partitions: [vocabularyOf('NamePrefix')] }],
  'list-suffixes': [{ actions: ['Query'], partitions: [vocabularyOf('NameSuffix')] }],
  'get-suffix': [{ actions: ['GetItem'], partitions: [vocabularyOf('NameSuffix')] }],
  'list-name-prefixes': [{ actions: ['Query'], partitions: [vocabularyOf('NamePrefix')] }],
  'get-name-prefix': [{ actions: ['GetItem'], partitions: [vocabularyOf('NamePrefix')] }],
  'create-name-prefix': createEntry('NamePrefix'),
  'update-name-prefix': updateEntry('NamePrefix'),
  'list-name-suffixes': [{ actions: ['Query'], partitions: [vocabularyOf('NameSuffix')] }],
  'get-name-suffix': [{ actions: ['GetItem'], partitions: [vocabularyOf('NameSuffix')] }],
  'create-name-suffix': createEntry('NameSuffix'),
  'update-name-suffix': updateEntry('NameSuffix'),
  // Person, history entry, claims, reference item and postings put, a person counter and a change
  // counter bumped, the requester and the vocabulary entries the names point at checked: one
  // transaction. The entries' abbreviations are read before it, for the fullname. Postings that do
  // not fit follow in transactions that check and at last delete the person's POSTINGS item
  // (postings.ts). A keyed create's replay reads the person it answered, to answer 410 if it is erased
  // since (idempotency-store.ts `erasedAbout`).
  'create-person': [
    RESERVE_IDS,
    IDEMPOTENCY_RECORDS,
    { actions: ['BatchGetItem'], partitions: [PERSONS, ...VOCABULARIES] },
    {
      actions: ['PutItem'],
      partitions: [PERSONS, ...PERSON_CLAIMS, LOCAL_REFERENCES, POSTINGS],
      transactional: true,
    },
    { actions: ['DeleteItem'], partitions: [PERSONS], transactional: true },
    {
      actions: ['UpdateItem'],
      partitions: [...PERSON_COUNTER_SHARDS, ...changeCountersOf('Person')],
      transactional: true,
    },
    { actions: ['ConditionCheckItem'], partitions: [PERSONS, ...VOCABULARIES], transactional: true },
  ],
  // Person, its POSTINGS item and requester read together (a merged person read on to the live end
  // of its chain, for the 409), then the vocabulary entries; person,
  // history entry, new claims, reference item and postings put, old claims, reference item and
  // postings released, a change counter bumped, the vocabulary entries checked; postings that do not
  // fit follow as on create.
  'update-person': [
    RESERVE_IDS,
    IDEMPOTENCY_RECORDS,
    { actions: ['BatchGetItem'], partitions: [PERSONS, ...VOCABULARIES] },
    { actions: ['GetItem'], partitions: [PERSONS] },
    {
      actions: ['PutItem'],
      partitions: [PERSONS, ...PERSON_CLAIMS, LOCAL_REFERENCES, POSTINGS],
      transactional: true,
    },
    {
      actions: ['DeleteItem'],
      partitions: [PERSONS, ...PERSON_CLAIMS, LOCAL_REFERENCES, POSTINGS],
      transactional: true,
    },
    { actions: ['UpdateItem'], partitions: changeCountersOf('Person'), transactional: true },
    { actions: ['ConditionCheckItem'], partitions: [PERSONS, ...VOCABULARIES], transactional: true },
  ],
  // A merge (person-merge.ts): both persons, their POSTINGS items and the requester read together (a
  // merged one read on to the live end of its chain); the survivor put and the source's merged item
  // put over it, both history entries, the moved email claims put (re-pointed), the name claims no
  // one holds any more, the source's reference item put again as its merged reference (API.md 13.1),
  // its postings deleted, the survivor's link to the source put in its own partition
  // (merged-from.ts), a person counter and the change counters stepped, in one transaction; postings
  // that do not fit follow as on update.
  // A delegate's binding change (API.md 9.1), with or without requester binding on: the person and
  // both sides of its binding in one BatchGetItem, then both sides put (the person checked live) or
  // deleted. A person's side is in the person's own partition.
  'bind-principal': [
    { actions: ['BatchGetItem'], partitions: [PERSONS, BINDINGS] },
    { actions: ['PutItem'], partitions: [PERSONS, BINDINGS], transactional: true },
    { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
  ],
  'unbind-principal': [
    { actions: ['BatchGetItem'], partitions: [PERSONS] },
    { actions: ['DeleteItem'], partitions: [PERSONS, BINDINGS], transactional: true },
  ],
  'merge-person': MERGE,
  'unmerge-person': UNMERGE,
  // The duplicates queue (lib/db/duplicates/pair-store.ts): its partitions read in score order, or a
  // person's links and then their pairs.
  'list-duplicates': [
    { actions: ['Query'], partitions: [DUPLICATE_QUEUE, DUPLICATE_LINKS] },
    { actions: ['BatchGetItem'], partitions: [DUPLICATE_PAIRS] },
  ],
  'get-duplicate': [{ actions: ['BatchGetItem'], partitions: [DUPLICATE_PAIRS] }],
  // A decision: the pair read, then written on its revision with its queue entry moved; a merge
  // decided is first the merge itself, as merge-person sends it.
  'decide-duplicate': [
    ...MERGE,
    { actions: ['BatchGetItem'], partitions: [DUPLICATE_PAIRS] },
    { actions: ['PutItem'], partitions: [DUPLICATE_PAIRS, DUPLICATE_QUEUE], transactional: true },
    { actions: ['DeleteItem'], partitions: [DUPLICATE_QUEUE], transactional: true },
  ],
  // Webhook subscriptions (subscription-store.ts): their partition read whole or one item; a write put
  // (or deleted) over the version read, the requester checked live in the same transaction.
  'list-subscriptions': [{ actions: ['Query'], partitions: [SUBSCRIPTIONS] }],
  'get-subscription': [{ actions: ['GetItem'], partitions: [SUBSCRIPTIONS] }],
  // A create reads where the feed ends (its shards' heads) and puts the subscription's lane there, in
  // the subscription's own partition (lane-store.ts); a delete deletes the lane with it.
  'create-subscription': [
    IDEMPOTENCY_RECORDS,
    { actions: ['BatchGetItem'], partitions: [FEED] },
    { actions: ['PutItem'], partitions: [SUBSCRIPTIONS, SUBSCRIPTION_LANES], transactional: true },
    { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
  ],
  ...Object.fromEntries(
    ['update-subscription', 'rotate-subscription-secret'].map((handler) => [
      handler,
      [
        IDEMPOTENCY_RECORDS,
        { actions: ['GetItem'], partitions: [SUBSCRIPTIONS] },
        { actions: ['PutItem'], partitions: [SUBSCRIPTIONS], transactional: true },
        { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
      ],
    ]),
  ),
  // A subscription's attempts, newest first, in its own partition (after the subscription read: 404).
  'list-deliveries': [
    { actions: ['GetItem'], partitions: [SUBSCRIPTIONS] },
    { actions: ['Query'], partitions: [SUBSCRIPTION_LANES] },
  ],
  // A replay reads the lane (none: 404) and sets it back, with the requester checked live in the same
  // transaction.
  'replay-subscription': [
    IDEMPOTENCY_RECORDS,
    { actions: ['GetItem'], partitions: [SUBSCRIPTION_LANES] },
    { actions: ['UpdateItem'], partitions: [SUBSCRIPTION_LANES], transactional: true },
    { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
  ],
  // Webhook delivery: the waker reads the subscriptions' partition (a container's list, cached 10 s);
  // a lane run reads the subscription, takes, moves and releases its lane's lease (conditional
  // updates), reads the feed from the lane's position (its shards' heads, then their events), records each attempt, and pauses the
  // subscription over the version it read.
  'wake-webhooks': [{ actions: ['Query'], partitions: [SUBSCRIPTIONS] }],
  'deliver-webhooks': [
    { actions: ['GetItem'], partitions: [SUBSCRIPTIONS] },
    { actions: ['PutItem'], partitions: [SUBSCRIPTIONS], transactional: true },
    { actions: ['UpdateItem', 'PutItem'], partitions: [SUBSCRIPTION_LANES] },
    { actions: ['BatchGetItem', 'Query'], partitions: [FEED] },
  ],
  'delete-subscription': [
    { actions: ['GetItem'], partitions: [SUBSCRIPTIONS] },
    { actions: ['DeleteItem'], partitions: [SUBSCRIPTIONS, SUBSCRIPTION_LANES], transactional: true },
    { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
  ],
  // An erasure (API.md 15): the person, its POSTINGS item, its principal side and the requester read
  // together (a merged person read on to the live end of its chain, for the 409); the tombstone put
  // over the Person item and the ERASE history entry put; its email and name claims (released, never
  // taken), reference item, postings, POSTINGS item and principal side deleted, with the binding that
  // side names (bound with or without requester binding on, as bind-principal binds); a person counter
  // stepped down (ADD -1) and a change counter bumped; the requester checked: one transaction.
  // Postings that do not fit follow as on update, their deletes only. Then the history chain
  // (history-erasure.ts): the persons merged into it found by a Query of each one's links
  // (merged-from.ts), the entries of each queried (keys only) and each one's object rewritten, each
  // one's merged reference deleted (local-references.ts; a link of an earlier merge keeps no record:
  // the key read from the entry before the merge, BatchGetItem) and then its link's merge record removed
  // (its personal values, the reference's key among them), the tombstone's mark removed last, in
  // transactions. No Idempotency-Key record: a second erasure
  // answers the tombstone by itself, and an erased person's stored answers are never replayed.
  'erase-person': [
    RESERVE_IDS,
    // The stored answers of keyed writes about the person (found by their links) made its tombstone.
    { actions: ['UpdateItem'], partitions: [partitionsLike(idempotencyKey('hash'))] },
    { actions: ['BatchGetItem', 'GetItem', 'Query'], partitions: [PERSONS] },
    { actions: ['PutItem'], partitions: [PERSONS], transactional: true },
    {
      actions: ['DeleteItem'],
      partitions: [PERSONS, ...PERSON_CLAIMS, LOCAL_REFERENCES, POSTINGS, BINDINGS],
      transactional: true,
    },
    {
      actions: ['UpdateItem'],
      partitions: [PERSONS, ...PERSON_COUNTER_SHARDS, ...changeCountersOf('Person')],
      transactional: true,
    },
    { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
  ],
  // The erasure's chain finished (lib/erasure/finish-erasures.ts): the tombstone read; the links of
  // the persons merged into it, their entries and the stored answers' links queried; each stored answer
  // made the tombstone; the entries rewritten, the links deleted, the merged persons' merged references
  // deleted (local-references.ts) and the mark removed in transactions. Nothing else of a person can
  // be written or deleted.
  'finish-erasure': [
    { actions: ['UpdateItem'], partitions: [partitionsLike(idempotencyKey('hash'))] },
    { actions: ['BatchGetItem', 'Query'], partitions: [PERSONS] },
    { actions: ['UpdateItem'], partitions: [PERSONS], transactional: true },
    { actions: ['DeleteItem'], partitions: [PERSONS, LOCAL_REFERENCES], transactional: true },
  ],
  // The duplicates detector (lib/duplicates/detect-duplicates.ts): the person read, its candidates as
  // reconciliation reads them (postings and their counts, the persons), its pairs through
  // its links; a pair's item, queue entry and links written in one transaction on its revision (the
  // entry moved: deleted and put), with a check that both persons are live; its event's id reserved.
  'detect-duplicates': [
    RESERVE_IDS,
    { actions: ['GetItem'], partitions: [PERSONS, idCounterKey.pk] },
    { actions: ['Query'], partitions: [POSTINGS, DUPLICATE_LINKS] },
    { actions: ['BatchGetItem'], partitions: [PERSONS, POSTING_COUNTS, DUPLICATE_PAIRS] },
    {
      actions: ['PutItem'],
      partitions: [DUPLICATE_PAIRS, DUPLICATE_QUEUE, DUPLICATE_LINKS],
      transactional: true,
    },
    { actions: ['DeleteItem'], partitions: [DUPLICATE_QUEUE], transactional: true },
    { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
  ],
  // The person and its enrichment mark read; person, history entry and mark put, a change counter
  // bumped, in one transaction.
  'enrich-person': [
    RESERVE_IDS,
    { actions: ['Query'], partitions: [PERSONS] },
    { actions: ['PutItem'], partitions: [PERSONS], transactional: true },
    { actions: ['UpdateItem'], partitions: changeCountersOf('Person'), transactional: true },
  ],
  // change-history.ts `page`: one object's version and history window, or the index shards, their
  // counters and the window's entries; with `object_id` alone, the three objects that id may name.
  'list-change-history': [
    { actions: ['GetItem'], partitions: [PERSONS, ...VOCABULARIES] },
    { actions: ['Query'], partitions: Object.values(HISTORY) },
    { actions: ['Query'], index: CHANGE_LIST_INDEX },
    {
      actions: ['BatchGetItem'],
      partitions: [
        ...new Set([
          ...Object.values(HISTORY),
          PERSONS,
          ...VOCABULARIES,
          ...changeCountersOf('Person'),
          ...changeCountersOf('NamePrefix'),
          ...changeCountersOf('NameSuffix'),
        ]),
      ],
    },
  ],
  // feed-log.ts `page`: the shards' heads in one BatchGetItem, then a Query of each shard's share.
  'list-events': [{ actions: ['BatchGetItem', 'Query'], partitions: [FEED] }],
  // change-history.ts `get`: the entry's key by id, then the entry and the one before it.
  'get-change-history': [
    { actions: ['Query'], index: CHANGE_ID_INDEX },
    { actions: ['BatchGetItem'], partitions: Object.values(HISTORY) },
  ],
  // The deploy-time backfill of the postings (lib/db/person/write/backfill.ts): the table scanned for persons, each
  // person's postings, reference item and POSTINGS item read, missing postings and reference items
  // put and stale postings deleted in transactions checking the person's version, a person read again
  // when it changed; a merged person's survivor's link read (GetItem) and, when missing, put in a
  // transaction checking the merged person's version; a merged person's root key read from its entry
  // before its merge (BatchGetItem), its chain followed (GetItem) and its merged reference read and,
  // when missing, put in a transaction checking its version; each segment's position read and kept.
  'backfill-postings': [
    { actions: ['Scan'] },
    { actions: ['GetItem', 'PutItem'], partitions: [BACKFILL_POSITIONS] },
    { actions: ['BatchGetItem'], partitions: [PERSONS, POSTINGS, LOCAL_REFERENCES] },
    { actions: ['GetItem'], partitions: [PERSONS] },
    { actions: ['PutItem', 'DeleteItem'], partitions: [PERSONS, POSTINGS], transactional: true },
    { actions: ['PutItem'], partitions: [LOCAL_REFERENCES], transactional: true },
    { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
  ],
  // The deploy-time seed (`seedVocabulary`): the id counter raised and reserved from, each vocabulary
  // read, each missing entry written as a create is (without a requester to check); then, on a table
  // with no person (its person counters read), the posting counts marked complete (posting-counts.ts).
  'seed-reference-data': [
    RESERVE_IDS,
    { actions: ['BatchGetItem'], partitions: PERSON_COUNTER_KEYS.map(({ pk }) => pk) },
    { actions: ['PutItem'], partitions: [postingCountsCompleteKey.pk] },
    { actions: ['Query'], partitions: VOCABULARIES },
    {
      actions: ['PutItem'],
      partitions: [
        ...VOCABULARIES,
        HISTORY.NamePrefix,
        HISTORY.NameSuffix,
        // The seeded abbreviations are short: never hashed.
        ...claimsOf('NamePrefix', { literalOnly: true }),
        ...claimsOf('NameSuffix', { literalOnly: true }),
      ],
      transactional: true,
    },
    {
      actions: ['UpdateItem'],
      partitions: [...changeCountersOf('NamePrefix'), ...changeCountersOf('NameSuffix')],
      transactional: true,
    },
  ],
};

/**
 * What requester binding (the `requesterBinding` option) adds to a write function's grants: the
 * caller's binding read with the write's own reads (a PATCH) and checked in its transaction; a
 * self-registration puts it; a merge, a delegate's, moves a bound source's to its survivor. Without the option none
 * of these partitions is touched, and none is granted.
 */
export const BINDING_ACCESS: Readonly<Record<string, readonly TableAccessRule[]>> = {
  'create-person': [
    { actions: ['PutItem', 'ConditionCheckItem'], partitions: [BINDINGS], transactional: true },
  ],
  // One BatchGetItem reads the person and the binding: IAM wants every key of it in one statement.
  'update-person': [
    { actions: ['BatchGetItem'], partitions: [PERSONS, BINDINGS] },
    { actions: ['ConditionCheckItem'], partitions: [BINDINGS], transactional: true },
  ],
  // A merge is a delegate's (API.md 9.1): no caller's binding to read or check, only the source's to move.
  'merge-person': [{ actions: ['PutItem'], partitions: [BINDINGS], transactional: true }],
  // An unmerge too: the binding that passed with the merge moves back to the source.
  'unmerge-person': [{ actions: ['PutItem'], partitions: [BINDINGS], transactional: true }],
  'decide-duplicate': [{ actions: ['PutItem'], partitions: [BINDINGS], transactional: true }],
  // An erasure by the person itself or a delegate (API.md 15): the caller's binding read with the
  // person, as a PATCH reads it. Its check in the transaction is the erased person's own binding's
  // delete, on condition that it names the person (granted in TABLE_ACCESS: a binding can exist with
  // the option off); one transaction may not touch the item twice.
  'erase-person': [{ actions: ['BatchGetItem'], partitions: [PERSONS, BINDINGS] }],
  ...Object.fromEntries(
    [
      'create-name-prefix',
      'update-name-prefix',
      'create-name-suffix',
      'update-name-suffix',
      'create-subscription',
      'update-subscription',
      'delete-subscription',
      'rotate-subscription-secret',
      'replay-subscription',
    ].map((handler) => [
      handler,
      [{ actions: ['ConditionCheckItem'], partitions: [BINDINGS], transactional: true }],
    ]),
  ),
};

/** A function's rules: its own, and with requester binding on what binding adds. */
export const tableAccessOf = (handler: string, { requesterBinding = false } = {}): TableAccessRule[] => [
  ...(TABLE_ACCESS[handler] ?? []),
  ...(requesterBinding ? (BINDING_ACCESS[handler] ?? []) : []),
];

/** The IAM statements of a list of rules on one table. */
export const tableAccessStatements = (table: ITable, rules: readonly TableAccessRule[]): PolicyStatement[] =>
  rules.map(
    ({ actions, index, partitions, transactional }) =>
      new PolicyStatement({
        actions: actions.map((action) => `dynamodb:${action}`),
        resources: [index ? `${table.tableArn}/index/${index}` : table.tableArn],
        conditions: {
          ...(partitions ? { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] } } : {}),
          ...(transactional
            ? { 'ForAnyValue:StringEquals': { 'dynamodb:EnclosingOperation': ['TransactWriteItems'] } }
            : {}),
        },
      }),
  );
