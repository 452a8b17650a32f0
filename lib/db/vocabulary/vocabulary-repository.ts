/**
 * The NamePrefix and NameSuffix vocabularies in the table (API.md 11.4): reads, the abbreviations a
 * person write needs, and versioned writes with their ChangeHistory entry, requester check and
 * abbreviation claim, through the same versioned write as persons.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { changeEntry, NO_ORIGIN } from '../../domain/change-history';
import { NotFound } from '../../domain/errors';
import type { VocabularyReader, VocabularyRepository } from '../../domain/ports/vocabulary';
import type { WriteOptions } from '../../domain/ports/writes';
import { OPEN } from '../../domain/principal';
import {
  applyEntryPatch,
  VOCABULARY_KINDS,
  type VocabularyBody,
  type VocabularyEntry,
  type VocabularyKind,
} from '../../domain/vocabulary';
import { retryDeadline } from '../../timeouts';
import { historyActions } from '../history/history-actions';
import { batchGet } from '../table/batch-get';
import type { Storage } from '../table/client';
import { vocabularyKey, vocabularyPartition } from '../table/keys';
import { storageCall } from '../table/storage-errors';
import { claimActions, objectPut, requesterCheck, rulingActions, transactionOf } from '../write/actions';
import { type IdAllocator, idAllocator } from '../write/ids';
import {
  asRequester,
  checkPreconditions,
  jitteredBackoff,
  objectQueue,
  type RetryOptions,
  retrying,
  sendWrite,
} from '../write/send';

const ENTRY_FIELDS = ['id', 'term', 'abbreviation', 'local_reference_id', 'CoreMetaData'] as const;

/** A vocabulary entry as its item: its key, its kind as `type`, the entry. */
export const toEntryItem = (kind: VocabularyKind, entry: VocabularyEntry) => ({
  ...vocabularyKey(kind, entry.id),
  type: kind,
  ...entry,
});

const fromEntryItem = (item: Record<string, unknown>): VocabularyEntry =>
  Object.fromEntries(ENTRY_FIELDS.map((field) => [field, item[field]])) as unknown as VocabularyEntry;

export type VocabularyDeps = Storage & { ids?: IdAllocator; clock?: () => Date } & Partial<
    Pick<RetryOptions, 'backoff'>
  >;

export const vocabularyReader = ({ client, tableName }: Storage): VocabularyReader => ({
  async list(kind) {
    const entries: VocabularyEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await storageCall(() =>
        client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': vocabularyPartition(kind) },
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
          }),
        ),
      );
      entries.push(...(page.Items ?? []).map(fromEntryItem));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return entries;
  },

  async get(kind, id) {
    const { Item } = await storageCall(() =>
      client.send(
        new GetCommand({ TableName: tableName, Key: vocabularyKey(kind, id), ConsistentRead: true }),
      ),
    );
    if (!Item) throw new NotFound(kind, id);
    return fromEntryItem(Item);
  },

  async abbreviations(ids) {
    const found: Record<VocabularyKind, Map<number, string>> = {
      NamePrefix: new Map(),
      NameSuffix: new Map(),
    };
    const keys = VOCABULARY_KINDS.flatMap((kind) => ids[kind].map((id) => vocabularyKey(kind, id)));
    for (const item of (await batchGet({ client, tableName }, keys, { consistent: false })).values())
      found[item.type as VocabularyKind].set(item.id as number, item.abbreviation as string);
    return found;
  },
});

/** One versioned write of an entry: the entry, its history, its claim, the requester checked. */
const writeEntry = (
  { client, tableName, clock }: Storage & { clock: () => Date },
  kind: VocabularyKind,
  stored: VocabularyEntry | null,
  id: number,
  body: VocabularyBody,
  requester: number,
  changeId: number,
  { origin = NO_ORIGIN, ruling = OPEN }: Pick<WriteOptions, 'origin' | 'ruling'>,
) => {
  const now = clock().toISOString();
  const patched = applyEntryPatch(kind, stored, id, body, { requester, now, changeId });
  const checks = [
    requesterCheck(tableName, requester),
    ...rulingActions(tableName, ruling, { requester, personId: requester }),
  ];
  // A change of nothing writes nothing, but a bound caller still proves the requester is its own.
  if (patched.changed.length === 0)
    return {
      patched,
      landed: ruling.kind === 'open' ? Promise.resolve(true) : sendWrite(client, transactionOf(checks)),
    };
  const entry = changeEntry(kind, patched.entry, {
    id: changeId,
    action: stored ? 'update' : 'create',
    requester,
    at: now,
    changed: patched.changed,
    origin,
  });
  const transaction = transactionOf([
    objectPut(tableName, toEntryItem(kind, patched.entry), stored ? stored.CoreMetaData.version : null),
    ...historyActions(tableName, entry, patched.entry),
    ...claimActions(tableName, { type: kind, id }, patched.take, patched.release),
    ...checks,
  ]);
  return { patched, landed: sendWrite(client, transaction) };
};

export const vocabularyRepository = ({
  client,
  tableName,
  ids = idAllocator(client, tableName),
  clock = () => new Date(),
  backoff = jitteredBackoff,
}: VocabularyDeps): VocabularyRepository => {
  const reader = vocabularyReader({ client, tableName });
  const queue = objectQueue();
  const storage = { client, tableName, clock };

  return {
    ...reader,

    async create(kind, body, requester, { deadline = retryDeadline(), ...options } = {}) {
      const reserved = await ids.reserve(2);
      const next = reserved.sequence();
      const [id, changeId] = [next(), next()];
      return asRequester(requester, (acting) =>
        retrying({ deadline, backoff }, async () => {
          const { patched, landed } = writeEntry(storage, kind, null, id, body, acting, changeId, options);
          return (await landed) ? patched.entry : undefined;
        }),
      );
    },

    async update(
      kind,
      id,
      body,
      requester,
      { conditions = {}, deadline = retryDeadline(), ...options } = {},
    ) {
      const changeId = (await ids.reserve(1)).first;
      return asRequester(requester, (acting) =>
        queue(vocabularyKey(kind, id).sk, () =>
          retrying({ deadline, backoff }, async () => {
            const stored = await reader.get(kind, id);
            checkPreconditions(conditions, stored.CoreMetaData.version, kind);
            const { patched, landed } = writeEntry(
              storage,
              kind,
              stored,
              id,
              body,
              acting,
              changeId,
              options,
            );
            return (await landed) ? patched.entry : undefined;
          }),
        ),
      );
    },
  };
};
