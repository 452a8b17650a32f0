/**
 * The service's metrics (issue #42 step 3, lib/api/metrics.ts names them) as the real handlers write
 * them against DynamoDB Local: what each counts, in its catalogue unit, once per thing counted.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { buildHandler as buildList } from '../../functions/list-persons';
import { LOCAL_METRICS_NAMESPACE, METRICS } from '../../lib/api/metrics';
import { batchHandler } from '../../lib/batch-handler';
import { appendEvents } from '../../lib/db/feed/feed-appender';
import { idempotencyStore } from '../../lib/db/idempotency/idempotency-store';
import { personList } from '../../lib/db/person/read/person-list';
import { socialAddressWriter } from '../../lib/db/person/write/social-address-writer';
import { clearbitProvider } from '../../lib/enrichment/clearbit';
import { enrichPersons } from '../../lib/enrichment/enrich-persons';
import { localClientConfig } from '../../lib/local/dynamo-local';
import { startFixtureProvider } from '../../lib/local/fixture-provider';
import { personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { testRepository } from '../support/dynamo';
import { httpEvent, invoke, lambdaContext, personEventRecord, streamRecord } from '../support/events';
import { injectFaults, sdkError } from '../support/faults';
import { metricsReader, total } from '../support/metrics';
import { integrationSuite } from '../support/suite';

vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});

const suite = integrationSuite();
const metricsWrittenBy = metricsReader();

const names = (points: { name: string }[]) => [...new Set(points.map(({ name }) => name))].sort();

describe('the metrics of writes', () => {
  it('a create writes PersonsCreated 1, in Count, in the local namespace with the service dimension', async () => {
    const points = await metricsWrittenBy(() =>
      suite.api.post(personBody('Metric', uniqueTag('Create'), uniqueEmail())),
    );
    expect(points).toEqual([
      {
        namespace: LOCAL_METRICS_NAMESPACE,
        name: 'PersonsCreated',
        unit: METRICS.PersonsCreated.unit,
        values: [1],
        dimensions: { service: 'person-service' },
      },
    ]);
  });

  it('a create refused for a taken email writes UniquenessConflicts with field=email, on its own, and no PersonsCreated', async () => {
    const email = uniqueEmail('taken');
    await suite.api.post(personBody('First', uniqueTag('Holder'), email));
    let status = 0;
    const points = await metricsWrittenBy(async () => {
      ({ status } = await suite.api.post(personBody('Second', uniqueTag('Holder'), email)));
    });
    expect(status).toBe(409);
    expect(points).toEqual([
      {
        namespace: LOCAL_METRICS_NAMESPACE,
        name: 'UniquenessConflicts',
        unit: METRICS.UniquenessConflicts.unit,
        values: [1],
        dimensions: { service: 'person-service', field: 'email' },
      },
    ]);
  });

  it('a create refused for a taken email-less name writes UniquenessConflicts with field=name', async () => {
    const last = uniqueTag('Named');
    await suite.api.post(personBody('Only', last));
    const points = await metricsWrittenBy(() => suite.api.post(personBody('Only', last)));
    expect(points.map(({ name, dimensions }) => ({ name, dimensions }))).toEqual([
      { name: 'UniquenessConflicts', dimensions: { service: 'person-service', field: 'name' } },
    ]);
  });

  it('a PATCH that stores a change writes PersonsPatched 1; one that changes nothing writes nothing', async () => {
    const person = (await suite.api.post(personBody('Patch', uniqueTag('Me'), uniqueEmail()))).body;
    const change = { local_reference_id: 'changed' };
    const changed = await metricsWrittenBy(() => suite.api.patch(person.id, change));
    expect(changed.map(({ name, unit, values }) => ({ name, unit, values }))).toEqual([
      { name: 'PersonsPatched', unit: METRICS.PersonsPatched.unit, values: [1] },
    ]);
    const same = await metricsWrittenBy(() => suite.api.patch(person.id, change));
    expect(same).toEqual([]);
  });

  it('a PATCH with a stale If-Match writes PreconditionFailures 1 and no PersonsPatched', async () => {
    const person = (await suite.api.post(personBody('Stale', uniqueTag('Tag'), uniqueEmail()))).body;
    await suite.api.patch(person.id, { local_reference_id: 'moved on' });
    let status = 0;
    const points = await metricsWrittenBy(async () => {
      ({ status } = await suite.api.patch(
        person.id,
        { local_reference_id: 'too late' },
        { headers: { 'if-match': '"1"' } },
      ));
    });
    expect(status).toBe(412);
    expect(points.map(({ name, unit, values }) => ({ name, unit, values }))).toEqual([
      { name: 'PreconditionFailures', unit: METRICS.PreconditionFailures.unit, values: [1] },
    ]);
  });

  it('a merge writes PersonsMerged 1; its preview writes nothing', async () => {
    const survivor = (await suite.api.post(personBody('Keep', uniqueTag('Merge'), uniqueEmail()))).body;
    const source = (await suite.api.post(personBody('Gone', uniqueTag('Merge'), uniqueEmail()))).body;
    const preview = await metricsWrittenBy(() =>
      suite.api.merge(survivor.id, { source: source.id, preview: true }),
    );
    expect(preview).toEqual([]);
    const merged = await metricsWrittenBy(() => suite.api.merge(survivor.id, { source: source.id }));
    expect(merged.map(({ name, values }) => ({ name, values }))).toEqual([
      { name: 'PersonsMerged', values: [1] },
    ]);
  });

  it('storage that stays throttled writes StorageUnavailable 1 with the 503', async () => {
    const remove = injectFaults(suite.table.client, (name) =>
      name === 'TransactWriteItemsCommand' ? sdkError('ThrottlingException') : undefined,
    );
    let status = 0;
    try {
      const points = await metricsWrittenBy(async () => {
        ({ status } = await suite.api.post(personBody('Busy', uniqueTag('Storage'), uniqueEmail())));
      });
      expect(status).toBe(503);
      expect(points.map(({ name, unit, values }) => ({ name, unit, values }))).toEqual([
        { name: 'StorageUnavailable', unit: METRICS.StorageUnavailable.unit, values: [1] },
      ]);
    } finally {
      remove();
    }
  });

  it('counts every write sent again in a race of containers as StorageRetries, and each PATCH once', async () => {
    const person = (await suite.api.post(personBody('Raced', uniqueTag('Person'), uniqueEmail()))).body;
    let retries = 0;
    const backoff = () => {
      retries += 1;
      return 5;
    };
    // Twelve containers, each with its own repository (no shared queue): their writes meet at the
    // version check, and the losers read again and retry.
    const containers = Array.from({ length: 12 }, () => personApi(testRepository(suite.table, { backoff })));
    const points = await metricsWrittenBy(() =>
      Promise.all(
        containers.map((api) =>
          api.patch(person.id, { Emails: { '@set': [{ email: uniqueEmail('race') }] } }),
        ),
      ),
    );
    expect(retries).toBeGreaterThan(0);
    expect(total(points, 'StorageRetries')).toBe(retries);
    expect(total(points, 'PersonsPatched')).toBe(12);
    expect(points.find(({ name }) => name === 'StorageRetries')?.unit).toBe(METRICS.StorageRetries.unit);
  });
});

describe('the metrics of keyed writes (Idempotency-Key)', () => {
  let raw: DynamoDBClient;
  beforeAll(() => {
    raw = new DynamoDBClient(localClientConfig(inject('dynamoEndpoint')));
  });
  afterAll(() => raw.destroy());

  const keyedCreate = () =>
    buildCreate({
      persons: testRepository(suite.table),
      idempotency: { store: idempotencyStore({ client: raw, tableName: suite.table.tableName }) },
    });
  const post = (create: ReturnType<typeof keyedCreate>, body: unknown, key: string) =>
    invoke(
      create,
      httpEvent({
        method: 'POST',
        route: '/Person',
        body,
        requester: 0,
        headers: { 'idempotency-key': key },
      }),
    );

  it('counts a create once: its replay writes no metric', async () => {
    const create = keyedCreate();
    const body = personBody('Keyed', uniqueTag('Create'), uniqueEmail());
    const key = uniqueTag('key');
    const first = await metricsWrittenBy(() => post(create, body, key));
    const replay = await metricsWrittenBy(() => post(create, body, key));
    expect(names(first)).toEqual(['PersonsCreated']);
    expect(replay).toEqual([]);
  });

  it('counts a refusal once, when it is decided: its replay writes no metric', async () => {
    const create = keyedCreate();
    const email = uniqueEmail('keyed-taken');
    await suite.api.post(personBody('Holder', uniqueTag('Keyed'), email));
    const body = personBody('Late', uniqueTag('Keyed'), email);
    const key = uniqueTag('key');
    const first = await metricsWrittenBy(() => post(create, body, key));
    const replay = await metricsWrittenBy(() => post(create, body, key));
    expect(first.map(({ name, values, dimensions }) => ({ name, values, field: dimensions.field }))).toEqual([
      { name: 'UniquenessConflicts', values: [1], field: 'email' },
    ]);
    expect(replay).toEqual([]);
  });
});

describe('the metrics of lists', () => {
  it('GET /Person writes ItemsReadPerList: the items its reads evaluated', async () => {
    for (let i = 0; i < 3; i++)
      await suite.api.post(personBody('Listed', uniqueTag('Person'), uniqueEmail()));
    const logged: { itemsRead?: number }[] = [];
    const list = buildList({
      personList: personList({
        ...suite.table,
        logger: {
          info: (_message, ...[cost]) => {
            logged.push(cost as { itemsRead?: number });
          },
        },
      }),
    });
    const points = await metricsWrittenBy(() =>
      invoke(list, httpEvent({ method: 'GET', route: '/Person', query: { limit: '2' } })),
    );
    expect(logged).toHaveLength(1);
    expect(logged[0]?.itemsRead).toBeGreaterThan(0);
    expect(points.map(({ name, unit, values }) => ({ name, unit, values }))).toEqual([
      { name: 'ItemsReadPerList', unit: METRICS.ItemsReadPerList.unit, values: [logged[0]?.itemsRead] },
    ]);
  });
});

/** A person's item as the table's stream carries it (its INSERT record). */
const insertOf = async (key: { pk: string; sk: string }) => {
  const { Item } = await suite.table.client.send(
    new GetCommand({ TableName: suite.table.tableName, Key: key, ConsistentRead: true }),
  );
  if (!Item) throw new Error(`No item ${key.pk} ${key.sk}`);
  return streamRecord('INSERT', { tableName: suite.table.tableName, item: Item });
};

