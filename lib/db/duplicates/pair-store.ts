/**
 * The store of duplicate pairs (API.md 12.1; keys.ts has the design). A pair is three kinds of item,
 * written together in one transaction so that they never disagree:
 * - the pair (`DUPPAIR#<id>` / `PAIR`): what `GET /duplicates/{id}` answers, with its revision and the
 *   id of its `duplicate.detected` event, which the feed's appender makes of its INSERT;
 * - its entry in the queue (`DUPQUEUE#<status>#<grade>#<shard>` / inverted score and ids), a copy of
 *   the pair where `GET /duplicates` reads it, in score order; a change of status, grade or score
 *   moves it (a Delete and a Put);
 * - a link from each of its persons (`DUPLICATES#<person>` / `PAIR#<other>`), put once: how a check
 *   finds the pairs a person is already in, and `person=` the pairs of one person.
 * No partition takes every pair's write: a pair's own items are its own, the queue is spread over
 * its status, grade and 4 shards, and a person's links are that person's.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  DUPLICATE_PAIR_TYPE,
  type DuplicatePair,
  type PairChange,
  type PairQuery,
  queuePage,
  type StoredPair,
} from '../../domain/duplicates';
import { PERSON_TYPE } from '../../domain/person';
import type { DuplicatePairs } from '../../domain/ports/duplicates';
import { batchGet, type Item, keyString } from '../table/batch-get';
import type { Storage } from '../table/client';
import {
  DUPLICATE_LINK_SORT_PREFIX,
  DUPLICATE_QUEUE_SHARDS,
  duplicateLinkKey,
  duplicatePairKey,
  duplicateQueueKey,
  duplicateQueuePartition,
  duplicateQueueSortKey,
  personKey,
} from '../table/keys';
import { sortKeyRange } from '../table/sort-key-range';
import { storageCall } from '../table/storage-errors';
import { type Action, transactionOf } from '../write/actions';
import { type IdAllocator, idAllocator } from '../write/ids';
import { sendWrite } from '../write/send';

export const DUPLICATE_QUEUE_ENTRY_TYPE = 'DuplicateQueueEntry';
export const DUPLICATE_LINK_TYPE = 'DuplicateLink';

/** The pair's item: the pair as on the wire (without `@type`), its event id and revision. */
const pairItem = ({ '@type': _type, ...pair }: DuplicatePair, eventId: number, revision: number) => ({
  ...duplicatePairKey(pair.id),
  type: DUPLICATE_PAIR_TYPE,
  ...pair,
  eventId,
  revision,
});

/** The pair as stored, from its item. */
export const storedPairOf = ({
  pk: _pk,
  sk: _sk,
  type: _type,
  eventId,
  revision,
  ...pair
}: Item): StoredPair => ({
  pair: { '@type': 'DuplicatePair', ...pair } as DuplicatePair,
  eventId: eventId as number,
  revision: revision as number,
});

const queueKeyOf = ({ status, grade, score, persons }: DuplicatePair) =>
  duplicateQueueKey(status, grade, score, persons);

const queuePut = (tableName: string, pair: DuplicatePair): Action => [
  { Put: { TableName: tableName, Item: { ...queueKeyOf(pair), type: DUPLICATE_QUEUE_ENTRY_TYPE, pair } } },
  { kind: 'object' },
];

const linkPuts = (tableName: string, pair: DuplicatePair): Action[] => {
  const [lower, higher] = pair.persons;
  return [
    [lower, higher],
    [higher, lower],
  ].map(([person, other]) => [
    {
      Put: {
        TableName: tableName,
        Item: {
          ...duplicateLinkKey(person as number, other as number),
          type: DUPLICATE_LINK_TYPE,
          pairId: pair.id,
        },
      },
    },
    { kind: 'object' },
  ]);
};

/**
 * A pair goes into the open queue only while both its persons are live: a check that read one of them
 * before it was merged or erased (whose own check resolved the pairs it then held) writes nothing, and
 * reads again.
 */
