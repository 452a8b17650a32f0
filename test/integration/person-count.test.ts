/**
 * The person count over sharded counters (keys.ts): exact under concurrent creates, right on a table
 * written before the shards, and with no item that every create's transaction touches.
 */
import { BatchGetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { buildHandler as buildListPersons } from '../../functions/list-persons';
import { personList } from '../../lib/db/person/read/person-list';
import { keyString } from '../../lib/db/table/batch-get';
import {
  type Key,
  LEGACY_PERSON_COUNTER,
  PERSON_COUNTER_KEYS,
  personCounterKey,
} from '../../lib/db/table/keys';
import { personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { createTestTable, type TestTable, testRepository } from '../support/dynamo';
import { httpEvent, invoke } from '../support/events';
import { checkInvariants } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const countOn = async (table: TestTable) => {
  const list = buildListPersons({ personList: personList(table) });
  const { status, body } = await invoke<{ Pagination: { count: number } }>(
    list,
    httpEvent({ method: 'GET', route: '/Person', query: { limit: '0' } }),
  );
  expect(status).toBe(200);
  return body.Pagination.count;
};

/** A create as a fresh Lambda container would make it: its own repository and id block. */
const createInContainer = async (table: TestTable) => {
  const { status, body } = await personApi(testRepository(table)).post(
    personBody('Count', uniqueTag('shard'), uniqueEmail('count')),
  );
  expect(status).toBe(201);
  return body.id as number;
};

describe('the person count', () => {
  // A table of its own, checked by the invariant checker after the tests.
  const suite = integrationSuite();

  it('is exact after 200 concurrent creates from 200 containers', async () => {
    const ids = await Promise.all(Array.from({ length: 200 }, () => createInContainer(suite.table)));

    expect(new Set(ids).size).toBe(200);
    expect(await countOn(suite.table)).toBe(200);
  }, 120_000);

  it('adds each create to the counter of its id, so the shards share the creates out', async () => {
    const { Responses } = await suite.table.client.send(
      new BatchGetCommand({ RequestItems: { [suite.table.tableName]: { Keys: [...PERSON_COUNTER_KEYS] } } }),
    );
    const values = (Responses?.[suite.table.tableName] ?? []).map((item) => item.value as number);
    expect(values).toHaveLength(16);
    expect(Math.max(...values)).toBeLessThanOrEqual(200 / 4);
  });
});

describe('a table written before the counters were sharded', () => {
  const suite = integrationSuite();

  it('counts its persons from the old counter and the new ones from the shards', async () => {
    const api = personApi(testRepository(suite.table));
    const old = [];
    for (let n = 0; n < 3; n++)
      old.push((await api.post(personBody('Old', `Layout ${n}`, uniqueEmail()))).body);
    // As the old code left it: the count in COUNTER#persons, no shard counters.
    await suite.table.client.send(
      new TransactWriteCommand({
        TransactItems: [
          ...[...new Set(old.map(({ id }) => personCounterKey(id as number).pk))].map((pk) => ({
            Delete: { TableName: suite.table.tableName, Key: { pk, sk: 'COUNTER' } },
          })),
          {
            Put: { TableName: suite.table.tableName, Item: { ...LEGACY_PERSON_COUNTER, value: old.length } },
          },
        ],
      }),
    );
    expect(await countOn(suite.table)).toBe(3);

    for (let n = 0; n < 2; n++) await api.post(personBody('New', `Layout ${n}`, uniqueEmail()));

    expect(await countOn(suite.table)).toBe(5);
  });

  it('never writes the old counter again', async () => {
    await personApi(testRepository(suite.table)).post(personBody('Newer', 'Layout', uniqueEmail()));
    const { Responses } = await suite.table.client.send(
      new BatchGetCommand({ RequestItems: { [suite.table.tableName]: { Keys: [LEGACY_PERSON_COUNTER] } } }),
    );
    expect(Responses?.[suite.table.tableName]?.[0]?.value).toBe(3);
    expect(await countOn(suite.table)).toBe(6);
  });
});

describe('the items of create transactions', () => {
  it('put no item in more than a quarter of 32 creates (no counter or partition every create touches)', async () => {
    const table = await createTestTable();
    const transactions: Set<string>[] = [];
    table.client.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { TransactItems?: Record<string, { Item?: Key; Key?: Key }>[] };
        if (input.TransactItems)
          transactions.push(
            new Set(
              input.TransactItems.flatMap((action) =>
                Object.values(action).map(({ Item, Key }) => keyString((Item ?? Key) as Key)),
              ),
            ),
          );
        return next(args);
      },
      { step: 'initialize', name: 'recordTransactionKeys' },
    );

    for (let n = 0; n < 32; n++) await createInContainer(table);

    expect(transactions).toHaveLength(32);
    const uses = new Map<string, number>();
    for (const keys of transactions) for (const key of keys) uses.set(key, (uses.get(key) ?? 0) + 1);
    expect([...uses].filter(([, count]) => count > 32 / 4)).toEqual([]);
    expect(await checkInvariants(table)).toEqual([]);
  }, 60_000);
});
