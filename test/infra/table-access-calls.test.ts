/**
 * The grants against the code that uses them: each function's operations run against DynamoDB Local
 * (the handler modules themselves, as deployed, with their sample-event shapes) while every DynamoDB
 * call is recorded, and then
 * - every call must be allowed by that function's rules in TABLE_ACCESS, evaluated as IAM would
 *   (action, table or index, every leading key against the partition patterns, and transaction-only
 *   rules only inside TransactWriteItems): a repository that starts a new call fails here before a
 *   deploy would answer it with AccessDenied;
 * - every action a rule grants on every partition it names must be used by some call: a grant left
 *   behind when a call goes away, or written wider than the code needs, fails here.
 * permissions.test.ts pins the same grants from the synthesized template, written out by hand.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type {
  APIGatewayProxyStructuredResultV2,
  CloudFormationCustomResourceEvent,
  Context,
  SQSEvent,
} from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { buildHandler as backfillHandler } from '../../infra/handlers/backfill-postings';
import { buildHandler as seedHandler } from '../../infra/handlers/seed-reference-data';
import {
  BINDING_ACCESS,
  changeCountersOf,
  PERSON_COUNTER_SHARDS,
  TABLE_ACCESS,
  type TableAccessRule,
  tableAccessOf,
} from '../../infra/table-access';
import { useLocalBus } from '../../lib/bus/publisher';
import { pairStore } from '../../lib/db/duplicates/pair-store';
import { feedLog } from '../../lib/db/feed/feed-log';
import { changeHistory } from '../../lib/db/history/change-history';
import { fromPersonItem } from '../../lib/db/person/person-items';
import { repairPostings } from '../../lib/db/person/write/backfill';
import { socialAddressWriter } from '../../lib/db/person/write/social-address-writer';
import { personRepository } from '../../lib/db/person-repository';
import { documentClient } from '../../lib/db/table/client';
import { PARTITION_KEY, tableDefinition } from '../../lib/db/table/definition';
import {
  localReferenceKey,
  mergedFromKey,
  personKey,
  postingCountsCompleteKey,
  postingKey,
  postingsPendingKey,
} from '../../lib/db/table/keys';
import { vocabularyRepository } from '../../lib/db/vocabulary/vocabulary-repository';
import { laneStore } from '../../lib/db/webhooks/lane-store';
import { subscriptionStore } from '../../lib/db/webhooks/subscription-store';
import { NO_ORIGIN, RESOURCE_TYPES, type ResourceType } from '../../lib/domain/change-history';
import { encodeFeedCursor, FEED_START, feedEventOf } from '../../lib/domain/feed';
import { replaySubscriptionHandler } from '../../lib/http/delivery-handlers';
import { decideDuplicateHandler } from '../../lib/http/duplicate-handlers';
import {
  createPersonHandler,
  erasePersonHandler,
  mergePersonHandler,
  unmergePersonHandler,
  updatePersonHandler,
} from '../../lib/http/person-handlers';
import {
  createSubscriptionHandler,
  deleteSubscriptionHandler,
  rotateSubscriptionHandler,
  updateSubscriptionHandler,
} from '../../lib/http/subscription-handlers';
import { vocabularyCreateHandler, vocabularyUpdateHandler } from '../../lib/http/vocabulary-handlers';
import { startLocalBus } from '../../lib/local/bus';
import { localClientConfig, useLocalTable } from '../../lib/local/dynamo-local';
import { FEED_CURSOR_KEY_ENV } from '../../lib/secrets';
import { DELIVER_FUNCTION_ENV } from '../../lib/webhooks/lane-invoker';
import { localSecretBox, WEBHOOK_SECRET_KEY_ENV } from '../../lib/webhooks/secret-box';
import { SWEEP_DETAIL_TYPE } from '../../lib/webhooks/wake-lanes';
import { seedPersons } from '../bench/seed';
import { createTestTable, forgetMergeRecord } from '../support/dynamo';
import { type EventSpec, httpEvent, lambdaContext, personEventRecord, streamRecord } from '../support/events';
import { distinctEmails, examplePair } from '../support/fixtures';

/** One authorization DynamoDB asks IAM for: an action on the table or an index, for these partitions. */
interface Request {
  action: string;
  index?: string;
  partitions: string[];
  transactional: boolean;
}

type Input = Record<string, Record<string, unknown>> & Record<string, unknown>;

const pkOf = (item: unknown) => (item as Record<string, string>)[PARTITION_KEY] as string;

/** The partition a table Query reads: the value its key condition gives the partition key. */
const queriedPartition = ({ KeyConditionExpression, ExpressionAttributeValues }: Input) => {
  const name = new RegExp(`^\\s*${PARTITION_KEY}\\s*=\\s*(:\\w+)`).exec(String(KeyConditionExpression))?.[1];
  if (!name) throw new Error(`Cannot read the partition of the key condition ${KeyConditionExpression}`);
  return String(ExpressionAttributeValues?.[name]);
};

const TRANSACT_PARTS: Record<string, [string, (part: Input) => string]> = {
  Put: ['PutItem', (part) => pkOf(part.Item)],
  Update: ['UpdateItem', (part) => pkOf(part.Key)],
  Delete: ['DeleteItem', (part) => pkOf(part.Key)],
  ConditionCheck: ['ConditionCheckItem', (part) => pkOf(part.Key)],
};

/** The partition of a key or item as the raw client sends it (`{ pk: { S: ... } }`). */
const rawPkOf = (item: unknown) => (item as Record<string, { S: string }>)[PARTITION_KEY]?.S as string;

/** What IAM authorizes for one command (of the document client, or the raw one Powertools sends). */
const requestsOf = (command: unknown): Request[] => {
  const input = (command as { input: Input }).input;
  const single = (action: string, partitions: string[]): Request[] => [
    { action, partitions, transactional: false },
  ];
  if (command instanceof GetItemCommand) return single('GetItem', [rawPkOf(input.Key)]);
  if (command instanceof PutItemCommand) return single('PutItem', [rawPkOf(input.Item)]);
  if (command instanceof UpdateItemCommand) return single('UpdateItem', [rawPkOf(input.Key)]);
  if (command instanceof DeleteItemCommand) return single('DeleteItem', [rawPkOf(input.Key)]);
  if (command instanceof GetCommand) return single('GetItem', [pkOf(input.Key)]);
  if (command instanceof PutCommand) return single('PutItem', [pkOf(input.Item)]);
  if (command instanceof UpdateCommand) return single('UpdateItem', [pkOf(input.Key)]);
  if (command instanceof DeleteCommand) return single('DeleteItem', [pkOf(input.Key)]);
  if (command instanceof BatchGetCommand)
    return Object.values(input.RequestItems as Record<string, { Keys: unknown[] }>).flatMap(({ Keys }) =>
      single('BatchGetItem', Keys.map(pkOf)),
    );
  if (command instanceof BatchWriteCommand) return single('BatchWriteItem', []);
  if (command instanceof ScanCommand) return single('Scan', []);
  if (command instanceof QueryCommand)
    return input.IndexName
      ? [{ action: 'Query', index: String(input.IndexName), partitions: [], transactional: false }]
      : single('Query', [queriedPartition(input)]);
  if (command instanceof TransactWriteCommand)
    return (input.TransactItems as unknown as Input[]).map((item) => {
      const [kind, part] = Object.entries(item)[0] as [string, Input];
      const [action, partition] = TRANSACT_PARTS[kind] ?? [kind, () => ''];
      return { action, partitions: [partition(part)], transactional: true };
    });
  return single((command as object).constructor.name, []);
};

