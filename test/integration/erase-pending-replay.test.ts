/**
 * A keyed write's stored answer while its person's erasure is cut short (API.md 15, 5.6), found by
 * test/reliability/erase-crash.test.ts: the chain (erasure-chain.ts) rewrites the stored answers
 * after the erasure's transaction, so an erasure cut before or during those rewrites leaves the
 * tombstone (410, `historyPending`) and stored answers that still hold the person. API.md 15: "an
 * `Idempotency-Key` replay of an earlier write to it answers 410, never the stored answer": a replay
 * of an answer about a person reads the person as it is now (lib/http/idempotency.ts `erasedSince`,
 * the store's `erasedAbout`) and answers 410 `erased` with its tombstone, rewritten or not.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { buildHandler as buildUpdatePerson } from '../../functions/update-person';
import { idempotencyStore } from '../../lib/db/idempotency/idempotency-store';
import { localClientConfig } from '../../lib/local/dynamo-local';
import { type Json, personBody, uniqueTag } from '../support/api';
import { testRepository } from '../support/dynamo';
import { httpEvent, invoke } from '../support/events';
import { injectFaults, sdkError } from '../support/faults';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

describe('a keyed PATCH replayed while the erasure of its person is cut short (API.md 15, 5.6)', () => {
  it('answers the replay 410 `erased` with the tombstone, never the stored answer with the values erased from the person', async () => {
    const client = new DynamoDBClient(localClientConfig(inject('dynamoEndpoint')));
    try {
      const idempotency = { store: idempotencyStore({ client, tableName: suite.table.tableName }) };
      const updateKeyed = buildUpdatePerson({ persons: testRepository(suite.table), idempotency });
      const tag = uniqueTag('pending').toLowerCase();
      const created = await suite.api.post(personBody(`Ada${tag}`, `Pending${tag}`, `${tag}@example.org`));
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      const patch = () =>
        invoke<Json>(
          updateKeyed,
          httpEvent({
            method: 'PATCH',
            route: '/Person/{id}',
            path: `/Person/${id}`,
            pathParameters: { id: String(id) },
            body: { local_reference_id: `ref-${tag}` },
            requester: id,
            headers: { 'idempotency-key': `u-${tag}` },
          }),
        );
      expect((await patch()).status).toBe(200);

      // Storage gone when the chain rewrites the stored answers: the erasure is cut there (as a
      // SIGKILL of DynamoDB Local cuts it), its transaction done.
      const stop = injectFaults(suite.table.client, (name, input) =>
        name === 'UpdateItemCommand' && JSON.stringify(input).includes('IDEMPOTENCY#')
          ? sdkError('ThrottlingException')
          : undefined,
      );
      try {
        expect((await suite.api.erase(id)).status).toBe(503);
      } finally {
        stop();
      }
      expect((await suite.api.get(id)).status).toBe(410);

      // Before the fix: 200, `idempotent-replayed: true`, the person's values (the tag) in the body.
      const replay = await patch();
      expect({ status: replay.status, holdsValues: JSON.stringify(replay.body).includes(tag) }).toEqual({
        status: 410,
        holdsValues: false,
      });
      expect(replay.body.type).toContain('/problems/erased');
      expect(replay.headers['idempotent-replayed']).toBeUndefined();
    } finally {
      client.destroy();
    }
  });
});
