/**
 * `Idempotency-Key` on the write handlers (API.md 5.6), against DynamoDB Local: a retry answers the
 * first answer again and writes nothing, another request under the key is 422, one meeting the first
 * still running is 409 with Retry-After, answers expire, keys are scoped by requester and caller,
 * malformed keys are 400, and a 5xx is not remembered.
 */
import { DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { buildHandler as buildCreateNamePrefix } from '../../functions/create-name-prefix';
import { buildHandler as buildCreatePerson } from '../../functions/create-person';
import { buildHandler as buildUpdatePerson } from '../../functions/update-person';
import { idempotencyStore } from '../../lib/db/idempotency/idempotency-store';
import { documentClient } from '../../lib/db/table/client';
import { TIME_TO_LIVE_ATTRIBUTE } from '../../lib/db/table/definition';
import { vocabularyRepository } from '../../lib/db/vocabulary/vocabulary-repository';
import type { PersonRepository } from '../../lib/domain/ports/persons';
import type { IdempotencyOptions } from '../../lib/http/idempotency';
import { localClientConfig } from '../../lib/local/dynamo-local';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { createTestTable, type TestTable, testRepository } from '../support/dynamo';
import { type EventSpec, httpEvent, invoke, lambdaContext } from '../support/events';
import { failFirst, injectFaults, sdkError } from '../support/faults';
import { checkInvariants, type Item, scanAll } from '../support/invariants';

// biome-ignore lint/suspicious/noExplicitAny: answers are checked by the assertions themselves
type Json = Record<string, any>;

let table: TestTable;
let raw: DynamoDBClient;
let persons: PersonRepository;
let idempotency: IdempotencyOptions;

beforeAll(async () => {
  table = await createTestTable();
  raw = new DynamoDBClient(localClientConfig(inject('dynamoEndpoint')));
  persons = testRepository(table);
  idempotency = { store: idempotencyStore({ client: raw, tableName: table.tableName }) };
});

afterAll(async () => {
  expect(await checkInvariants(table)).toEqual([]);
  raw.destroy();
});

afterEach(() => {
  vi.useRealTimers();
});

const isRecord = (item: Item) => String(item.pk).startsWith('IDEMPOTENCY#');

/** Every stored item but the id counter and the idempotency records: what a write changes. */
const stored = async () =>
  (await scanAll(table))
    .filter((item) => item.pk !== 'COUNTER#ids' && !isRecord(item))
    .sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));

const records = async () => (await scanAll(table)).filter(isRecord);

interface Call {
  key?: string;
  requester?: number;
  headers?: Record<string, string>;
  /** An IAM caller in the request context (API Gateway's IAM authorizer). */
  caller?: string;
}

const withCaller = (event: APIGatewayProxyEventV2, caller: string | undefined) =>
  caller === undefined
    ? event
    : {
        ...event,
        requestContext: { ...event.requestContext, authorizer: { iam: { userArn: caller } } },
      };

const eventOf = (spec: EventSpec, { key, headers, caller }: Call) =>
  withCaller(
    httpEvent({ ...spec, headers: { ...(key === undefined ? {} : { 'idempotency-key': key }), ...headers } }),
    caller,
  );

const api = (repository: PersonRepository = persons, options: IdempotencyOptions = idempotency) => {
  const create = buildCreatePerson({ persons: repository, idempotency: options });
  const update = buildUpdatePerson({ persons: repository, idempotency: options });
  return {
    post: (body: unknown, call: Call = {}) =>
      invoke<Json>(
        create,
        eventOf({ method: 'POST', route: '/Person', body, requester: call.requester ?? 0 }, call),
      ),
    patch: (id: number, body: unknown, call: Call = {}) =>
      invoke<Json>(
        update,
        eventOf(
          {
            method: 'PATCH',
            route: '/Person/{id}',
            path: `/Person/${id}`,
            pathParameters: { id: String(id) },
            body,
            requester: call.requester ?? id,
          },
          call,
        ),
      ),
  };
};

/** The first answer as a retry gets it: the same, and marked as replayed. */
const replayOf = <A extends { headers: Record<string, unknown> }>(first: A): A => ({
  ...first,
  headers: { ...first.headers, 'idempotent-replayed': 'true' },
});