describe('the metrics of enrichment', () => {
  let provider: Awaited<ReturnType<typeof startFixtureProvider>>;
  beforeAll(async () => {
    provider = await startFixtureProvider();
  });
  afterAll(() => provider.stop());

  /** The enrichment function as functions/enrich-person.ts composes it, on this file's table. */
  const enrichment = (apiKey = provider.apiKey) =>
    batchHandler(
      enrichPersons({
        provider: clearbitProvider({ url: provider.url, apiKey }),
        writer: socialAddressWriter(suite.table),
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
        attempts: 1,
      }),
    );
  const newPerson = async (email: string) => {
    const { body } = await suite.api.post(personBody('Jo', uniqueTag('Enriched'), email));
    return personEventRecord(suite.table, body.id);
  };

  it('counts a person the provider knows as EnrichmentFilled, one it does not as EnrichmentUnknown', async () => {
    const known = await newPerson('ada@example.org');
    const unknown = await newPerson(uniqueEmail('unknown'));
    const points = await metricsWrittenBy(() => enrichment()({ Records: [known, unknown] }, lambdaContext()));
    expect(points.map(({ name, unit, values }) => ({ name, unit, values }))).toEqual([
      { name: 'EnrichmentFilled', unit: METRICS.EnrichmentFilled.unit, values: [1] },
      { name: 'EnrichmentUnknown', unit: METRICS.EnrichmentUnknown.unit, values: [1] },
    ]);
  });

  it('counts a lookup the provider refuses (a key it does not take) as EnrichmentProviderErrors', async () => {
    const record = await newPerson('grace@example.org');
    let failures: unknown[] = [];
    const points = await metricsWrittenBy(async () => {
      ({ batchItemFailures: failures } = await enrichment('not-the-key')(
        { Records: [record] },
        lambdaContext(),
      ));
    });
    expect(failures).toHaveLength(1);
    expect(points.map(({ name, unit, values }) => ({ name, unit, values }))).toEqual([
      { name: 'EnrichmentProviderErrors', unit: METRICS.EnrichmentProviderErrors.unit, values: [1] },
    ]);
  });
});

