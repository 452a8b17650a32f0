/**
 * Where the answers to writes sent with an `Idempotency-Key` are kept: Powertools' DynamoDB
 * persistence layer (its in-progress record, conditional put, payload hash and expiry), on the
 * service's one table, each record in a partition of its own (keys.ts `idempotencyKey`).
 *
 * Powertools keys a composite-key table by one static partition (`idempotency#<function>`) with the
 * hash as the sort key: every keyed write of every client would touch that one partition (about
 * 1 000 writes/s for the whole API). So the key is built here instead, partition = the hash.
 */

import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { PARTITION_KEY, TIME_TO_LIVE_ATTRIBUTE } from '../table/definition';
import { idempotencyKey } from '../table/keys';

export interface IdempotencyStoreDeps {
  /** The raw client (Powertools marshals its items itself). */
  client: DynamoDBClient;
  tableName: string;
}

export class IdempotencyStore extends DynamoDBPersistenceLayer {
  constructor({ client, tableName }: IdempotencyStoreDeps) {
    super({
      tableName,
      awsSdkV3Client: client,
      // The attribute its conditions name (`attribute_not_exists`): the table's partition key.
      keyAttr: PARTITION_KEY,
      expiryAttr: TIME_TO_LIVE_ATTRIBUTE,
    });
  }

  /**
   * `<prefix>#<hash>` → the record's own partition. The prefix (the Lambda function's name) is left
   * out: a key is one record whichever function answers it, so a key sent again on another route is
   * seen, and refused, instead of starting a second write. Base64 holds no `#`.
   */
  protected override getKey(recordKey: string) {
    return marshall(idempotencyKey(recordKey.slice(recordKey.lastIndexOf('#') + 1)));
  }
}

export const idempotencyStore = (deps: IdempotencyStoreDeps) => new IdempotencyStore(deps);
