/**
 * The list over the partitions of the `byName` index (keys.ts): merged by sort key, it answers what
 * one ordered index would, at every window edge, with ties and in both directions, on a table that
 * also holds persons in the legacy partition; and it reads no partition past the window.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildListPersons } from '../../functions/list-persons';
import { compareSortKeys } from '../../lib/db/person/read/list-reads';
import { personList } from '../../lib/db/person/read/person-list';
import {
  type Key,
  LEGACY_PERSON_COUNTER,
  LEGACY_PERSON_LIST_PARTITION,
  PERSON_LIST_INDEX,
  personCounterKey,
  personKey,
} from '../../lib/db/table/keys';
import { counterUpdate } from '../../lib/db/write/actions';
import { personApi, personBody, uniqueEmail } from '../support/api';
import { createTestTable, type TestTable, testRepository } from '../support/dynamo';
import { httpEvent, invoke } from '../support/events';
import { checkInvariants, scanAll } from '../support/invariants';

interface StubList {
  Pagination: { count: number; limit: number; offset: number };
  '@set': { id: number }[];
}

interface PaginatedStubs {
  total: number;
  items: { id: number }[];
}

/** Few names, many persons: most names are shared, so order within a name is by id. */
const NAMES = [
  ['Ann', 'Lee'],
  ['ann', 'lee'],
  ['Ánn', 'Leé'],
  ['Bo', 'Ek'],
  ['Zoë', 'Ng'],
  ['Émile', 'Zola'],
];
const PERSONS = 40;
const LEGACY = 9;

let table: TestTable;
/** Items read from each partition by each Query of the index, recorded per list call. */
let reads: Map<string, number>;

const list = async <T = StubList>(query: Record<string, string>) => {
  reads = new Map();
  const { status, body } = await invoke<T>(
    buildListPersons({ personList: personList(table) }),
    httpEvent({ method: 'GET', route: '/Person', query }),
  );
  expect(status).toBe(200);
  return body;
};

/** The ids in index order, as one ordered index would give them: every stored person by listSk. */
const expectedIds = async (descending: boolean) => {
  const persons = (await scanAll(table)).filter((item) => item.type === 'Person');
  const ordered = persons.sort((a, b) => compareSortKeys(a.listSk as string, b.listSk as string));
  const ids = ordered.map((item) => item.id as number);
  return descending ? ids.reverse() : ids;
};

beforeAll(async () => {
  table = await createTestTable();
  table.client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const input = args.input as { IndexName?: string; ExpressionAttributeValues?: Record<string, unknown> };
      if (input.IndexName === PERSON_LIST_INDEX) {
        const partition = String(input.ExpressionAttributeValues?.[':partition']);
        const items = ((result.output as { Items?: unknown[] }).Items ?? []).length;
        reads?.set(partition, (reads.get(partition) ?? 0) + items);
      }
      return result;
    },
    { step: 'initialize', name: 'recordPartitionReads' },
  );
  const api = personApi(testRepository(table));
  for (let n = 0; n < PERSONS; n++) {
    const [first, last] = NAMES[n % NAMES.length] as [string, string];
    const { status } = await api.post(personBody(first, last, uniqueEmail('part')));
    expect(status).toBe(201);
  }
  // As a table written before the split holds them: some persons in the one old partition, and
  // counted in the one old counter.
  const ids = await expectedIds(false);
  const add = (key: Key, count: number) =>
    table.client.send(new UpdateCommand(counterUpdate(table.tableName, key, count)));
  for (const id of ids.slice(0, LEGACY)) {
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: personKey(id),
        UpdateExpression: 'SET listPk = :legacy',
        ExpressionAttributeValues: { ':legacy': LEGACY_PERSON_LIST_PARTITION },
      }),
    );
    await add(personCounterKey(id), -1);
    await add(LEGACY_PERSON_COUNTER, 1);
  }
}, 60_000);

afterAll(async () => {
  expect(await checkInvariants(table)).toEqual([]);
});

describe('GET /Person over the partitions of the byName index', () => {
  it('holds persons in several partitions and in the legacy one, counted partly in the legacy counter (the checks below need both)', async () => {
    const items = await scanAll(table);
    const partitions = new Set(items.filter((item) => item.type === 'Person').map((item) => item.listPk));
    expect(partitions.has(LEGACY_PERSON_LIST_PARTITION)).toBe(true);
    expect(partitions.size).toBeGreaterThanOrEqual(6);
    expect(items.find((item) => item.pk === LEGACY_PERSON_COUNTER.pk)?.value).toBe(LEGACY);
  });

  it.each([
    ['1', false],
    ['0', true],
  ])(
    'answers every window with sort_dir=%s as one ordered index would',
    async (sort_dir, descending) => {
      const ids = await expectedIds(descending);
      for (const limit of [1, 3, 7, 50])
        for (let offset = 0; offset <= PERSONS + 1; offset += offset < 10 ? 1 : 5) {
          const body = await list({ sort_dir, limit: String(limit), offset: String(offset) });
          expect({ limit, offset, ids: body['@set'].map(({ id }) => id) }).toEqual({
            limit,
            offset,
            ids: ids.slice(offset, offset + limit),
          });
          expect(body.Pagination.count).toBe(PERSONS);
          // No partition gives more than the window needs.
          for (const [partition, items] of reads)
            expect({ partition, items, within: items <= offset + limit }).toMatchObject({ within: true });
        }
    },
    120_000,
  );

  it('pages with page/perPage across partition edges, both directions', async () => {
    for (const [sort_dir, descending] of [
      ['1', false],
      ['0', true],
    ] as const) {
      const ids = await expectedIds(descending);
      const seen: number[] = [];
      for (let page = 1; page <= 5; page++) {
        const body = await list<PaginatedStubs>({ sort_dir, page: String(page), perPage: '9' });
        expect(body.total).toBe(PERSONS);
        seen.push(...body.items.map(({ id }) => id));
      }
      expect(seen).toEqual(ids);
    }
  });

  it('reads the first page of 10 from every partition at once, a few entries from each', async () => {
    await list({ limit: '10' });
    expect([...reads.keys()].sort()).toEqual(
      [...Array.from({ length: 8 }, (_, shard) => `PERSONS#${shard}`), 'PERSON'].sort(),
    );
    const total = [...reads.values()].reduce((sum, items) => sum + items, 0);
    expect(total).toBeLessThanOrEqual(10 + 9 * 3);
  });

  it('finds persons of the legacy partition and of the new ones by filter, in order', async () => {
    const body = await list({ last_name: 'lee', limit: '500' });
    const ids = await expectedIds(false);
    const lees = (await scanAll(table))
      .filter((item) => item.type === 'Person' && String(item.search_last_name).includes('lee'))
      .map((item) => item.id as number);
    expect(body['@set'].map(({ id }) => id)).toEqual(ids.filter((id) => lees.includes(id)));
    expect(body.Pagination.count).toBe(lees.length);
  });

  it('moves a person out of the legacy partition at its next write', async () => {
    const [first] = await expectedIds(false);
    const api = personApi(testRepository(table));
    const before = (await scanAll(table)).find((item) => item.id === first && item.type === 'Person');
    expect(before?.listPk).toBe(LEGACY_PERSON_LIST_PARTITION);

    const { status } = await api.patch(first as number, { local_reference_id: 'moved' });

    expect(status).toBe(200);
    const after = (await scanAll(table)).find((item) => item.id === first && item.type === 'Person');
    expect(after?.listPk).toMatch(/^PERSONS#[0-7]$/);
    expect((await list({ limit: '500' }))['@set'].map(({ id }) => id)).toEqual(await expectedIds(false));
  });
});