describe('the metrics of a lookup the provider still has queued', () => {
  // A provider that takes every lookup and has not answered it yet (Clearbit's 202).
  let queued: Server;
  beforeAll(async () => {
    queued = createServer((_, response) => {
      response.writeHead(202, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((listening) => queued.listen(0, '127.0.0.1', listening));
  });
  afterAll(() => new Promise<void>((closed) => queued.close(() => closed())));

  it('counts no EnrichmentProviderErrors: the record comes again, and is counted once answered', async () => {
    const { body } = await suite.api.post(personBody('Jo', uniqueTag('Queued'), uniqueEmail('queued')));
    const enrichment = batchHandler(
      enrichPersons({
        provider: clearbitProvider({
          url: `http://127.0.0.1:${(queued.address() as AddressInfo).port}`,
          apiKey: 'any',
        }),
        writer: socialAddressWriter(suite.table),
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
        attempts: 1,
      }),
    );
    let failures: unknown[] = [];
    const points = await metricsWrittenBy(async () => {
      ({ batchItemFailures: failures } = await enrichment(
        { Records: [await personEventRecord(suite.table, body.id)] },
        lambdaContext(),
      ));
    });
    expect(failures).toHaveLength(1);
    expect(points).toEqual([]);
  });
});

describe('the metrics of the change feed', () => {
  it('counts each event appended as FeedLag, from its ChangeHistory entry, and one delivered again not twice', async () => {
    const { body: person } = await suite.api.post(personBody('Fed', uniqueTag('Feed'), uniqueEmail()));
    const { Items = [] } = await suite.table.client.send(
      new ScanCommand({ TableName: suite.table.tableName, ConsistentRead: true }),
    );
    const entry = Items.find((item) => item.type === 'ChangeHistory' && item.object_id === person.id);
    if (!entry) throw new Error('No ChangeHistory entry');
    const append = batchHandler(appendEvents(suite.table, { publish: async () => undefined }));
    const batch = { Records: [await insertOf({ pk: entry.pk, sk: entry.sk })] };
    const before = Date.now();
    const first = await metricsWrittenBy(() => append(batch, lambdaContext()));
    const after = Date.now();
    expect(first.map(({ name, unit }) => ({ name, unit }))).toEqual([
      { name: 'FeedLag', unit: METRICS.FeedLag.unit },
    ]);
    const [lag] = first[0]?.values ?? [];
    expect(lag).toBeGreaterThanOrEqual(before - Date.parse(entry.at));
    expect(lag).toBeLessThanOrEqual(after - Date.parse(entry.at));
    const again = await metricsWrittenBy(() => append(batch, lambdaContext()));
    expect(again).toEqual([]);
  });
});
