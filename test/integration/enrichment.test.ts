import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { socialAddressWriter } from '../../lib/db/person/write/social-address-writer';
import { historyKey, personKey } from '../../lib/db/table/keys';
import { clearbitProvider } from '../../lib/enrichment/clearbit';
import { enrichPersons } from '../../lib/enrichment/enrich-persons';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import type { TestTable } from '../support/dynamo';
import { personEventRecord, queueRecord } from '../support/events';
import { snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

const API_KEY = 'test-enrichment-key';
/** Small enough that a hung provider costs the run little, large enough for a loopback answer. */
const TIMEOUT_MS = 300;
const ATTEMPTS = 3;
const MAX_DELAY_MS = 5_000;

// ---------------------------------------------------------------------------------------------------
// The provider: a real HTTP server on loopback, answering each email as the test programs it.

interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as it is; anything else as JSON. */
  body?: unknown;
  /** Never answer: the connection stays open until the client gives up. */
  hang?: boolean;
  /** Answer only once this settles. */
  after?: Promise<unknown>;
}

interface ProviderRequest {
  method: string;
  path: string;
  email: string | null;
  authorization: string | undefined;
}

const found = (profile: Record<string, unknown>): Answer => ({
  status: 200,
  body: { id: randomUUID(), ...profile },
});

const JSMITH = {
  twitter: { handle: 'jsmith' },
  facebook: { handle: 'jsmith' },
  linkedin: { handle: 'in/jsmith' },
  github: { handle: null },
};

const JSMITH_ADDRESSES = {
  twitter: 'https://x.com/jsmith',
  facebook: 'https://www.facebook.com/jsmith',
  linkedin: 'https://www.linkedin.com/in/jsmith',
  youtube: null,
};

const startProvider = async () => {
  const programs = new Map<string, Answer[]>();
  const requests: ProviderRequest[] = [];
  const arrivals: { email: string; notify: () => void }[] = [];

  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://provider.test');
    const email = url.searchParams.get('email');
    requests.push({
      method: request.method ?? '',
      path: url.pathname,
      email,
      authorization: request.headers.authorization,
    });
    for (const arrival of arrivals.filter((waiting) => waiting.email === email)) arrival.notify();
    const program = programs.get(email ?? '') ?? [];
    const asked = requests.filter((seen) => seen.email === email).length;
    const next = program[Math.min(asked, program.length) - 1] ?? { status: 404, body: { error: {} } };
    if (next.after) await next.after;
    if (next.hang) return;
    const body =
      next.body === undefined ? '' : typeof next.body === 'string' ? next.body : JSON.stringify(next.body);
    response.writeHead(next.status ?? 200, { 'content-type': 'application/json', ...next.headers }).end(body);
  };

  const server: Server = createServer((request, response) => void answer(request, response));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    /** Answers the email's lookups in turn; the last answer repeats. Unprogrammed emails get 404. */
    program: (email: string, ...answers: Answer[]) => programs.set(email, answers),
    requestsFor: (email: string) => requests.filter((request) => request.email === email),
    requestCount: () => requests.length,
    /** Resolves when the provider is asked about the email. */
    asked: (email: string) =>
      new Promise<void>((notify) => {
        arrivals.push({ email, notify });
      }),
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
};

type Provider = Awaited<ReturnType<typeof startProvider>>;

// ---------------------------------------------------------------------------------------------------
// The handler under test, wired to the provider, the suite's table, a capturing logger and no waits.

interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  details: Record<string, unknown>;
}

const capturingLogger = () => {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (message: unknown, ...rest: unknown[]) => {
      const details = Object.assign({}, ...rest.filter((extra) => typeof extra === 'object'));
      lines.push({ level, message: String(message), details });
    };
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
};

interface WiringOptions {
  url?: string;
  table?: TestTable;
}