it('marks only a replayed answer as replayed', async () => {
  const key = uniqueTag('marked');
  const body = personBody('Mark', uniqueTag('Ed'), uniqueEmail('marked'));

  const first = await api().post(body, { key });
  const unkeyed = await api().post(personBody('Un', uniqueTag('Keyed'), uniqueEmail('unkeyed')));
  const again = await api().post(body, { key });

  expect(first.headers['idempotent-replayed']).toBeUndefined();
  expect(unkeyed.headers['idempotent-replayed']).toBeUndefined();
  expect(again.headers['idempotent-replayed']).toBe('true');
});

const newPerson = async () => {
  const created = await api().post(personBody('Ida', uniqueTag('Key'), uniqueEmail('ida')));
  expect(created.status).toBe(201);
  return created.body.id as number;
};

/**
 * A repository whose first transaction fails as DynamoDB's own 500 would (which DynamoDB Local cannot
 * be made to answer), through a client of its own: the idempotency records' client is untouched.
 */
const faultyRepository = () => {
  const client = documentClient(localClientConfig(inject('dynamoEndpoint')));
  const { fault } = failFirst('TransactWriteItemsCommand', 1, () => sdkError('InternalFailure'));
  const heal = injectFaults(client, fault);
  return { persons: testRepository({ client, tableName: table.tableName }), heal };
};

const phone = (number: string) => ({ PhoneNumbers: { '@set': [{ phone_number: number }] } });

describe('a retry with the same key', () => {
  it('answers a create with the first 201 (status, Location, ETag, body) and creates one person', async () => {
    const key = uniqueTag('create');
    const body = personBody('Ada', uniqueTag('Once'), uniqueEmail('once'));
    const first = await api().post(body, { key });
    expect(first.status).toBe(201);
    const before = await stored();

    const again = await api().post(body, { key });

    expect(again).toEqual(replayOf(first));
    expect(again.headers.location).toMatch(/\/Person\/\d+$/);
    expect(again.headers.etag).toBe('"1"');
    expect(await stored()).toEqual(before);
  });

  it('adds the phone of a retried PATCH once, and the version moves once', async () => {
    const id = await newPerson();
    const key = uniqueTag('patch');
    const first = await api().patch(id, phone('+44 20 7946 0001'), { key });
    expect(first.status).toBe(200);
    const before = await stored();

    const again = await api().patch(id, phone('+44 20 7946 0001'), { key });

    expect(again).toEqual(replayOf(first));
    const person = await persons.get(id);
    expect(person.CoreMetaData.version).toBe(2);
    expect(person.PhoneNumbers).toHaveLength(1);
    expect(await stored()).toEqual(before);
  });

  it('replays a refusal (4xx) too: a 409 stays the answer for its key, even once the request would pass', async () => {
    const email = uniqueEmail('taken');
    const holder = await api().post(personBody('Hold', uniqueTag('Er'), email));
    const key = uniqueTag('refused');
    const body = personBody('Late', uniqueTag('Comer'), email);
    const refused = await api().post(body, { key });
    expect(refused.status).toBe(409);
    expect(refused.body.type).toBe('/problems/duplicate-email');
    // The address is freed: the same request under a new key would now be created.
    const freed = await api().patch(holder.body.id, {
      Emails: { '@set': [{ id: holder.body.Emails['@set'][0].id }] },
    });
    expect(freed.status).toBe(200);
    const before = await stored();

    const again = await api().post(body, { key });

    expect(again).toEqual(replayOf(refused));
    expect(await stored()).toEqual(before);
  });

  it('answers a vocabulary create again too', async () => {
    const create = buildCreateNamePrefix({ vocabulary: vocabularyRepository(table), idempotency });
    const requester = await newPerson();
    const abbreviation = `${uniqueTag('A')}.`;
    const event = () =>
      eventOf(
        {
          method: 'POST',
          route: '/NamePrefix',
          body: { prefix: 'Keyed', abbreviation },
          requester,
        },
        { key: 'vocabulary-create' },
      );
    const first = await invoke(create, event());
    expect(first.status).toBe(201);
    const before = await stored();
    expect(await invoke(create, event())).toEqual(replayOf(first));
    expect(await stored()).toEqual(before);
  });
});