/** IAM's `StringLike`: `*` is any run of characters, everything else itself. */
const like = (pattern: string, value: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`).test(value);

const allows = (rule: TableAccessRule, request: Request) =>
  rule.actions.some((action) => action === request.action) &&
  rule.index === request.index &&
  (!rule.transactional || request.transactional) &&
  (rule.partitions === undefined ||
    request.partitions.every((partition) => rule.partitions?.some((pattern) => like(pattern, partition))));

/**
 * The change counters of an endpoint, and the person counters a create adds to, count as one
 * partition each for "is it used": which shard a write lands on depends on an id, and the rules name
 * every shard so that any may be written.
 */
const SHARD_GROUPS = new Map<string, string>([
  ...RESOURCE_TYPES.flatMap((endpoint: ResourceType) =>
    changeCountersOf(endpoint).map((pk): [string, string] => [pk, `change counters of ${endpoint}`]),
  ),
  ...PERSON_COUNTER_SHARDS.map((pk): [string, string] => [pk, 'person counters']),
]);

/** Every action on every partition a function's rules grant, as `action on partition (tx)`. */
const grantsOf = (
  handler: string,
  access: Readonly<Record<string, readonly TableAccessRule[]>> = TABLE_ACCESS,
) =>
  (access[handler] ?? []).flatMap((rule) =>
    rule.actions.flatMap((action) =>
      (rule.partitions ?? [`index ${rule.index}`]).map((partition) => ({
        rule,
        action,
        partition,
        name: `${action} on ${SHARD_GROUPS.get(partition) ?? partition}${rule.transactional ? ' (tx)' : ''}`,
      })),
    ),
  );

const uses = (grant: ReturnType<typeof grantsOf>[number], request: Request) =>
  grant.action === request.action &&
  allows(grant.rule, request) &&
  (grant.rule.partitions === undefined ||
    request.partitions.some(
      (partition) =>
        like(grant.partition, partition) ||
        (SHARD_GROUPS.has(grant.partition) &&
          SHARD_GROUPS.get(grant.partition) === SHARD_GROUPS.get(partition)),
    ));

/** The document client's own send, for a fault that lets every other call through. */
const passThrough = DynamoDBDocumentClient.prototype.send;
const send = vi.spyOn(DynamoDBDocumentClient.prototype, 'send');
/** The raw client's calls: Powertools' idempotency records. */
const sendRaw = vi.spyOn(DynamoDBClient.prototype, 'send');
/** Handler name → the requests its operations made. */
const recorded = new Map<string, Request[]>();

/** Runs `operation` as `handler`, recording what it asks DynamoDB for. */
const as = async <T>(handler: string, operation: () => Promise<T>): Promise<T> => {
  send.mockClear();
  sendRaw.mockClear();
  const result = await operation();
  const requests = [...send.mock.calls, ...sendRaw.mock.calls].flatMap(([command]) => requestsOf(command));
  recorded.set(handler, [...(recorded.get(handler) ?? []), ...requests]);
  return result;
};

type Body = Record<string, Json>;
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely; statuses are asserted
type Json = any;

/** Invokes a handler module (functions/<handler>.ts) with an HTTP API event, as `handler`. */
const invoke = (handler: string, spec: EventSpec, expected: number) =>
  as(handler, async () => {
    const module = (await import(`../../functions/${handler}.ts`)) as {
      handler: (event: unknown, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
    };
    const result = await module.handler(httpEvent(spec), lambdaContext());
    expect({ handler, spec, status: result.statusCode, body: result.body }).toMatchObject({
      status: expected,
    });
    return JSON.parse(result.body ?? 'null') as Body;
  });

const seedEvent = (RequestType: 'Create' | 'Update', TableName: string) =>
  ({
    RequestType,
    ServiceToken: 'arn:aws:lambda:local:0:function:framework',
    ResponseURL: 'https://example.invalid/response',
    StackId: 'arn:aws:cloudformation:local:0:stack/PersonServiceStack/1',
    RequestId: randomUUID(),
    LogicalResourceId: 'ReferenceData',
    ResourceType: 'Custom::ReferenceData',
    ResourceProperties: { ServiceToken: 'arn:aws:lambda:local:0:function:framework', TableName },
    ...(RequestType === 'Update'
      ? { PhysicalResourceId: `reference-data:${TableName}`, OldResourceProperties: {} }
      : {}),
  }) as CloudFormationCustomResourceEvent;

const setOf = (body: Body, set: string): Body[] => body[set]['@set'];

/** A webhook receiver at a public address: an IP literal, so the URL guard looks no name up. */
const WEBHOOK_URL = 'https://93.184.216.34/hooks';

/**
 * The feed cursor key the handler modules read (FEED_CURSOR_KEY: deployed, the secret), so that a
 * replay's `after` is made here as `GET /events` would sign it.
 */
const CURSOR_KEY = randomBytes(32).toString('base64url');

/** A replay's body: a feed cursor at the feed's start, signed with the key. */
const FROM_START = { after: encodeFeedCursor(FEED_START, CURSOR_KEY) };

/** A webhook subscription's item route (`suffix`: `/rotate`, `/deliveries`, `/replay`). */
const subscriptionAt = (id: string, suffix = '') => ({
  route: `/Subscription/{id}${suffix}`,
  path: `/Subscription/${id}${suffix}`,
  pathParameters: { id },
});

/** An HTTP server on loopback answering every request with `status`: a webhook receiver, Lambda's API. */
const loopback = async (status: () => number) => {
  const server = createServer((request, response) => {
    request.resume().on('end', () => response.writeHead(status()).end());
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  afterAll(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** The webhook schedule's sweep on the waking queue, as EventBridge puts a scheduled event on SQS. */
const SWEEP = {
  Records: [
    {
      messageId: randomUUID(),
      receiptHandle: 'sweep',
      body: JSON.stringify({ 'detail-type': SWEEP_DETAIL_TYPE, source: 'aws.events', detail: {} }),
      attributes: {},
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:0:wake-webhooks',
      awsRegion: 'local',
    },
  ],
} as unknown as SQSEvent;

/** Folds past 1024 bytes (NFKD expands U+FDFA 18-fold), so a claim on it has a hashed key. */
const LONG = '\uFDFA'.repeat(40);

beforeAll(async () => {
  vi.stubEnv(FEED_CURSOR_KEY_ENV, CURSOR_KEY);
  // Webhook secrets sealed and opened by every handler module with one key, and receivers on loopback.
  vi.stubEnv(WEBHOOK_SECRET_KEY_ENV, randomBytes(32).toString('base64url'));
  vi.stubEnv('WEBHOOKS_ALLOW_LOOPBACK', 'on');
  vi.stubEnv(DELIVER_FUNCTION_ENV, 'deliver-webhooks');
  const endpoint = inject('dynamoEndpoint');
  const client = documentClient(localClientConfig(endpoint));

  // The deploy-time seed, on an empty table, then again as a stack update does.
  const empty = `seed-${randomUUID()}`;
  await client.send(new CreateTableCommand(tableDefinition(empty)));
  await as('seed-reference-data', async () => {
    await seedHandler({ client })(seedEvent('Create', empty));
    await seedHandler({ client })(seedEvent('Update', empty));
  });

  const table = await createTestTable();
  useLocalTable(endpoint, table.tableName);

  // Persons: one with an email (self-registered) and a local_reference_id (its reference item put),
  // one without, named with a prefix and a suffix.
  const ada = await invoke(
    'create-person',
    {
      method: 'POST',
      route: '/Person',
      requester: 0,
      body: {
        Names: { '@set': [{ first_name: 'Ada', last_name: 'Lovelace' }] },
        Emails: { '@set': [{ email: 'ada@example.org' }] },
        local_reference_id: 'ada-1',
      },
    },
    201,
  );
  const grace = await invoke(
    'create-person',
    {
      method: 'POST',
      route: '/Person',
      requester: ada.id,
      body: {
        Names: {
          '@set': [{ first_name: 'Grace', last_name: 'Hopper', name_prefix_fk: 21, name_suffix_fk: 505 }],
        },
      },
    },
    201,
  );
  const person = (id: number, suffix = '') => ({
    route: `/Person/{id}${suffix}`,
    path: `/Person/${id}${suffix}`,
    pathParameters: { id: String(id) },
  });

  // Updates: an email added (the name claim released) with a name pointing at both vocabularies, an
  // email changed with the local_reference_id (the old reference item deleted, the new one put).
  await invoke(
    'update-person',
    {
      method: 'PATCH',
      ...person(grace.id),
      requester: ada.id,
      body: {
        Emails: { '@set': [{ email: 'grace@example.org' }] },
        Names: {
          '@set': [{ first_name: 'Amazing', last_name: 'Grace', name_prefix_fk: 2, name_suffix_fk: 1 }],
        },
      },
    },
    200,
  );
  await invoke(
    'update-person',
    {
      method: 'PATCH',
      ...person(ada.id),
      requester: ada.id,
      body: {
        Emails: { '@set': [{ id: setOf(ada, 'Emails')[0]?.id, email: 'ada.lovelace@example.org' }] },
        local_reference_id: 'ada-2',
      },
    },
    200,
  );
  // A person without an email renamed: the new name's claim taken, the old one's released.
  const lin = await invoke(
    'create-person',
    {
      method: 'POST',
      route: '/Person',
      requester: ada.id,
      body: { Names: { '@set': [{ first_name: 'Lin', last_name: 'Lan' }] }, local_reference_id: 'lin' },
    },
    201,
  );
  await invoke(
    'update-person',
    {
      method: 'PATCH',
      ...person(lin.id),
      requester: ada.id,
      body: { Names: { '@set': [{ id: setOf(lin, 'Names')[0]?.id, first_name: 'Linus' }] } },
    },
    200,
  );

  // A name that folds past 1024 bytes (NFKD expands U+FDFA 18-fold): its claim key is hashed, taken
  // at the create and released at the rename.
  const long = await invoke(
    'create-person',
    {
      method: 'POST',
      route: '/Person',
      requester: ada.id,
      body: { Names: { '@set': [{ first_name: LONG, last_name: 'Long' }] } },
    },
    201,
  );
  await invoke(
    'update-person',
    {
      method: 'PATCH',
      ...person(long.id),
      requester: ada.id,
      body: { Names: { '@set': [{ id: setOf(long, 'Names')[0]?.id, first_name: `${LONG}x` }] } },
    },
    200,
  );

  // Postings that do not fit their write: a create whose postings follow it (token checks, then the
  // POSTINGS item deleted), and a PATCH of that person changing them all again the same way.
  const many = await invoke(
    'create-person',
    {
      method: 'POST',
      route: '/Person',
      requester: ada.id,
      body: {
        Names: { '@set': [{ first_name: 'Many', last_name: 'Mails' }] },
        Emails: { '@set': distinctEmails(20) },
      },
    },
    201,
  );
  await invoke(
    'update-person',
    {
      method: 'PATCH',
      ...person(many.id),
      requester: ada.id,
      body: {
        Emails: {
          '@set': distinctEmails(20).map(({ email }, n) => ({ id: setOf(many, 'Emails')[n]?.id, email })),
        },
      },
    },
    200,
  );

  // Enrichment, through the writer functions/enrich-person.ts wires.
  await as('enrich-person', async () => {
    const writer = socialAddressWriter({ client, tableName: table.tableName });
    expect(await writer.fill(ada.id, { twitter: 'https://twitter.com/ada' })).toBe('written');
  });

  // The duplicates detector, through functions/detect-duplicates.ts: a namesake of Ada's checked (its
  // candidates read as reconciliation reads them; the pair, its queue entry and links put with both
  // persons checked live), then renamed and checked again (the pair resolved, its queue entry moved).
  const twin = await invoke(
    'create-person',
    {
      method: 'POST',
      route: '/Person',
      requester: ada.id,
      body: { Names: { '@set': [{ first_name: 'Ada', last_name: 'Lovelace' }] } },
    },
    201,
  );
  const detect = (version: number) =>
    as('detect-duplicates', async () => {
      const { handler } = await import('../../functions/detect-duplicates');
      const record = await personEventRecord({ client, tableName: table.tableName }, twin.id, { version });
      expect(await handler({ Records: [record] }, lambdaContext())).toEqual({ batchItemFailures: [] });
    });
  await detect(1);
  await invoke(
    'update-person',
    {
      method: 'PATCH',
      ...person(twin.id),
      requester: ada.id,
      body: {
        Names: { '@set': [{ id: setOf(twin, 'Names')[0]?.id, first_name: 'Zed', last_name: 'Quux' }] },
      },
    },
    200,
  );
  await detect(2);

  // The posting counts, through the handler functions/count-postings.ts wires: one posting stored,
  // another deleted.
  await as('count-postings', async () => {
    const { handler } = await import('../../functions/count-postings');
    const posting = (gram: string) => ({ ...postingKey(gram, ada.id), type: 'Posting', id: ada.id });
    await handler(
      {
        Records: [
          streamRecord('INSERT', { tableName: table.tableName, item: posting('ada') }),
          streamRecord('REMOVE', { tableName: table.tableName, oldItem: posting('zed') }),
        ],
      },
      lambdaContext(),
    );
  });

  // The change feed's appender, through functions/append-events.ts: some of the entries written so
  // far, then the same batch again (their marks read, nothing written).
  const feedEntries = ((await client.send(new ScanCommand({ TableName: table.tableName }))).Items ?? [])
    .filter((item) => item.type === 'ChangeHistory')
    .slice(0, 5);
  const batch = {
    Records: feedEntries.map((item) => streamRecord('INSERT', { tableName: table.tableName, item })),
  };
  await as('append-events', async () => {
    const { handler } = await import('../../functions/append-events');
    // Onto npm start's bus (no consumers): deployed, the EventBridge bus, which is no table access.
    useLocalBus(startLocalBus({ baseUrl: 'http://127.0.0.1:3000', consumers: [] }).publish);
    try {
      await handler(batch, lambdaContext());
      await handler(batch, lambdaContext());
    } finally {
      useLocalBus(undefined);
    }
  });

  // The deploy-time backfill of the postings: two persons' postings gone (one with more than a
  // transaction holds, so it needs a POSTINGS item and a chain; the other's reference item too),
  // another left with a POSTINGS item of an unfinished write naming terms it no longer has, a fourth
  // repaired from a stale read (its version moved on, so it is read again).
  const storage = { client, tableName: table.tableName };
  const postingsOf = async (id: number) =>
    ((await client.send(new ScanCommand({ TableName: table.tableName }))).Items ?? []).filter(
      (item) => item.type === 'Posting' && item.id === id,
    );
  for (const { pk, sk } of [
    ...(await postingsOf(lin.id)),
    ...(await postingsOf(many.id)),
    localReferenceKey('lin', lin.id),
  ])
    await client.send(new DeleteCommand({ TableName: table.tableName, Key: { pk, sk } }));
  await client.send(
    new PutCommand({
      TableName: table.tableName,
      Item: {
        ...postingsPendingKey(grace.id),
        type: 'PostingsPending',
        token: 'cut-short',
        terms: { first_name: ['zed'], last_name: [], email: [], rest: [] },
      },
    }),
  );
  const stale = fromPersonItem(
    (await client.send(new GetCommand({ TableName: table.tableName, Key: personKey(long.id) }))).Item ?? {},
  );
  await invoke(
    'update-person',
    {
      method: 'PATCH',
      ...person(long.id),
      requester: ada.id,
      body: { Names: { '@set': [{ id: setOf(long, 'Names')[0]?.id, first_name: `${LONG}y` }] } },
    },
    200,
  );
  for (const { pk, sk } of await postingsOf(long.id))
    await client.send(new DeleteCommand({ TableName: table.tableName, Key: { pk, sk } }));
  await as('backfill-postings', async () => {
    expect(await repairPostings(storage, stale)).toBeGreaterThan(0);
    const created = seedEvent('Create', table.tableName);
    const result = await backfillHandler({ client })(
      { ...created, ResourceProperties: { ...created.ResourceProperties, BackfillVersion: '1' } },
      { getRemainingTimeInMillis: () => 600_000 },
    );
    expect(result.IsComplete).toBe(true);
  });

  // Merges (API.md 13). A source of 50 emails and a reference item into the email-less person of the
  // long (hashed) name claim: its emails re-pointed, the survivor's name claim released, both
  // persons' postings too many for the write (POSTINGS items, then chains of several transactions);
  // an email-less source into an email-less survivor (the source's name claim released); a merged
  // person then merged again and PATCHed (its chain read on to the survivor for the 409).
  const mergeSource = await invoke(
    'create-person',
    {
      method: 'POST',
      route: '/Person',
      requester: ada.id,
      body: {
        Names: { '@set': [{ first_name: 'Merged', last_name: 'Away' }] },
        Emails: { '@set': distinctEmails(50) },
        local_reference_id: 'merged-away',
      },
    },
    201,
  );
  const mergeInto = (survivor: number, source: number, status: number) =>
    invoke(
      'merge-person',
      { method: 'POST', ...person(survivor, '/merge'), requester: ada.id, body: { source } },
      status,
    );
  await mergeInto(long.id, mergeSource.id, 200);
  const nameOnly = await invoke(
    'create-person',
    {
      method: 'POST',
      route: '/Person',
      requester: ada.id,
      body: { Names: { '@set': [{ first_name: 'Name', last_name: 'Only' }] } },
    },
    201,
  );
  await mergeInto(lin.id, nameOnly.id, 200);
  await mergeInto(grace.id, mergeSource.id, 409);
  await invoke(
    'update-person',
    { method: 'PATCH', ...person(nameOnly.id), requester: ada.id, body: {} },
    409,
  );

  // Unmerges (API.md 13.1), each of the merges above undone and made again: the 50 emails re-pointed
  // back, the survivor's hashed name claim taken again, both persons' postings in chains; the
  // email-less source's literal name claim taken, its merge's record rebuilt from the MERGE entries
  // (the link's record removed, as a merge made before records were kept left it); a source not
  // merged into the person refused. Then a survivor that shows a lent Name with a prefix and a suffix
  // (their abbreviations read for the fullnames) and dropped the lent email gives them back: the name
  // claim it held released, its own taken again.
  const unmergeFrom = (survivor: number, source: number, status: number) =>
    invoke(
      'unmerge-person',
      { method: 'POST', ...person(survivor, '/unmerge'), requester: ada.id, body: { source } },
      status,
    );
  await unmergeFrom(long.id, mergeSource.id, 200);
  await mergeInto(long.id, mergeSource.id, 200);
  await forgetMergeRecord({ client, tableName: table.tableName }, mergedFromKey(lin.id, nameOnly.id));
  await unmergeFrom(lin.id, nameOnly.id, 200);
  await mergeInto(lin.id, nameOnly.id, 200);
  await unmergeFrom(grace.id, lin.id, 409);
  // Lent Names of a literal and a hashed claim.
  for (const [index, alias] of ['Alias', LONG].entries()) {
    const borrower = await invoke(
      'create-person',
      {
        method: 'POST',
        route: '/Person',
        requester: ada.id,
        body: { Names: { '@set': [{ first_name: 'Keeps', last_name: `Own${index}` }] } },
      },
      201,
    );
    const lender = await invoke(
      'create-person',
      {
        method: 'POST',
        route: '/Person',
        requester: ada.id,
        body: {
          Names: {
            '@set': [
              { first_name: 'Tee', last_name: `Primary${index}` },
              { first_name: alias, last_name: 'Alias', name_prefix_fk: 21, name_suffix_fk: 501 },
            ],
          },
          Emails: { '@set': [{ email: `lender${index}@example.org` }] },
        },
      },
      201,
    );
    await mergeInto(borrower.id, lender.id, 200);
    await invoke(
      'update-person',
      {
        method: 'PATCH',
        ...person(borrower.id),
        requester: ada.id,
        body: {
          Names: { '@set': [{ id: setOf(lender, 'Names')[1]?.id, primary: true }] },
          Emails: { '@set': [{ id: setOf(lender, 'Emails')[0]?.id }] },
        },
      },
      200,
    );
    await unmergeFrom(borrower.id, lender.id, 200);
  }

  // The same merges decided on duplicate pairs (functions/decide-duplicate.ts: the pair read, the
  // merge, the pair written merged with its queue entry moved), on persons of their own; a pair put
  // straight into the queue for each, as the detector would. Then the queue read, whole and by
  // person, and one pair.
  const create = (body: Body) =>
    invoke('create-person', { method: 'POST', route: '/Person', requester: ada.id, body }, 201);
  const named = (first: string, last: string) => ({
    Names: { '@set': [{ first_name: first, last_name: last }] },
  });
  const longDecided = await create(named(LONG, 'Decided'));
  const linDecided = await create({ ...named('Lin', 'Decided'), local_reference_id: 'lin-decided' });
  const sourceDecided = await create({
    ...named('Decided', 'Away'),
    Emails: { '@set': distinctEmails(50) },
    local_reference_id: 'decided-away',
  });
  const nameOnlyDecided = await create(named('Name', 'Decided'));
  const queue = pairStore(storage);
  /** A pair of the two put into the queue open, as the detector would: its id. */
  const queued = async (survivor: number, source: number) => {
    const pair = examplePair([Math.min(survivor, source), Math.max(survivor, source)], {
      detected: new Date().toISOString(),
    });
    expect(await queue.apply({ kind: 'create', pair })).toBe(true);
    return { pairId: pair.id, survivor };
  };
  const decisions = [
    [await queued(longDecided.id, sourceDecided.id), 200],
    [await queued(linDecided.id, nameOnlyDecided.id), 200],
    // Open while its source is merged into another: the merge refuses it (409 merged).
    [await queued(grace.id, sourceDecided.id), 409],
  ] as const;
  for (const [{ pairId, survivor }, status] of decisions)
    await invoke(
      'decide-duplicate',
      {
        method: 'POST',
        route: '/duplicates/{pairId}/decision',
        path: `/duplicates/${pairId}/decision`,
        pathParameters: { pairId },
        requester: ada.id,
        body: { decision: 'merge', survivor },
      },
      status,
    );
  const decided = decisions[0][0].pairId;
  for (const query of <Record<string, string>[]>[{}, { person: String(longDecided.id), status: 'merged' }])
    await invoke('list-duplicates', { method: 'GET', route: '/duplicates', query }, 200);
  await invoke(
    'get-duplicate',
    {
      method: 'GET',
      route: '/duplicates/{pairId}',
      path: `/duplicates/${decided}`,
      pathParameters: { pairId: decided },
    },
    200,
  );

  // Webhook subscriptions (API.md 16), through their handler modules (the secrets sealed by the local
  // box of a process that names no KMS key): one created, listed and read, paused, a PATCH that
  // changes nothing (nothing written), its secret rotated, deleted; one created by a merged requester
  // (its check fails, and the write is made again as the survivor).
  const hook = await invoke(
    'create-subscription',
    {
      method: 'POST',
      route: '/Subscription',
      requester: ada.id,
      body: { url: WEBHOOK_URL, types: ['person.*'], description: 'Directory sync' },
    },
    201,
  );
  await invoke(
    'create-subscription',
    { method: 'POST', route: '/Subscription', requester: nameOnly.id, body: { url: WEBHOOK_URL } },
    201,
  );
  await invoke('list-subscriptions', { method: 'GET', route: '/Subscription' }, 200);
  await invoke('get-subscription', { method: 'GET', ...subscriptionAt(hook.id) }, 200);
  for (let again = 0; again < 2; again++)
    await invoke(
      'update-subscription',
      { method: 'PATCH', ...subscriptionAt(hook.id), requester: ada.id, body: { paused: true } },
      200,
    );
  await invoke(
    'rotate-subscription-secret',
    { method: 'POST', ...subscriptionAt(hook.id, '/rotate'), requester: ada.id },
    200,
  );
  // Its attempts (recorded as the deliverer records them, not by these functions) listed a page at a
  // time: the subscription read, then its own partition queried; an unknown subscription's is 404 on
  // the read alone. Its lane set back to the feed's start by the requester, and by a merged one (made
  // again as the survivor); an unknown subscription's replay is 404 (the lane's condition fails).
  const lanes = laneStore(storage);
  for (const [n, outcome] of (['failed', 'delivered'] as const).entries())
    await lanes.record(hook.id, {
      event: 1,
      type: 'person.created',
      at: new Date(Date.now() - 1_000 + n).toISOString(),
      status: outcome === 'delivered' ? 204 : 503,
      outcome,
      duration_ms: 42,
      attempt: n + 1,
    });
  const deliveriesOf = (id: string, query: Record<string, string>, status: number) =>
    invoke('list-deliveries', { method: 'GET', ...subscriptionAt(id, '/deliveries'), query }, status);
  const firstAttempts = await deliveriesOf(hook.id, { limit: '1' }, 200);
  expect(firstAttempts.deliveries).toHaveLength(1);
  expect(firstAttempts.next).toEqual(expect.any(String));
  expect((await deliveriesOf(hook.id, { after: firstAttempts.next }, 200)).deliveries).toHaveLength(1);
  await deliveriesOf(randomUUID(), {}, 404);
  const replay = (id: string, requester: number, status: number) =>
    invoke(
      'replay-subscription',
      { method: 'POST', ...subscriptionAt(id, '/replay'), requester, body: FROM_START },
      status,
    );
  await replay(hook.id, ada.id, 202);
  await replay(hook.id, nameOnly.id, 202);
  await replay(randomUUID(), ada.id, 404);
  await invoke(
    'delete-subscription',
    { method: 'DELETE', ...subscriptionAt(hook.id), requester: ada.id },
    204,
  );

  // Delivery (API.md 16), through functions/wake-webhooks.ts and functions/deliver-webhooks.ts: the
  // schedule's sweep reads the subscriptions and invokes the deliverer per lane (Lambda's Invoke API on
  // loopback, answering 202); a lane run takes its lease, reads the subscription and the feed, posts the
  // event, records the attempt and moves on (a receiver that takes it) or pauses the subscription (a
  // receiver that answers 410).
  const lambdaApi = await loopback(() => 202);
  vi.stubEnv('AWS_ENDPOINT_URL_LAMBDA', lambdaApi);
  const hooks = await Promise.all(
    [204, 410].map(async (status) => {
      const created = await invoke(
        'create-subscription',
        {
          method: 'POST',
          route: '/Subscription',
          requester: ada.id,
          body: { url: await loopback(() => status) },
        },
        201,
      );
      return created.id as string;
    }),
  );
  await feedLog(storage).append([
    feedEventOf({
      id: 90_000_001,
      endpoint: 'Person',
      object_id: ada.id,
      version: 2,
      action: 'update',
      requester: ada.id,
      at: new Date().toISOString(),
      changed: ['/Emails'],
      provider_data: NO_ORIGIN,
    }),
  ]);
  await as('wake-webhooks', async () => {
    const { handler } = await import('../../functions/wake-webhooks');
    expect(await handler(SWEEP, lambdaContext())).toEqual({ batchItemFailures: [] });
  });
  const { handler: deliverLane } = await import('../../functions/deliver-webhooks');
  const outcomes = await as('deliver-webhooks', () =>
    Promise.all(hooks.map((subscriptionId) => deliverLane({ subscriptionId }, lambdaContext()))),
  );
  expect(outcomes).toEqual([{ kind: 'idle' }, { kind: 'paused' }]);

  await invoke('get-person', { method: 'GET', ...person(ada.id) }, 200);
  await invoke('list-persons', { method: 'GET', route: '/Person', query: { limit: '10' } }, 200);
  // The postings: the first probe's sample, or with 400 persons holding "bench" (about 50 in a
  // shard) the others' samples and the id counter too; candidates checked on a posting and on persons
  // (a 2-code-point fragment); a fragment of one code point reads the index; a local_reference_id
  // reads that value's reference items, the other filter checked on a posting.
  await seedPersons(storage, { from: 0, count: 400 });
  for (const query of <Record<string, string>[]>[
    { local_reference_id: 'ada-2', first_name: 'ada' },
    { email: 'bench', first_name: 'ada' },
    { search: 'lovelace', first_name: 'ada' },
    { last_name: 'lovelace', first_name: 'ad' },
    { first_name: 'a' },
  ])
    await invoke('list-persons', { method: 'GET', route: '/Person', query }, 200);
  await invoke('export-persons', { method: 'GET', route: '/Person/export', query: { limit: '3' } }, 200);
  // Reconciliation: the email claim, the name's postings (sampled here, so the id counter too) and the
  // candidates' persons; data extension the persons; suggest a prefix's postings; the preview a person.
  const form = (parameters: Record<string, string>) => ({
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(parameters).toString(),
  });
  const queries = { q0: { query: 'Ada Lovelace', properties: [{ pid: 'email', v: 'ada@example.org' }] } };
  await invoke(
    'reconcile-persons',
    { method: 'POST', route: '/reconcile', ...form({ queries: JSON.stringify(queries) }) },
    200,
  );
  const extend = { ids: [String(ada.id)], properties: [{ id: 'fullname' }] };
  await invoke(
    'reconcile-persons',
    { method: 'GET', route: '/reconcile', query: { extend: JSON.stringify(extend) } },
    200,
  );
  const suggest = () =>
    invoke(
      'suggest-persons',
      {
        method: 'GET',
        route: '/reconcile/suggest/{kind}',
        path: '/reconcile/suggest/entity',
        pathParameters: { kind: 'entity' },
        query: { prefix: 'lovelace' },
      },
      200,
    );
  await suggest();
  // With the posting counts marked complete (as a table counted from its start is), the postings are
  // sized by their counts instead: a BatchGetItem of the grams' (and a Query of a prefix's partition).
  await client.send(new PutCommand({ TableName: table.tableName, Item: { ...postingCountsCompleteKey } }));
  await invoke(
    'list-persons',
    { method: 'GET', route: '/Person', query: { last_name: 'lovelace', first_name: 'ad' } },
    200,
  );
  await invoke(
    'reconcile-persons',
    { method: 'POST', route: '/reconcile', ...form({ queries: JSON.stringify(queries) }) },
    200,
  );
  await suggest();
  await as('preview-person', async () => {
    const { handler } = await import('../../functions/preview-person');
    const result = await handler(
      httpEvent({ method: 'GET', route: '/reconcile/preview', query: { id: String(ada.id) } }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(200);
  });
  await invoke('list-person-audit', { method: 'GET', ...person(ada.id, '/audit') }, 200);

  const views = { Prefix: 'prefixes', Suffix: 'suffixes' } as const;
  for (const [view, plural] of Object.entries(views)) {
    await invoke(`list-${plural}`, { method: 'GET', route: `/${view}` }, 200);
    await invoke(
      `get-${view.toLowerCase()}`,
      { method: 'GET', route: `/${view}/{id}`, path: `/${view}/1`, pathParameters: { id: '1' } },
      200,
    );
  }

  // Vocabulary entries: created, then their abbreviation moved (claims taken and released).
  const entries: Partial<Record<ResourceType, number>> = { Person: grace.id };
  const vocabularies = [
    {
      kind: 'NamePrefix',
      noun: 'name-prefix',
      plural: 'name-prefixes',
      term: 'prefix',
      text: 'Captain',
      abbreviation: 'Capt.',
    },
    {
      kind: 'NameSuffix',
      noun: 'name-suffix',
      plural: 'name-suffixes',
      term: 'suffix',
      text: 'Doctor of Education',
      abbreviation: 'EdD',
    },
  ] as const;
  for (const { kind, noun, plural, term, text, abbreviation } of vocabularies) {
    await invoke(`list-${plural}`, { method: 'GET', route: `/${kind}`, query: { search: 'd' } }, 200);
    const created = await invoke(
      `create-${noun}`,
      {
        method: 'POST',
        route: `/${kind}`,
        requester: ada.id,
        body: { '@type': kind, [term]: text, abbreviation },
      },
      201,
    );
    const item = {
      route: `/${kind}/{id}`,
      path: `/${kind}/${created.id}`,
      pathParameters: { id: String(created.id) },
    };
    await invoke(`get-${noun}`, { method: 'GET', ...item }, 200);
    // Another entry with a long abbreviation (its claim key hashed); the first moved to another long
    // one (hashed claim taken) and back (hashed claim released).
    await invoke(
      `create-${noun}`,
      {
        method: 'POST',
        route: `/${kind}`,
        requester: ada.id,
        body: { [term]: `Long ${text}`, abbreviation: LONG },
      },
      201,
    );
    for (const moved of [`${LONG}x`, `${abbreviation}x`])
      await invoke(
        `update-${noun}`,
        { method: 'PATCH', ...item, requester: ada.id, body: { abbreviation: moved } },
        200,
      );
    entries[kind] = created.id;
  }

  // Keyed writes (Idempotency-Key) of every write function: answered and replayed (the record put,
  // completed, found), and one that fails with a 5xx (the record deleted). The fault is the first
  // document-client call of the write, failing as DynamoDB Local cannot be made to.
  const [keptId, dupeId] = [
    (
      await invoke(
        'create-person',
        {
          method: 'POST',
          route: '/Person',
          requester: ada.id,
          body: { Names: { '@set': [{ first_name: 'Kept', last_name: 'Keyed' }] } },
        },
        201,
      )
    ).id,
    (
      await invoke(
        'create-person',
        {
          method: 'POST',
          route: '/Person',
          requester: ada.id,
          body: { Names: { '@set': [{ first_name: 'Dupe', last_name: 'Keyed' }] } },
        },
        201,
      )
    ).id,
  ];
  const keyedPair = (await queued(ada.id, lin.id)).pairId;
  const keyedHook = (
    await invoke(
      'create-subscription',
      { method: 'POST', route: '/Subscription', requester: ada.id, body: { url: WEBHOOK_URL } },
      201,
    )
  ).id as string;
  const keyedWrites: [string, EventSpec, number][] = [
    [
      'create-person',
      {
        method: 'POST',
        route: '/Person',
        requester: ada.id,
        body: { Names: { '@set': [{ first_name: 'Kay', last_name: 'Ed' }] } },
      },
      201,
    ],
    [
      'update-person',
      { method: 'PATCH', ...person(ada.id), requester: ada.id, body: { local_reference_id: 'ada-3' } },
      200,
    ],
    [
      'merge-person',
      { method: 'POST', ...person(keptId, '/merge'), requester: ada.id, body: { source: dupeId } },
      200,
    ],
    [
      'unmerge-person',
      { method: 'POST', ...person(keptId, '/unmerge'), requester: ada.id, body: { source: dupeId } },
      200,
    ],
    [
      'decide-duplicate',
      {
        method: 'POST',
        route: '/duplicates/{pairId}/decision',
        path: `/duplicates/${keyedPair}/decision`,
        pathParameters: { pairId: keyedPair },
        requester: ada.id,
        body: { decision: 'not-duplicate' },
      },
      200,
    ],
    // A create and a rotation keep their answer's secret sealed, and open it for a replay.
    [
      'create-subscription',
      { method: 'POST', route: '/Subscription', requester: ada.id, body: { url: WEBHOOK_URL } },
      201,
    ],
    [
      'update-subscription',
      { method: 'PATCH', ...subscriptionAt(keyedHook), requester: ada.id, body: { description: 'Keyed' } },
      200,
    ],
    [
      'rotate-subscription-secret',
      { method: 'POST', ...subscriptionAt(keyedHook, '/rotate'), requester: ada.id },
      200,
    ],
    [
      'replay-subscription',
      { method: 'POST', ...subscriptionAt(keyedHook, '/replay'), requester: ada.id, body: FROM_START },
      202,
    ],
    ...vocabularies.flatMap(({ kind, noun, term, text }): [string, EventSpec, number][] => {
      const id = String(entries[kind]);
      return [
        [
          `create-${noun}`,
          {
            method: 'POST',
            route: `/${kind}`,
            requester: ada.id,
            body: { [term]: `Keyed ${text}`, abbreviation: `K${kind}` },
          },
          201,
        ],
        [
          `update-${noun}`,
          {
            method: 'PATCH',
            route: `/${kind}/{id}`,
            path: `/${kind}/${id}`,
            pathParameters: { id },
            requester: ada.id,
            body: { [term]: `Keyed ${text}` },
          },
          200,
        ],
      ];
    }),
  ];
  for (const [handler, spec, status] of keyedWrites) {
    const keyed = { ...spec, headers: { 'idempotency-key': `${handler}-1` } };
    await invoke(handler, keyed, status);
    await invoke(handler, keyed, status);
    send.mockRejectedValueOnce(new Error('injected'));
    await invoke(handler, { ...spec, headers: { 'idempotency-key': `${handler}-2` } }, 500);
  }

  // ChangeHistory: across objects, one object by id alone, one object of each endpoint, and an
  // entry of each endpoint (an update, so its predecessor is read too).
  await invoke(
    'list-change-history',
    { method: 'GET', route: '/ChangeHistory', query: { limit: '100' } },
    200,
  );
  await invoke(
    'list-change-history',
    { method: 'GET', route: '/ChangeHistory', query: { object_id: String(ada.id) } },
    200,
  );
  const history = changeHistory({ client, tableName: table.tableName });
  for (const endpoint of RESOURCE_TYPES) {
    const id = entries[endpoint] as number;
    await invoke(
      'list-change-history',
      { method: 'GET', route: '/ChangeHistory', query: { endpoint, object_id: String(id) } },
      200,
    );
    const { changes } = await history.page({
      endpoint,
      object_id: id,
      descending: true,
      window: { offset: 0, limit: 1 },
    });
    const changeId = changes[0]?.entry.id as number;
    await invoke(
      'get-change-history',
      {
        method: 'GET',
        route: '/ChangeHistory/{id}',
        path: `/ChangeHistory/${changeId}`,
        pathParameters: { id: String(changeId) },
      },
      200,
    );
  }

  // The change feed: the latest changes appended as the stream's appender would (not recorded: that
  // is another function), then read a page at a time until a page is empty: the heads, then each
  // shard's share.
  const { changes: latest } = await history.page({ descending: true, window: { offset: 0, limit: 12 } });
  await feedLog(storage).append(latest.reverse().map(({ entry }) => feedEventOf(entry)));
  let feedPage = await invoke('list-events', { method: 'GET', route: '/events', query: { limit: '5' } }, 200);
  expect(feedPage.events.length).toBeGreaterThan(0);
  while (feedPage.events.length > 0)
    feedPage = await invoke(
      'list-events',
      { method: 'GET', route: '/events', query: { after: feedPage.next, limit: '5' } },
      200,
    );

  // Requester binding on (the requesterBinding option): the person and vocabulary writes as its
  // functions make them, each recorded under `binding:<handler>` and held to that function's rules
  // with BINDING_ACCESS. A self-registration binds; a bound caller patches and writes a vocabulary
  // entry as its own person; a delegate merges (a bound source's binding moving to the survivor).
  const bound = { requesterBinding: true };
  const persons = personRepository(storage);
  const jwt = (subject: string) => ({ jwt: { claims: { iss: 'https://issuer.example.org', sub: subject } } });
  const delegate = { jwt: { claims: { ...jwt('admin').jwt.claims, scope: 'persons/delegate' } } };
  const bindingCall = (handler: string, build: (deps: Body) => unknown, spec: EventSpec, expected: number) =>
    as(`binding:${handler}`, async () => {
      const run = build({ persons, vocabulary: vocabularyRepository(storage), config: bound }) as (
        event: unknown,
        context: Context,
      ) => Promise<APIGatewayProxyStructuredResultV2>;
      const result = await run(httpEvent(spec), lambdaContext());
      expect({ handler, status: result.statusCode, body: result.body }).toMatchObject({ status: expected });
      return JSON.parse(result.body ?? 'null') as Body;
    });
  const bindingCreate = (requester: number, subject: string, last: string) =>
    bindingCall(
      'create-person',
      (deps) => createPersonHandler(deps as never),
      {
        method: 'POST',
        route: '/Person',
        requester,
        authorizer: jwt(subject),
        body: { Names: { '@set': [{ first_name: 'Bound', last_name: last }] } },
      },
      201,
    );
  /** A merge under binding is a delegate's (API.md 9.1), naming `requester` as the one it acts for. */
  const bindingMerge = (survivor: number, source: number, requester: number, status: number) =>
    bindingCall(
      'merge-person',
      (deps) => mergePersonHandler(deps as never),
      {
        method: 'POST',
        ...person(survivor, '/merge'),
        requester,
        authorizer: delegate,
        body: { source },
      },
      status,
    );
  const self = await bindingCreate(0, 'keeper', 'Keeper');
  const boundSource = await bindingCreate(0, 'leaver', 'Leaver');
  await bindingCreate(self.id, 'keeper', 'ByKeeper');
  await bindingCall(
    'update-person',
    (deps) => updatePersonHandler(deps as never),
    {
      method: 'PATCH',
      ...person(self.id),
      requester: self.id,
      authorizer: jwt('keeper'),
      body: { local_reference_id: 'bound' },
    },
    200,
  );
  // The keeper survives the leaver, who gives it no binding (the keeper has one): refused; then an
  // unbound survivor takes the leaver's (the move's condition checks the leaver's binding); then the
  // keeper survives an unbound person (its own binding checked in the transaction).
  await bindingMerge(self.id, boundSource.id, self.id, 409);
  await bindingMerge(ada.id, boundSource.id, boundSource.id, 200);
  // Undone, the leaver's binding moves back to it (the move's condition checks it names the
  // survivor); then merged again.
  await bindingCall(
    'unmerge-person',
    (deps) => unmergePersonHandler(deps as never),
    {
      method: 'POST',
      ...person(ada.id, '/unmerge'),
      requester: ada.id,
      authorizer: delegate,
      body: { source: boundSource.id },
    },
    200,
  );
  await bindingMerge(ada.id, boundSource.id, boundSource.id, 200);
  await bindingMerge(self.id, grace.id, self.id, 200);
  // The same move of a binding by a merge decided on a duplicate pair (a delegate's too).
  const boundDecided = await bindingCreate(0, 'decider', 'Decider');
  const boundPair = (await queued(longDecided.id, boundDecided.id)).pairId;
  await bindingCall(
    'decide-duplicate',
    (deps) => decideDuplicateHandler({ ...(deps as object), pairs: queue } as never),
    {
      method: 'POST',
      route: '/duplicates/{pairId}/decision',
      path: `/duplicates/${boundPair}/decision`,
      pathParameters: { pairId: boundPair },
      requester: boundDecided.id,
      authorizer: delegate,
      body: { decision: 'merge', survivor: longDecided.id },
    },
    200,
  );
  await invoke('get-own-person', { method: 'GET', route: '/Person/me', authorizer: jwt('keeper') }, 303);
  // A delegate unbinds the survivor that took the leaver's binding, then binds another principal to
  // it (API.md 9.1): deployed with or without binding on.
  await invoke(
    'unbind-principal',
    { method: 'DELETE', ...person(ada.id, '/principal'), authorizer: delegate },
    204,
  );
  await invoke(
    'bind-principal',
    {
      method: 'PUT',
      ...person(ada.id, '/principal'),
      authorizer: delegate,
      body: { issuer: 'https://issuer.example.org', subject: 'clerk' },
    },
    204,
  );
  for (const [kind, noun] of [
    ['NamePrefix', 'name-prefix'],
    ['NameSuffix', 'name-suffix'],
  ] as const) {
    const entry = await bindingCall(
      `create-${noun}`,
      (deps) => vocabularyCreateHandler(kind, (deps as { vocabulary: never }).vocabulary, undefined, bound),
      {
        method: 'POST',
        route: `/${kind}`,
        requester: self.id,
        authorizer: jwt('keeper'),
        body: { [kind === 'NamePrefix' ? 'prefix' : 'suffix']: `Bound ${kind}`, abbreviation: `B${kind}` },
      },
      201,
    );
    await bindingCall(
      `update-${noun}`,
      (deps) => vocabularyUpdateHandler(kind, (deps as { vocabulary: never }).vocabulary, undefined, bound),
      {
        method: 'PATCH',
        route: `/${kind}/{id}`,
        path: `/${kind}/${entry.id}`,
        pathParameters: { id: String(entry.id) },
        requester: self.id,
        authorizer: jwt('keeper'),
        body: { abbreviation: `BB${kind}` },
      },
      200,
    );
  }

  // Webhook subscriptions written by a bound caller as its own person: each write checks its binding
  // (a PATCH that changes nothing too, with the requester's check alone).
  const subscriptions = subscriptionStore(storage);
  const box = localSecretBox(randomBytes(32).toString('base64url'));
  const asKeeper = { requester: self.id, authorizer: jwt('keeper') };
  const boundHook = await bindingCall(
    'create-subscription',
    () => createSubscriptionHandler({ subscriptions, box, config: bound }),
    { method: 'POST', route: '/Subscription', ...asKeeper, body: { url: WEBHOOK_URL } },
    201,
  );
  for (let again = 0; again < 2; again++)
    await bindingCall(
      'update-subscription',
      () => updateSubscriptionHandler({ subscriptions, config: bound }),
      { method: 'PATCH', ...subscriptionAt(boundHook.id), ...asKeeper, body: { paused: true } },
      200,
    );
  await bindingCall(
    'rotate-subscription-secret',
    () => rotateSubscriptionHandler({ subscriptions, box, config: bound }),
    { method: 'POST', ...subscriptionAt(boundHook.id, '/rotate'), ...asKeeper },
    200,
  );
  await bindingCall(
    'replay-subscription',
    () =>
      replaySubscriptionHandler({
        lanes: laneStore(storage),
        cursorKey: async () => CURSOR_KEY,
        config: bound,
      }),
    { method: 'POST', ...subscriptionAt(boundHook.id, '/replay'), ...asKeeper, body: FROM_START },
    202,
  );
  await bindingCall(
    'delete-subscription',
    () => deleteSubscriptionHandler({ subscriptions, config: bound }),
    { method: 'DELETE', ...subscriptionAt(boundHook.id), ...asKeeper },
    204,
  );

  // Erasures (API.md 15), last: they release what the writes above took. A merged person is refused
  // (its chain read on to the survivor); an email-less person's literal name claim and reference item
  // released; the hashed name claim of another, its postings too many for one transaction (a chain of
  // deletes) and the source merged into it erased with it, then the same erasure again (nothing
  // written); Ada's email claim, reference item and binding (bound by a delegate, binding off).
  const erase = (id: number, status: number) =>
    invoke('erase-person', { method: 'DELETE', ...person(id), requester: grace.id }, status);
  await erase(nameOnly.id, 409);
  await erase(lin.id, 200);
  await erase(long.id, 200);
  await erase(long.id, 200);
  // Ada's erasure cut short at its chain's first transaction (storage failing as DynamoDB Local
  // cannot be made to): her tombstone keeps its mark and her stored answer's link; then the finisher
  // (functions/finish-erasure.ts), given her person.erased, runs the chain to its end, deleting the
  // merged reference of the person with a key merged into her (API.md 13.1).
  const adaSource = await invoke(
    'create-person',
    {
      method: 'POST',
      route: '/Person',
      requester: ada.id,
      body: { Names: { '@set': [{ first_name: 'Ada', last_name: 'Twin' }] }, local_reference_id: 'ada-twin' },
    },
    201,
  );
  await mergeInto(ada.id, adaSource.id, 200);
  send.mockImplementation(function (this: DynamoDBDocumentClient, command, ...rest) {
    if (command instanceof TransactWriteCommand && JSON.stringify(command.input).includes('#snapshot'))
      return Promise.reject(new Error('injected'));
    return (passThrough as (...args: unknown[]) => Promise<unknown>).call(this, command, ...rest);
  } as typeof passThrough);
  await erase(ada.id, 500);
  send.mockImplementation(passThrough);
  const tombstone = await client.send(
    new GetCommand({ TableName: table.tableName, Key: personKey(ada.id), ConsistentRead: true }),
  );
  const erasedEvent = await personEventRecord({ client, tableName: table.tableName }, ada.id, {
    version: (tombstone.Item as { CoreMetaData: { version: number } }).CoreMetaData.version,
  });
  await as('finish-erasure', async () => {
    const { handler } = await import('../../functions/finish-erasure');
    expect(await handler({ Records: [erasedEvent] }, lambdaContext())).toEqual({ batchItemFailures: [] });
  });
  // An email-less person with a name that folds past 1024 bytes: its hashed name claim released.
  const longOnly = await invoke(
    'create-person',
    {
      method: 'POST',
      route: '/Person',
      requester: grace.id,
      body: { Names: { '@set': [{ first_name: LONG, last_name: 'Erased' }] } },
    },
    201,
  );
  await erase(longOnly.id, 200);
  // With binding on, a bound caller erases its own person: its binding read, checked and released.
  await bindingCall(
    'erase-person',
    (deps) => erasePersonHandler(deps as never),
    { method: 'DELETE', ...person(self.id), requester: self.id, authorizer: jwt('keeper') },
    200,
  );
}, 120_000);

afterAll(() => {
  send.mockRestore();
  sendRaw.mockRestore();
  vi.unstubAllEnvs();
});

const TABLE_FUNCTIONS = Object.keys(TABLE_ACCESS).sort();
const BINDING_FUNCTIONS = Object.keys(BINDING_ACCESS).sort();

describe('the grants against the calls the code makes', () => {
  it('exercise every function that has table access', () => {
    expect([...recorded.keys()].filter((key) => !key.startsWith('binding:')).sort()).toEqual(TABLE_FUNCTIONS);
  });

  it.each(TABLE_FUNCTIONS)('%s: every call it makes is allowed', (handler) => {
    const rules = TABLE_ACCESS[handler] ?? [];
    const requests = recorded.get(handler) ?? [];
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((request) => !rules.some((rule) => allows(rule, request)))).toEqual([]);
  });

  it.each(TABLE_FUNCTIONS)('%s: every action on every partition it is granted is used', (handler) => {
    const requests = recorded.get(handler) ?? [];
    const unused = grantsOf(handler).filter((grant) => !requests.some((request) => uses(grant, request)));
    expect(unused.map(({ name }) => name)).toEqual([]);
  });
});

describe('the grants requester binding adds (requesterBinding), against the calls binding makes', () => {
  it.each(BINDING_FUNCTIONS)('%s: every call it makes with binding on is allowed', (handler) => {
    const rules = tableAccessOf(handler, { requesterBinding: true });
    const requests = recorded.get(`binding:${handler}`) ?? [];
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((request) => !rules.some((rule) => allows(rule, request)))).toEqual([]);
  });

  it.each(BINDING_FUNCTIONS)('%s: every action on every partition binding adds is used', (handler) => {
    const requests = recorded.get(`binding:${handler}`) ?? [];
    const unused = grantsOf(handler, BINDING_ACCESS).filter(
      (grant) => !requests.some((request) => uses(grant, request)),
    );
    expect(unused.map(({ name }) => name)).toEqual([]);
  });
});