const enrichment = ({ url, table }: WiringOptions = {}) => {
  const { lines, logger } = capturingLogger();
  const sleeps: number[] = [];
  const handler = enrichPersons({
    provider: clearbitProvider({ url: url ?? provider.url, apiKey: API_KEY, timeoutMs: TIMEOUT_MS }),
    writer: socialAddressWriter(table ?? suite.table),
    logger,
    attempts: ATTEMPTS,
    maxDelayMs: MAX_DELAY_MS,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return {
    logs: lines,
    sleeps,
    handle: (...records: SQSRecord[]): Promise<SQSBatchResponse> => handler({ Records: records }),
  };
};

// ---------------------------------------------------------------------------------------------------
// Persons and the queue messages of their events, as the bus's rule would put them on the queue.

const eventMessage = (id: number, version = 1) => personEventRecord(suite.table, id, { version });

const create = async (body: unknown) => {
  const { status, body: person } = await suite.api.post(body);
  expect(status).toBe(201);
  return person;
};

/** A new person with the email, and the message of its `person.created`. */
const newPerson = async (email: string, extra: Record<string, unknown> = {}) => {
  const person = await create({ ...personBody('Jo', uniqueTag('Smith'), email), ...extra });
  return { id: person.id as number, record: await eventMessage(person.id) };
};

const stored = async (id: number) => {
  const { status, body, headers } = await suite.api.get(id);
  expect(status).toBe(200);
  return { ...body, etag: headers.etag };
};

const auditEntries = async (id: number) => {
  const { Items = [] } = await suite.table.client.send(
    new QueryCommand({
      TableName: suite.table.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
      ExpressionAttributeValues: { ':pk': personKey(id).pk, ':audit': 'AUDIT#' },
      ConsistentRead: true,
    }),
  );
  return Items;
};

const enrichEntries = async (id: number) =>
  (await auditEntries(id)).filter((entry) => entry.action === 'enrich');

const expectEnrichedOnce = async (id: number, version: number) => {
  const entries = await enrichEntries(id);
  expect(entries).toHaveLength(1);
  expect(entries[0]).toMatchObject({
    ...historyKey('Person', id, version),
    type: 'ChangeHistory',
    endpoint: 'Person',
    object_id: id,
    action: 'enrich',
    requester: null,
    changed: ['/SocialAddresses'],
  });
};

const noFailures: SQSBatchResponse = { batchItemFailures: [] };
const failureOf = (record: SQSRecord): SQSBatchResponse => ({
  batchItemFailures: [{ itemIdentifier: record.messageId }],
});

const EMPTY_ADDRESSES = { twitter: null, facebook: null, linkedin: null, youtube: null };

let provider: Provider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(async () => {
  await provider?.stop();
});

// ---------------------------------------------------------------------------------------------------

describe('enrichment: the provider knows the person (200)', () => {
  it('fills the null SocialAddresses with profile URLs, bumps the version and writes an enrich AuditEntry', async () => {
    const email = uniqueEmail('found');
    provider.program(email, found(JSMITH));
    const { id, record } = await newPerson(email);
    const { handle } = enrichment();

    expect(await handle(record)).toEqual(noFailures);

    const person = await stored(id);
    expect(person.SocialAddresses).toEqual({ '@type': 'SocialAddresses', ...JSMITH_ADDRESSES });
    expect(person.CoreMetaData).toMatchObject({ version: 2, modified_by: null });
    expect(person.etag).toBe('"2"');
    await expectEnrichedOnce(id, 2);
  });

  it('asks GET /v2/people/find with the primary email as ?email= and the key as a bearer token', async () => {
    const email = uniqueEmail('q+uery');
    const other = uniqueEmail('secondary');
    provider.program(email, found(JSMITH));
    const { record } = await newPerson(email, {
      Emails: { '@type': 'Emails', '@set': [{ email: other }, { email, primary: true }] },
    });

    await enrichment().handle(record);

    expect(provider.requestsFor(email)).toEqual([
      { method: 'GET', path: '/v2/people/find', email, authorization: `Bearer ${API_KEY}` },
    ]);
    expect(provider.requestsFor(other)).toEqual([]);
  });

  it('keeps a SocialAddresses value the client set and fills only the others', async () => {
    const email = uniqueEmail('kept');
    provider.program(email, found(JSMITH));
    const { id, record } = await newPerson(email, { SocialAddresses: { twitter: 'https://x.com/own' } });

    expect(await enrichment().handle(record)).toEqual(noFailures);

    expect((await stored(id)).SocialAddresses).toEqual({
      '@type': 'SocialAddresses',
      ...JSMITH_ADDRESSES,
      twitter: 'https://x.com/own',
    });
    await expectEnrichedOnce(id, 2);
  });

  it('writes nothing when every field the provider knows is set already', async () => {
    const email = uniqueEmail('allset');
    provider.program(email, found({ twitter: { handle: 'jsmith' } }));
    const { id, record } = await newPerson(email, { SocialAddresses: { twitter: 'https://x.com/own' } });
    const before = await snapshot(suite.table);

    expect(await enrichment().handle(record)).toEqual(noFailures);

    expect(await snapshot(suite.table)).toEqual(before);
    expect((await stored(id)).CoreMetaData.version).toBe(1);
  });

  it('writes nothing when the provider knows the person but none of the four profiles', async () => {
    const email = uniqueEmail('nosocial');
    provider.program(email, found({ github: { handle: 'jsmith' }, name: { fullName: 'Jo Smith' } }));
    const { record } = await newPerson(email);
    const before = await snapshot(suite.table);

    expect(await enrichment().handle(record)).toEqual(noFailures);

    expect(await snapshot(suite.table)).toEqual(before);
  });
});

describe('enrichment: the provider has nothing (404)', () => {
  it('writes nothing and is done with the record', async () => {
    const email = uniqueEmail('unknown');
    provider.program(email, { status: 404, body: { error: { type: 'unknown_record' } } });
    const { record } = await newPerson(email);
    const before = await snapshot(suite.table);
    const { handle, sleeps } = enrichment();

    expect(await handle(record)).toEqual(noFailures);

    expect(await snapshot(suite.table)).toEqual(before);
    expect(provider.requestsFor(email)).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

describe('enrichment: retryable answers are retried, then reported as batch item failures', () => {
  it.each([
    ['202 (lookup queued)', { status: 202, body: {} }],
    ['429 (rate limited)', { status: 429, body: { error: {} } }],
    ['500', { status: 500, body: { error: {} } }],
    ['503', { status: 503, body: 'Service Unavailable' }],
    ['a hung connection', { hang: true }],
  ] as [string, Answer][])(
    'retries %s with a wait between lookups, then reports the record',
    async (_, answer) => {
      const email = uniqueEmail('retry');
      provider.program(email, answer);
      const { record } = await newPerson(email);
      const before = await snapshot(suite.table);
      const { handle, sleeps, logs } = enrichment();

      expect(await handle(record)).toEqual(failureOf(record));

      expect(provider.requestsFor(email)).toHaveLength(ATTEMPTS);
      expect(sleeps).toHaveLength(ATTEMPTS - 1);
      for (const ms of sleeps) expect(ms).toBeGreaterThan(0);
      expect(logs.some((line) => line.level === 'warn' || line.level === 'error')).toBe(true);
      expect(await snapshot(suite.table)).toEqual(before);
    },
  );

  it('backs off longer with each retry when the provider names no delay', async () => {
    const email = uniqueEmail('backoff');
    provider.program(email, { status: 500 });
    const { record } = await newPerson(email);
    const { handle, sleeps } = enrichment();

    await handle(record);

    expect(sleeps).toHaveLength(2);
    expect(sleeps[1]).toBeGreaterThan(sleeps[0] as number);
  });

  it('retries a refused connection, then reports the record', async () => {
    const closed = await startProvider();
    await closed.stop();
    const { record } = await newPerson(uniqueEmail('refused'));
    const { handle, sleeps } = enrichment({ url: closed.url });

    expect(await handle(record)).toEqual(failureOf(record));
    expect(sleeps).toHaveLength(ATTEMPTS - 1);
  });

  it('gives up on a hung connection within the timeout of each attempt', async () => {
    const email = uniqueEmail('hung');
    provider.program(email, { hang: true });
    const { record } = await newPerson(email);
    const started = Date.now();

    await enrichment().handle(record);

    expect(Date.now() - started).toBeLessThan(ATTEMPTS * TIMEOUT_MS + 2_000);
  });

  it.each([
    ['delay-seconds', 3_000, () => '3'],
    // An HTTP-date has whole seconds: this one is at most 4 s away, and a little less by the time it is read.
    ['an HTTP-date', 4_000, () => new Date(Math.floor(Date.now() / 1000) * 1000 + 4_000).toUTCString()],
  ])('waits as long as a 429 Retry-After in %s asks', async (_, ms, retryAfter) => {
    const email = uniqueEmail('ratelimit');
    provider.program(email, { status: 429, headers: { 'retry-after': retryAfter() } });
    const { record } = await newPerson(email);
    const { handle, sleeps } = enrichment();

    expect(await handle(record)).toEqual(failureOf(record));

    expect(sleeps).toHaveLength(ATTEMPTS - 1);
    for (const slept of sleeps) {
      expect(slept).toBeGreaterThan(ms - 1_500);
      expect(slept).toBeLessThanOrEqual(ms);
    }
  });

  it('honours a 503 Retry-After as well', async () => {
    const email = uniqueEmail('unavailable');
    provider.program(email, { status: 503, headers: { 'retry-after': '2' } });
    const { record } = await newPerson(email);
    const { handle, sleeps } = enrichment();

    await handle(record);

    expect(sleeps).toEqual([2_000, 2_000]);
  });

  it('never waits longer than the longest wait, whatever Retry-After asks', async () => {
    const email = uniqueEmail('patience');
    provider.program(email, { status: 429, headers: { 'retry-after': '3600' } });
    const { record } = await newPerson(email);
    const { handle, sleeps } = enrichment();

    await handle(record);

    expect(sleeps).toEqual([MAX_DELAY_MS, MAX_DELAY_MS]);
  });

  it.each([
    ['202', { status: 202, body: {} }],
    ['429', { status: 429, headers: { 'retry-after': '1' } }],
    ['500', { status: 500 }],
    ['a hung connection', { hang: true }],
  ] as [string, Answer][])('fills the person when a retry after %s finds it', async (_, first) => {
    const email = uniqueEmail('eventually');
    provider.program(email, first, found(JSMITH));
    const { id, record } = await newPerson(email);

    expect(await enrichment().handle(record)).toEqual(noFailures);

    expect(provider.requestsFor(email)).toHaveLength(2);
    expect((await stored(id)).SocialAddresses).toMatchObject(JSMITH_ADDRESSES);
    await expectEnrichedOnce(id, 2);
  });
});

describe('enrichment: configuration errors', () => {
  it.each([401, 402, 403])('logs %d as a configuration error without asking again', async (status) => {
    const email = uniqueEmail('config');
    provider.program(email, { status, body: { error: { type: 'auth_required' } } });
    const { record } = await newPerson(email);
    const before = await snapshot(suite.table);
    const { handle, logs, sleeps } = enrichment();

    await handle(record);

    expect(provider.requestsFor(email)).toHaveLength(1);
    expect(sleeps).toEqual([]);
    const errors = logs.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/configuration/i);
    expect(String(errors[0]?.details.reason)).toContain(String(status));
    expect(await snapshot(suite.table)).toEqual(before);
  });
});

describe('enrichment: a malformed provider answer', () => {
  it.each([
    ['a body that is not JSON', '<html>Bad gateway</html>'],
    ['an empty body', ''],
    ['JSON null', 'null'],
    ['a JSON array', [JSMITH]],
    ['a JSON string', '"jsmith"'],
    ['a handle that is a number', { twitter: { handle: 42 } }],
    ['a profile that is a string', { twitter: 'jsmith' }],
  ] as [string, unknown][])('with %s is logged as a provider error and writes nothing', async (_, body) => {
    const email = uniqueEmail('malformed');
    provider.program(email, { status: 200, body });
    const { record } = await newPerson(email);
    const before = await snapshot(suite.table);
    const { handle, logs } = enrichment();

    expect(await handle(record)).toEqual(noFailures);

    // A warning, not an error: the function's error alarm is for what an operator must fix now.
    expect(logs.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'enrichment provider error',
    ]);
    expect(logs.filter((line) => line.level === 'error')).toEqual([]);
    expect(await snapshot(suite.table)).toEqual(before);
  });

  it('drops an unsafe handle and fills the safe ones', async () => {
    const email = uniqueEmail('unsafe');
    provider.program(
      email,
      found({ twitter: { handle: 'javascript:alert(1)' }, linkedin: { handle: 'in/jsmith' } }),
    );
    const { id, record } = await newPerson(email);

    await enrichment().handle(record);

    expect((await stored(id)).SocialAddresses).toMatchObject({
      twitter: null,
      linkedin: 'https://www.linkedin.com/in/jsmith',
    });
  });
});

describe('enrichment: concurrent changes', () => {
  it('keeps a PATCH that lands while the provider is answering, and counts both in the version', async () => {
    const email = uniqueEmail('race');
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    provider.program(email, { ...found(JSMITH), after: gate });
    const { id, record } = await newPerson(email);
    const asked = provider.asked(email);

    const enriching = enrichment().handle(record);
    await asked;
    const patched = await suite.api.patch(id, {
      local_reference_id: 'patched-meanwhile',
      SocialAddresses: { linkedin: 'https://www.linkedin.com/in/own' },
    });
    expect(patched.status).toBe(200);
    release();
    expect(await enriching).toEqual(noFailures);

    const person = await stored(id);
    expect(person.local_reference_id).toBe('patched-meanwhile');
    expect(person.SocialAddresses).toEqual({
      '@type': 'SocialAddresses',
      ...JSMITH_ADDRESSES,
      linkedin: 'https://www.linkedin.com/in/own',
    });
    expect(person.CoreMetaData.version).toBe(3);
    expect((await auditEntries(id)).map((entry) => entry.action)).toEqual(['create', 'update', 'enrich']);
    await expectEnrichedOnce(id, 3);
  });

  it('re-reads and keeps a PATCH that lands between its read and its conditional write', async () => {
    const email = uniqueEmail('conflict');
    provider.program(email, found(JSMITH));
    const { id, record } = await newPerson(email);
    let patched = false;
    const { client } = suite.table;
    const send = client.send.bind(client);
    // The real table, with a PATCH slipped in just before enrichment's first transaction reaches it.
    const interleaved = Object.create(client, {
      send: {
        value: async (command: Parameters<typeof send>[0]) => {
          if (command instanceof TransactWriteCommand && !patched) {
            patched = true;
            const { status } = await suite.api.patch(id, {
              SocialAddresses: { twitter: 'https://x.com/own' },
            });
            expect(status).toBe(200);
          }
          return send(command);
        },
      },
    }) as typeof client;
    const { handle } = enrichment({ table: { client: interleaved, tableName: suite.table.tableName } });

    expect(await handle(record)).toEqual(noFailures);

    expect(patched).toBe(true);
    const person = await stored(id);
    expect(person.SocialAddresses).toEqual({
      '@type': 'SocialAddresses',
      ...JSMITH_ADDRESSES,
      twitter: 'https://x.com/own',
    });
    expect(person.CoreMetaData.version).toBe(3);
    await expectEnrichedOnce(id, 3);
  });
});

describe('enrichment: idempotency', () => {
  it('writes once when the same record is delivered again', async () => {
    const email = uniqueEmail('twice');
    provider.program(email, found(JSMITH));
    const { id, record } = await newPerson(email);
    const { handle } = enrichment();

    expect(await handle(record)).toEqual(noFailures);
    expect(await handle(record)).toEqual(noFailures);

    expect((await stored(id)).CoreMetaData.version).toBe(2);
    await expectEnrichedOnce(id, 2);
  });

  it('writes once when the same record is twice in one batch', async () => {
    const email = uniqueEmail('batchtwice');
    provider.program(email, found(JSMITH));
    const { id, record } = await newPerson(email);

    expect(await enrichment().handle(record, record)).toEqual(noFailures);

    expect((await stored(id)).CoreMetaData.version).toBe(2);
    await expectEnrichedOnce(id, 2);
  });

  it('writes once when two deliveries of the record run at the same time', async () => {
    const email = uniqueEmail('parallel');
    provider.program(email, found(JSMITH));
    const { id, record } = await newPerson(email);

    const results = await Promise.all([enrichment().handle(record), enrichment().handle(record)]);

    expect(results).toEqual([noFailures, noFailures]);
    expect((await stored(id)).CoreMetaData.version).toBe(2);
    await expectEnrichedOnce(id, 2);
  });

  it('does not enrich again after a client cleared an enriched field', async () => {
    const email = uniqueEmail('cleared');
    provider.program(email, found(JSMITH));
    const { id, record } = await newPerson(email);
    const { handle } = enrichment();
    await handle(record);
    await suite.api.patch(id, { SocialAddresses: { twitter: null } });

    expect(await handle(record)).toEqual(noFailures);

    const person = await stored(id);
    expect(person.SocialAddresses.twitter).toBeNull();
    expect(person.CoreMetaData.version).toBe(3);
    await expectEnrichedOnce(id, 2);
  });
});

describe('enrichment: which events it acts on', () => {
  it('skips a person without an email, without asking the provider', async () => {
    const person = await create(personBody('No', uniqueTag('Email')));
    const record = await eventMessage(person.id);
    const before = await snapshot(suite.table);
    const asked = provider.requestCount();
    const { handle, logs } = enrichment();

    expect(await handle(record)).toEqual(noFailures);

    expect(provider.requestCount()).toBe(asked);
    expect(logs.filter((line) => line.level !== 'info')).toEqual([]);
    expect(await snapshot(suite.table)).toEqual(before);
    expect((await stored(person.id)).SocialAddresses).toEqual({
      '@type': 'SocialAddresses',
      ...EMPTY_ADDRESSES,
    });
  });

  it('ignores a person.updated, which its rule does not send', async () => {
    const email = uniqueEmail('updated');
    provider.program(email, found(JSMITH));
    const { id } = await newPerson(email);
    await suite.api.patch(id, { local_reference_id: 'changed' });

    expect(await enrichment().handle(await eventMessage(id, 2))).toEqual(noFailures);

    expect(provider.requestsFor(email)).toEqual([]);
    expect(await enrichEntries(id)).toEqual([]);
  });

  it('ignores the person.enriched event of its own write', async () => {
    const email = uniqueEmail('mark');
    provider.program(email, found(JSMITH));
    const { id, record } = await newPerson(email);
    const { handle } = enrichment();
    await handle(record);

    expect(await handle(await eventMessage(id, 2))).toEqual(noFailures);

    expect(provider.requestsFor(email)).toHaveLength(1);
  });

  it('is done with the person.created of an id that holds no person, without asking the provider', async () => {
    const asked = provider.requestCount();
    const record = queueRecord({
      id: 999_999_001,
      type: 'person.created',
      endpoint: 'Person',
      object_id: 999_999_002,
      version: 1,
      changed: [],
      requester: null,
      time: new Date().toISOString(),
    });

    expect(await enrichment().handle(record)).toEqual(noFailures);

    expect(provider.requestCount()).toBe(asked);
  });

  it.each([
    ['no JSON', 'not json'],
    ['no event of the feed', JSON.stringify({ 'detail-type': 'person.created', detail: { id: '1' } })],
    ['a detail-type other than its event', 'MISMATCH'],
  ])('reports a message that is %s alone, and enriches the others', async (_, body) => {
    const succeeding = uniqueEmail('beside-broken');
    provider.program(succeeding, found(JSMITH));
    const good = await newPerson(succeeding);
    const mismatch = JSON.parse(good.record.body);
    const broken = {
      ...good.record,
      messageId: randomUUID(),
      body: body === 'MISMATCH' ? JSON.stringify({ ...mismatch, 'detail-type': 'person.updated' }) : body,
    };
    const { handle, logs } = enrichment();

    expect(await handle(broken, good.record)).toEqual(failureOf(broken));

    expect((await stored(good.id)).SocialAddresses).toMatchObject(JSMITH_ADDRESSES);
    expect(logs.filter(({ level }) => level === 'error').map(({ message }) => message)).toEqual([
      'a queue message is not an event of the change feed',
    ]);
  });

  it('reports only the failing message of a batch and enriches the others', async () => {
    const failing = uniqueEmail('failing');
    const succeeding = uniqueEmail('succeeding');
    provider.program(failing, { status: 500 });
    provider.program(succeeding, found(JSMITH));
    const first = await newPerson(failing);
    const second = await newPerson(succeeding);
    const noEmail = await create(personBody('Batch', uniqueTag('NoEmail')));
    const third = await eventMessage(noEmail.id);

    expect(await enrichment().handle(first.record, second.record, third)).toEqual(failureOf(first.record));

    expect((await stored(first.id)).SocialAddresses).toMatchObject(EMPTY_ADDRESSES);
    expect((await stored(second.id)).SocialAddresses).toMatchObject(JSMITH_ADDRESSES);
    await expectEnrichedOnce(second.id, 2);
  });
});