describe('the same key on another request', () => {
  it('is 422 idempotency-key-reused with another body, and writes nothing', async () => {
    const key = uniqueTag('body');
    const email = uniqueEmail('body');
    expect((await api().post(personBody('Bo', 'Dy', email), { key })).status).toBe(201);
    const before = await stored();

    const other = await api().post(personBody('Bo', 'Dy', uniqueEmail('other')), { key });

    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ type: '/problems/idempotency-key-reused', status: 422 });
    expect(await stored()).toEqual(before);
    // The first answer is still the key's: refusing the second did not drop it.
    expect((await api().post(personBody('Bo', 'Dy', email), { key })).status).toBe(201);
  });

  it('is 422 on another path of the same route', async () => {
    const [a, b] = [await newPerson(), await newPerson()];
    const key = uniqueTag('path');
    const requester = a;
    expect((await api().patch(a, phone('+1 555 0100'), { key, requester })).status).toBe(200);
    const before = await stored();

    const other = await api().patch(b, phone('+1 555 0100'), { key, requester });

    expect(other.status).toBe(422);
    expect(other.body.type).toBe('/problems/idempotency-key-reused');
    expect(await stored()).toEqual(before);
  });

  it('is 422 on another route (the key names one request, whatever function answers it)', async () => {
    const id = await newPerson();
    const key = uniqueTag('route');
    expect((await api().patch(id, phone('+1 555 0101'), { key, requester: id })).status).toBe(200);

    const other = await api().post(personBody('Ro', 'Ute', uniqueEmail('route')), { key, requester: id });

    expect(other.status).toBe(422);
    expect(other.body.type).toBe('/problems/idempotency-key-reused');
  });
});

describe('scope', () => {
  it('keeps one requester from getting the answer of another: the same key runs for each', async () => {
    const id = await newPerson();
    const other = await newPerson();
    const key = uniqueTag('shared');
    const first = await api().patch(id, phone('+1 555 0102'), { key, requester: id });
    const second = await api().patch(id, phone('+1 555 0103'), { key, requester: other });

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.etag).toBe('"3"');
    expect((await persons.get(id)).PhoneNumbers).toHaveLength(2);
  });

  it('keeps one authenticated caller from getting the answer of another under the same requester', async () => {
    const key = uniqueTag('caller');
    const requester = await newPerson();
    const first = await api().post(personBody('Ca', uniqueTag('Ller'), uniqueEmail('c1')), {
      key,
      requester,
      caller: 'arn:aws:iam::123456789012:user/importer-a',
    });
    const second = await api().post(personBody('Ca', uniqueTag('Ller'), uniqueEmail('c2')), {
      key,
      requester,
      caller: 'arn:aws:iam::123456789012:user/importer-b',
    });

    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).not.toBe(first.body.id);
  });
});

describe('a key that is not 1 to 255 visible ASCII characters', () => {
  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['non-ASCII', 'clé-1'],
    ['a control character', 'key\u0001one'],
    ['a tab', 'key\tone'],
    ['a space', 'key one'],
  ])('is 400 validation-error when %s, and nothing is written', async (_name, key) => {
    const before = await scanAll(table);
    const refused = await api().post(personBody('In', 'Valid', uniqueEmail('invalid')), { key });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ type: '/problems/validation-error' });
    expect(refused.body.detail).toContain('Idempotency-Key');
    expect((await scanAll(table)).filter((item) => item.pk !== 'COUNTER#ids')).toEqual(
      before.filter((item) => item.pk !== 'COUNTER#ids'),
    );
  });

  it('takes 255 visible characters, every one from ! to ~', async () => {
    const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    const key = `${visible}${visible}${visible}`.slice(0, 255);
    const created = await api().post(personBody('Vi', 'Sible', uniqueEmail('visible')), { key });
    expect(created.status).toBe(201);
  });
});