const liveChecks = (tableName: string, pair: DuplicatePair): Action[] =>
  pair.status !== 'open'
    ? []
    : pair.persons.map((id) => [
        {
          ConditionCheck: {
            TableName: tableName,
            Key: personKey(id),
            ConditionExpression: '#type = :person',
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: { ':person': PERSON_TYPE },
          },
        },
        { kind: 'object' },
      ]);

/** A pair found for the first time: the pair (only if no other check wrote it first), its entry, its links. */
const createActions = (tableName: string, pair: DuplicatePair, eventId: number): Action[] => [
  [
    {
      Put: {
        TableName: tableName,
        Item: pairItem(pair, eventId, 1),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    { kind: 'object' },
  ],
  queuePut(tableName, pair),
  ...linkPuts(tableName, pair),
  ...liveChecks(tableName, pair),
];

/** A pair changed: on the revision it was read at, its entry moved where its new place is. */
const updateActions = (
  tableName: string,
  { before, pair }: Extract<PairChange, { kind: 'update' }>,
): Action[] => {
  const from = queueKeyOf(before.pair);
  const moved = keyString(from) !== keyString(queueKeyOf(pair));
  return [
    [
      {
        Put: {
          TableName: tableName,
          Item: pairItem(pair, before.eventId, before.revision + 1),
          ConditionExpression: 'revision = :revision',
          ExpressionAttributeValues: { ':revision': before.revision },
        },
      },
      { kind: 'object' },
    ],
    ...(moved
      ? [[{ Delete: { TableName: tableName, Key: from } }, { kind: 'object' }] satisfies Action]
      : []),
    queuePut(tableName, pair),
    ...liveChecks(tableName, pair),
  ];
};

/**
 * The queue's entries a page may take: each partition of the status and grades read from the position
 * on, in its order, `limit` + 1 entries at most (enough to know whether a page follows).
 */
const queueEntries = async ({ client, tableName }: Storage, query: PairQuery): Promise<DuplicatePair[]> => {
  const after = query.after ? duplicateQueueSortKey(query.after.score, query.after.persons) : undefined;
  const partitions = query.grades.flatMap((grade) =>
    Array.from({ length: DUPLICATE_QUEUE_SHARDS }, (_, shard) =>
      duplicateQueuePartition(query.status, grade, shard),
    ),
  );
  const entries = await Promise.all(
    partitions.map(async (partition) => {
      const { Items = [] } = await storageCall(() =>
        client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: after ? 'pk = :pk AND sk > :after' : 'pk = :pk',
            ExpressionAttributeValues: { ':pk': partition, ...(after ? { ':after': after } : {}) },
            ProjectionExpression: 'pair',
            Limit: query.limit + 1,
          }),
        ),
      );
      return Items.map((item) => item.pair as DuplicatePair);
    }),
  );
  return entries.flat();
};

export const pairStore = (
  storage: Storage,
  ids: IdAllocator = idAllocator(storage.client, storage.tableName),
): DuplicatePairs => {
  const { client, tableName } = storage;
  const readPairs = async (pairIds: readonly string[]) => {
    const found = await batchGet(storage, pairIds.map(duplicatePairKey));
    return pairIds.flatMap((id) => {
      const item = found.get(keyString(duplicatePairKey(id)));
      return item ? [storedPairOf(item)] : [];
    });
  };
  return {
    async pairsOf(personId) {
      const links = await sortKeyRange<{ pairId: string }>(
        storage,
        duplicateLinkKey(personId, 0).pk,
        DUPLICATE_LINK_SORT_PREFIX,
        ['pairId'],
      );
      return readPairs(links.map(({ pairId }) => pairId));
    },
    async get(pairId) {
      const [stored] = await readPairs([pairId]);
      return stored;
    },
    async page(query) {
      // One person's pairs: its links, then its pairs, ordered here (a person is in a few).
      if (query.person === undefined) return queuePage(await queueEntries(storage, query), query);
      return queuePage(
        (await this.pairsOf(query.person)).map(({ pair }) => pair),
        query,
      );
    },
    async apply(change) {
      const actions =
        change.kind === 'create'
          ? createActions(tableName, change.pair, (await ids.reserve(1)).first)
          : updateActions(tableName, change);
      return sendWrite(client, transactionOf(actions));
    },
  };
};
