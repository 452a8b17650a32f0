/**
 * Writes the reference data (vocabulary-seed.ts) into a table: at deploy from the reference-data
 * custom resource (../seed-reference-data.ts), and from `npm start` (lib/local/dynamo-local.ts) and
 * the tests, all through this one function. Each entry is written as any other create writes it,
 * with its ChangeHistory entry and abbreviation claim, from the versioned write's builders.
 */
import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { counterStep, historyPut } from '../../../lib/db/history/history-actions';
import type { Storage } from '../../../lib/db/table/client';
import { idCounterKey, vocabularyPartition } from '../../../lib/db/table/keys';
import { toEntryItem } from '../../../lib/db/vocabulary/vocabulary-repository';
import { claimActions, objectPut, transactionOf } from '../../../lib/db/write/actions';
import { type IdAllocator, idAllocator } from '../../../lib/db/write/ids';
import { sendWrite } from '../../../lib/db/write/send';
import { changeEntry, NO_ORIGIN } from '../../../lib/domain/change-history';
import { seededEntry, VOCABULARY_KINDS } from '../../../lib/domain/vocabulary';
import { SEEDED_ID_CEILING, SEEDED_VOCABULARY } from './vocabulary-seed';

/** Raises the id counter to the seeded ids' ceiling, so allocated ids never repeat a seeded one. */
const raiseIdFloor = async (client: DynamoDBDocumentClient, tableName: string) => {
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: idCounterKey,
        UpdateExpression: 'SET #value = :floor',
        ConditionExpression: 'attribute_not_exists(#value) OR #value < :floor',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':floor': SEEDED_ID_CEILING },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
};

/** Entries a seed writes in one transaction: 3 actions each and the counter step stay within 100. */
const SEED_ENTRIES_PER_WRITE = 30;

/**
 * Writes the seeded vocabulary entries that are not there yet, each with its ChangeHistory entry and
 * claim, from the same builders as any other create, thirty entries to a transaction: tests,
 * `npm start` and deploy all call this, and calling it again changes nothing.
 */
export const seedVocabulary = async (
  { client, tableName }: Storage,
  ids: IdAllocator = idAllocator(client, tableName),
): Promise<void> => {
  await raiseIdFloor(client, tableName);
  const now = new Date().toISOString();
  for (const kind of VOCABULARY_KINDS) {
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': vocabularyPartition(kind) },
        ProjectionExpression: 'id',
        ConsistentRead: true,
      }),
    );
    const present = new Set(Items.map((item) => item.id as number));
    const missing = SEEDED_VOCABULARY[kind].filter(({ id }) => !present.has(id));
    if (missing.length === 0) continue;
    const reserved = await ids.reserve(missing.length);
    const changeId = reserved.sequence();
    // One transaction per chunk: three actions an entry and one step of the vocabulary's one counter,
    // which concurrent transactions would cancel each other on.
    for (let start = 0; start < missing.length; start += SEED_ENTRIES_PER_WRITE) {
      const chunk = missing.slice(start, start + SEED_ENTRIES_PER_WRITE);
      const actions = chunk.flatMap((seed) => {
        const { entry, changed, take } = seededEntry(kind, seed, now, changeId());
        const history = changeEntry(kind, entry, {
          id: entry.CoreMetaData.created_audit_id as number,
          action: 'create',
          requester: null,
          at: now,
          changed,
          origin: { ...NO_ORIGIN, caller: 'seed' },
        });
        return [
          objectPut(tableName, toEntryItem(kind, entry), null),
          historyPut(tableName, history, entry),
          ...claimActions(tableName, { type: kind, id: entry.id }, take, []),
        ];
      });
      // A write that meets another seed's (a second container starting) leaves that one standing.
      await sendWrite(
        client,
        transactionOf([...actions, counterStep(tableName, kind, reserved.first, chunk.length)]),
      );
    }
  }
};