describe('in progress', () => {
  it('answers a second request while the first runs 409 request-in-progress with Retry-After', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    // The first create waits at the repository (after its record is in progress) until released.
    const slow: PersonRepository = {
      ...persons,
      create: async (...args) => {
        started();
        await gate;
        return persons.create(...args);
      },
    };
    const key = uniqueTag('busy');
    const body = personBody('Bu', 'Sy', uniqueEmail('busy'));
    const first = api(slow).post(body, { key });
    await running;

    const second = await api(slow).post(body, { key });

    expect(second.status).toBe(409);
    expect(second.body.type).toBe('/problems/request-in-progress');
    expect(second.headers['retry-after']).toBe('1');
    release();
    const answered = await first;
    expect(answered.status).toBe(201);
    // Once the first is answered, a retry gets its answer.
    expect(await api(slow).post(body, { key })).toEqual(replayOf(answered));
  });

  it("frees the key when the first request's invocation has run out of time (a crash holds it no longer)", async () => {
    // A first request that never answers, as one whose Lambda crashed, with 300 ms left to run.
    const hung: PersonRepository = { ...persons, create: () => new Promise(() => {}) };
    const key = uniqueTag('stale');
    const body = personBody('St', 'Ale', uniqueEmail('stale'));
    const event = eventOf({ method: 'POST', route: '/Person', body, requester: 0 }, { key });
    void invoke(buildCreatePerson({ persons: hung, idempotency }), event, {
      ...lambdaContext(),
      getRemainingTimeInMillis: () => 300,
    });
    await vi.waitFor(async () => expect(await records()).not.toEqual([]));
    expect((await api().post(body, { key })).status).toBe(409);

    await new Promise((wait) => setTimeout(wait, 400));

    const retried = await api().post(body, { key });
    expect(retried.status).toBe(201);
  });
});

describe('expiry', () => {
  it('forgets an answer after 24 hours: the same key and body then run again', async () => {
    const id = await newPerson();
    const key = uniqueTag('day');
    expect((await api().patch(id, phone('+1 555 0104'), { key })).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 23 * 3600_000 });
    expect((await api().patch(id, phone('+1 555 0104'), { key })).headers.etag).toBe('"2"');

    vi.setSystemTime(Date.now() + 3600_000 + 1_000);
    const later = await api().patch(id, phone('+1 555 0104'), { key });

    expect(later.status).toBe(200);
    expect(later.headers.etag).toBe('"3"');
    expect((await persons.get(id)).PhoneNumbers).toHaveLength(2);
  });

  it('sets the record to expire in 24 hours, in the attribute the table deletes by (TTL)', async () => {
    const key = uniqueTag('ttl');
    const before = Math.floor(Date.now() / 1000);
    expect((await api().post(personBody('Tt', 'El', uniqueEmail('ttl')), { key })).status).toBe(201);
    const expirations = (await records()).map((record) => record[TIME_TO_LIVE_ATTRIBUTE] as number);
    expect(expirations.some((at) => at >= before + 86_400 && at <= before + 86_402)).toBe(true);
  });
});

describe('the records', () => {
  it('each have a partition of their own (IDEMPOTENCY#<hash>), never one that every keyed write touches', async () => {
    const body = personBody('La', 'Yout', uniqueEmail('layout'));
    await api().post(body, { key: uniqueTag('layout-a') });
    await api().post(personBody('La', 'Yout', uniqueEmail('layout')), { key: uniqueTag('layout-b') });
    const found = await records();
    expect(found.length).toBeGreaterThanOrEqual(2);
    expect(new Set(found.map((record) => record.pk)).size).toBe(found.length);
    for (const record of found) {
      expect(record.pk).toMatch(/^IDEMPOTENCY#[A-Za-z0-9+/]{43}=$/);
      expect(record.sk).toBe('IDEMPOTENCY');
      expect(record.type).toBeUndefined();
    }
  });

  it('are in a table whose TTL is on, in the attribute the records expire by', async () => {
    const { TimeToLiveDescription } = await raw.send(
      new DescribeTimeToLiveCommand({ TableName: table.tableName }),
    );
    expect(TimeToLiveDescription).toMatchObject({
      TimeToLiveStatus: 'ENABLED',
      AttributeName: TIME_TO_LIVE_ATTRIBUTE,
    });
  });
});

describe('a 5xx', () => {
  it('is not remembered: the record is dropped and a retry with the key runs again', async () => {
    const faulty = faultyRepository();
    const key = uniqueTag('fault');
    const body = personBody('Fa', 'Ult', uniqueEmail('fault'));
    const failed = await api(faulty.persons).post(body, { key });
    expect(failed.status).toBe(500);
    faulty.heal();
    expect((await records()).filter((record) => record.status === 'INPROGRESS')).toEqual([]);

    const retried = await api().post(body, { key });

    expect(retried.status).toBe(201);
  });
});
