/**
 * Where the answers to writes sent with an `Idempotency-Key` are kept: Powertools' DynamoDB
 * persistence layer (its in-progress record, conditional put, payload hash and expiry), on the
 * service's one table, each record in a partition of its own (keys.ts `idempotencyKey`).
 *
 * Powertools keys a composite-key table by one static partition (`idempotency#<function>`) with the
 * hash as the sort key: every keyed write of every client would touch that one partition (about
 * 1 000 writes/s for the whole API). So the key is built here instead, partition = the hash.
 *
 * A stored answer that is a Person (a create's, a PATCH's, a merge's survivor) holds the person's
 * values: it is linked from the person's partition (keys.ts `keyedAnswerKey`) before it is stored, so
 * that an erasure (API.md 15) finds it and makes it the tombstone (history/history-erasure.ts). A person
 * erased in between has its stored answer be the tombstone at once. The erasure rewrites the answers
 * after its transaction, so until it has (a chain cut short, or still running) a replay reads the
 * person as it is now (`erasedAbout`) and answers 410 too: the rewrite removes the values at rest, the
 * read keeps a replay from answering them meanwhile.
 */

import { PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { type ErasedPerson, erasedAnswerOf, isErasedPerson } from '../../domain/erasure';
import type { KeyedAnswers } from '../../domain/ports/keyed-answers';
import { ERASED_PERSON_TYPE, fromStoredPersonItem } from '../person/person-items';
import { batchGet, keyString } from '../table/batch-get';
import type { Storage } from '../table/client';
import { PARTITION_KEY, TIME_TO_LIVE_ATTRIBUTE } from '../table/definition';
import { idempotencyKey, KEYED_ANSWER_SORT_KEY_PREFIX, keyedAnswerKey, personKey } from '../table/keys';
import { sortKeyRange } from '../table/sort-key-range';
import { storageCall } from '../table/storage-errors';
import type { Action } from '../write/actions';

export interface IdempotencyStoreDeps {
  /** The raw client (Powertools marshals its items itself). */
  client: DynamoDBClient;
  tableName: string;
}

/** What the links name their answers by: the record's hash, the last part of Powertools' key. */
const hashOf = (recordKey: string) => recordKey.slice(recordKey.lastIndexOf('#') + 1);

/** The person a stored answer is about: the Person its body is, if it is one. */
export const personOfAnswer = (response: unknown): number | undefined => {
  const body = (response as { body?: unknown } | undefined)?.body;
  if (typeof body !== 'string') return undefined;
  try {
    const parsed = JSON.parse(body) as { '@type'?: unknown; id?: unknown };
    return parsed['@type'] === 'Person' && Number.isSafeInteger(parsed.id)
      ? (parsed.id as number)
      : undefined;
  } catch {
    return undefined;
  }
};

export const KEYED_ANSWER_TYPE = 'KeyedAnswer';

export class IdempotencyStore extends DynamoDBPersistenceLayer implements KeyedAnswers {
  /** Its own calls (the links) go through the document client, as every repository's do. */
  readonly #documents: DynamoDBDocumentClient;
  readonly #tableName: string;

  constructor({ client, tableName }: IdempotencyStoreDeps) {
    super({
      tableName,
      awsSdkV3Client: client,
      // The attribute its conditions name (`attribute_not_exists`): the table's partition key.
      keyAttr: PARTITION_KEY,
      expiryAttr: TIME_TO_LIVE_ATTRIBUTE,
    });
    this.#documents = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    this.#tableName = tableName;
  }

  /** The answer stored, linked from its person first (see above); the tombstone when it was erased. */
  protected override async _updateRecord(record: IdempotencyRecord): Promise<void> {
    const personId = personOfAnswer(record.responseData);
    if (personId !== undefined && !(await this.#linked(record, personId)))
      record.responseData = erasedAnswerOf(
        await this.#tombstoneOf(personId),
      ) as unknown as IdempotencyRecord['responseData'];
    await super._updateRecord(record);
  }

  /**
   * Puts the answer's link in its person's partition (expiring with the answer) while the person is
   * not erased: false when it is, and there is no link.
   */
  async #linked(record: IdempotencyRecord, personId: number): Promise<boolean> {
    const link = {
      ...keyedAnswerKey(personId, hashOf(record.idempotencyKey)),
      type: KEYED_ANSWER_TYPE,
      [TIME_TO_LIVE_ATTRIBUTE]: record.expiryTimestamp,
    };
    try {
      await storageCall(() =>
        this.#documents.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: this.#tableName, Item: link } },
              {
                ConditionCheck: {
                  TableName: this.#tableName,
                  Key: personKey(personId),
                  ConditionExpression: '#type <> :erased',
                  ExpressionAttributeNames: { '#type': 'type' },
                  ExpressionAttributeValues: { ':erased': ERASED_PERSON_TYPE },
                },
              },
            ],
          }),
        ),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionCanceledException) return false;
      throw error;
    }
  }

  /**
   * The tombstone of the person a stored answer is about, when it is erased now (KeyedAnswers, the
   * port lib/http asks on every replay): an erasure rewrites the stored answers only after its
   * transaction (`eraseAnswers`), so one cut short, or still running, leaves answers that hold the
   * person; the person read answers for them. No read for an answer about no person.
   */
  async erasedAbout(answer: unknown): Promise<ErasedPerson | undefined> {
    const personId = personOfAnswer(answer);
    return personId === undefined ? undefined : this.#erasedNow(personId);
  }

  /** The erased person's tombstone, when the link found it erased. */
  async #tombstoneOf(personId: number): Promise<ErasedPerson> {
    const tombstone = await this.#erasedNow(personId);
    if (!tombstone) throw new Error(`Person ${personId} is not erased`);
    return tombstone;
  }

  /**
   * Person `personId`'s tombstone if it is erased: one consistent read of its item, as a write reads
   * its person (every keyed writer may, infra/table-access.ts).
   */
  async #erasedNow(personId: number): Promise<ErasedPerson | undefined> {
    const key = personKey(personId);
    const items = await batchGet({ client: this.#documents, tableName: this.#tableName }, [key]);
    const item = items.get(keyString(key));
    const stored = item && fromStoredPersonItem(item);
    return stored && isErasedPerson(stored) ? stored : undefined;
  }

  /**
   * `<prefix>#<hash>` → the record's own partition. The prefix (the Lambda function's name) is left
   * out: a key is one record whichever function answers it, so a key sent again on another route is
   * seen, and refused, instead of starting a second write. Base64 holds no `#`.
   */
  protected override getKey(recordKey: string) {
    return marshall(idempotencyKey(hashOf(recordKey)));
  }
}

export const idempotencyStore = (deps: IdempotencyStoreDeps) => new IdempotencyStore(deps);

/**
 * Every stored answer about person `id` made the tombstone (a replay answers 410, lib/http), each by
 * an UpdateItem of its record (one that expired meanwhile is left gone); the links' deletes are
 * actions of the erasure's chain, sent after, so a chain cut short finds the links again.
 */
export const eraseAnswers = async (
  storage: Storage,
  id: number,
  tombstone: ErasedPerson,
): Promise<Action[]> => {
  const links = await sortKeyRange(storage, personKey(id).pk, KEYED_ANSWER_SORT_KEY_PREFIX);
  const answer = erasedAnswerOf(tombstone);
  for (const link of links) {
    try {
      await storageCall(() =>
        storage.client.send(
          new UpdateCommand({
            TableName: storage.tableName,
            Key: idempotencyKey(link.sk.slice(KEYED_ANSWER_SORT_KEY_PREFIX.length)),
            UpdateExpression: 'SET #data = :answer',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#data': PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS.dataAttr },
            ExpressionAttributeValues: { ':answer': answer },
          }),
        ),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
  return links.map(
    (link): Action => [{ Delete: { TableName: storage.tableName, Key: link } }, { kind: 'object' }],
  );
};
