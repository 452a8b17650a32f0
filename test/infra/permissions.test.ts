/**
 * Least privilege, read from the synthesized IAM policies: the expected grants are written out here,
 * independently of infra/table-access.ts, so a grant added there (a write for a read-only function,
 * a Scan anywhere) fails a test until this list agrees.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  changeCountersOf,
  claimsOf,
  partitionsLike,
  TABLE_ACCESS,
  tableAccessOf,
  vocabularyOf,
} from '../../infra/table-access';
import {
  changeCounterKeyOf,
  claimKey,
  deliveryKey,
  feedEventKey,
  feedHeadKey,
  feedMarkKey,
  historyKey,
  idCounterKey,
  idempotencyKey,
  localReferenceKey,
  PERSON_COUNTER_KEYS,
  personCounterKey,
  personKey,
  postingCountKey,
  postingKey,
  principalKey,
  subscriptionKey,
  subscriptionLaneKey,
  vocabularyKey,
} from '../../lib/db/table/keys';
import { DELIVER_HANDLER } from '../../lib/webhooks/lane-invoker';
import {
  type Json,
  only,
  onlyNamed,
  permissionsOf,
  policyStatementsOf,
  type Resource,
  resourcesOf,
  roleOf,
  serviceFunctions,
  synthesize,
} from './support';

let template: Template;
let functions: ReturnType<typeof serviceFunctions>;
let tableId: string;
let secretId: string;
let cursorSecretId: string;
let queueIds: string[];
let consumerQueueIds: string[];
let busId: string;
let webhookKeyId: string;

beforeAll(() => {
  ({ template } = synthesize());
  functions = serviceFunctions(template);
  [tableId] = only(template.findResources('AWS::DynamoDB::Table'));
  [secretId] = onlyNamed(template.findResources('AWS::SecretsManager::Secret'), 'EnrichmentApiKey');
  [cursorSecretId] = onlyNamed(template.findResources('AWS::SecretsManager::Secret'), 'FeedCursorKey');
  // A dead-letter queue per stream subscription, and per bus subscription its queue (the one with a
  // redrive policy) and two dead-letter queues.
  const queues = Object.entries(resourcesOf(template, 'AWS::SQS::Queue'));
  queueIds = queues.filter(([, queue]) => !queue.Properties.RedrivePolicy).map(([queueId]) => queueId);
  consumerQueueIds = queues.filter(([, queue]) => queue.Properties.RedrivePolicy).map(([queueId]) => queueId);
  [busId] = only(template.findResources('AWS::Events::EventBus'));
  [webhookKeyId] = only(template.findResources('AWS::KMS::Key'));
});

/** A grant as the tests write it: `action on resource [partitions] (tx)`. */
const grantsOf = (handler: string): string[] => {
  const found = functions.get(handler);
  if (!found) throw new Error(`No function bundles ${handler}`);
  const logGroupId = found.resource.Properties.LoggingConfig.LogGroup.Ref as string;
  const names: Record<string, string> = {
    [`${logGroupId}.Arn`]: 'its log group',
    [`${tableId}.Arn`]: 'table',
    [`${tableId}.Arn/index/byName`]: 'index byName',
    [`${tableId}.Arn/index/byChange`]: 'index byChange',
    [`${tableId}.Arn/index/byChangeId`]: 'index byChangeId',
    [`${tableId}.StreamArn`]: 'stream',
    [`${secretId}.Ref`]: 'secret',
    [`${cursorSecretId}.Ref`]: 'the feed cursor key',
    [`${busId}.Arn`]: 'event bus',
    [`${webhookKeyId}.Arn`]: 'the webhook key',
    [`${functions.get(DELIVER_HANDLER)?.id}.Arn`]: 'the deliver-webhooks function',
    ...Object.fromEntries(queueIds.map((queueId) => [`${queueId}.Arn`, 'dead-letter queue'])),
    ...Object.fromEntries(consumerQueueIds.map((queueId) => [`${queueId}.Arn`, 'its queue'])),
  };
  return permissionsOf(template, roleOf(found.resource))
    .map(({ action, resource, condition = {} }) => {
      const {
        'ForAllValues:StringLike': like,
        'ForAnyValue:StringEquals': enclosing,
        ...other
      } = condition as Json;
      expect(other).toEqual({});
      const partitions = like ? ` [${like['dynamodb:LeadingKeys'].join(' ')}]` : '';
      const tx = enclosing ? ` (${enclosing['dynamodb:EnclosingOperation'].join(' ')})` : '';
      return `${action} on ${names[resource] ?? resource}${partitions}${tx}`;
    })
    .sort();
};

/**
 * Every function's, besides its table access: writing its own log group (no managed policy, which
 * would let it write every log group), and X-Ray's trace writes, which IAM takes on * only.
 */
const EXECUTION = [
  'logs:CreateLogStream on its log group',
  'logs:PutLogEvents on its log group',
  'xray:PutTelemetryRecords on *',
  'xray:PutTraceSegments on *',
];
const EXECUTION_ACTIONS = EXECUTION.map((grant) => grant.replace(/ on .*$/, ''));

const TX = '(TransactWriteItems)';
const RESERVE_IDS = 'dynamodb:UpdateItem on table [COUNTER#ids]';
/** A keyed write's idempotency record, in its own partition: put, completed, deleted on a 5xx. */
const IDEMPOTENCY_RECORDS = ['PutItem', 'UpdateItem', 'DeleteItem'].map(
  (action) => `dynamodb:${action} on table [IDEMPOTENCY#*]`,
);
const PERSON_COUNTERS = [0, 1, 2, 3, 4, 5, 6, 7].map((shard) => `COUNTER#changes#Person#${shard}`).join(' ');
const VOCABULARIES = 'VOCABULARY#NamePrefix VOCABULARY#NameSuffix';
const HISTORIES = 'PERSON#* NAMEPREFIX#* NAMESUFFIX#*';

/** POST /NamePrefix, /NameSuffix: the entry, its history and claim put, its counter bumped, the requester checked. */
const createEntry = (kind: 'NamePrefix' | 'NameSuffix') => [
  RESERVE_IDS,
  ...IDEMPOTENCY_RECORDS,
  `dynamodb:PutItem on table [VOCABULARY#${kind} ${kind.toUpperCase()}#* ABBREVIATION#${kind}#* HASHED#ABBREVIATION#${kind}#*] ${TX}`,
  `dynamodb:UpdateItem on table [COUNTER#changes#${kind}#0] ${TX}`,
  `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
];
/** PATCH: the entry read first, and the old abbreviation's claim released. */
const updateEntry = (kind: 'NamePrefix' | 'NameSuffix') => [
  ...createEntry(kind),
  `dynamodb:GetItem on table [VOCABULARY#${kind}]`,
  `dynamodb:DeleteItem on table [ABBREVIATION#${kind}#* HASHED#ABBREVIATION#${kind}#*] ${TX}`,
];

/** A webhook subscription's write: its item put over the version read, the requester checked live. */
const SUBSCRIPTION_WRITE = [
  ...IDEMPOTENCY_RECORDS,
  'dynamodb:GetItem on table [SUBSCRIPTIONS]',
  `dynamodb:PutItem on table [SUBSCRIPTIONS] ${TX}`,
  `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
];
/** A new signing secret sealed, and a kept answer's opened (API.md 16): the webhook key, nothing else of KMS. */
const SEALS_SECRETS = ['kms:Decrypt on the webhook key', 'kms:Encrypt on the webhook key'];

/** A stream subscription's: the stream as the event source mapping reads it (ListStreams takes no resource but *), and its DLQ. */
const STREAM_READS = [
  'dynamodb:DescribeStream on stream',
  'dynamodb:GetRecords on stream',
  'dynamodb:GetShardIterator on stream',
  'dynamodb:ListStreams on *',
  'sqs:GetQueueAttributes on dead-letter queue',
  'sqs:GetQueueUrl on dead-letter queue',
  'sqs:SendMessage on dead-letter queue',
];

/**
 * A bus subscription's: its queue as the event source mapping reads it (receive, hide longer, delete
 * what was done); it never sends to a queue, and SQS moves what fails to the dead-letter queue.
 */
const QUEUE_READS = [
  'sqs:ChangeMessageVisibility on its queue',
  'sqs:DeleteMessage on its queue',
  'sqs:GetQueueAttributes on its queue',
  'sqs:GetQueueUrl on its queue',
  'sqs:ReceiveMessage on its queue',
];

/** A merge's grants: merge-person's, and a merge decided on a duplicate pair. */
const MERGE = [
  RESERVE_IDS,
  ...IDEMPOTENCY_RECORDS,
  'dynamodb:BatchGetItem on table [PERSON#*]',
  'dynamodb:GetItem on table [PERSON#*]',
  // The source's merged reference put over its reference item (API.md 13.1).
  `dynamodb:PutItem on table [PERSON#* EMAIL#* LOCALREF#* GRAM#*] ${TX}`,
  `dynamodb:DeleteItem on table [PERSON#* NAME#* HASHED#NAME#* GRAM#*] ${TX}`,
  `dynamodb:UpdateItem on table [${Array.from({ length: 16 }, (_, shard) => `COUNTER#persons#${shard}`).join(' ')} ${PERSON_COUNTERS}] ${TX}`,
  `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
];

/** An unmerge's grants (API.md 13.1). */
const UNMERGE = [
  RESERVE_IDS,
  ...IDEMPOTENCY_RECORDS,
  `dynamodb:BatchGetItem on table [PERSON#* ${VOCABULARIES}]`,
  'dynamodb:GetItem on table [PERSON#*]',
  'dynamodb:Query on index byChangeId',
  `dynamodb:PutItem on table [PERSON#* EMAIL#* NAME#* HASHED#NAME#* LOCALREF#* GRAM#*] ${TX}`,
  `dynamodb:DeleteItem on table [PERSON#* NAME#* HASHED#NAME#* GRAM#*] ${TX}`,
  `dynamodb:UpdateItem on table [${Array.from({ length: 16 }, (_, shard) => `COUNTER#persons#${shard}`).join(' ')} ${PERSON_COUNTERS}] ${TX}`,
  `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
];

const EXPECTED: Record<string, string[]> = {
  'get-person': ['dynamodb:GetItem on table [PERSON#*]'],
  'get-own-person': ['dynamodb:GetItem on table [PRINCIPAL#*]'],
  'list-persons': [
    `dynamodb:BatchGetItem on table [${Array.from({ length: 16 }, (_, shard) => `COUNTER#persons#${shard}`).join(' ')} COUNTER#persons GRAM#* POSTINGCOUNT#* PERSON#*]`,
    'dynamodb:GetItem on table [COUNTER#ids]',
    'dynamodb:Query on index byName',
    'dynamodb:Query on table [GRAM#* POSTINGCOUNT#* LOCALREF#*]',
  ],
  'export-persons': ['dynamodb:BatchGetItem on table [PERSON#*]', 'dynamodb:Query on index byName'],
  'reconcile-persons': [
    'dynamodb:BatchGetItem on table [PERSON#* POSTINGCOUNT#*]',
    'dynamodb:GetItem on table [EMAIL#* COUNTER#ids]',
    'dynamodb:Query on table [GRAM#*]',
  ],
  'suggest-persons': [
    'dynamodb:BatchGetItem on table [POSTINGCOUNT#*]',
    'dynamodb:GetItem on table [COUNTER#ids]',
    'dynamodb:Query on table [GRAM#*]',
  ],
  'preview-person': ['dynamodb:BatchGetItem on table [PERSON#*]'],
  'list-person-audit': ['dynamodb:GetItem on table [PERSON#*]', 'dynamodb:Query on table [PERSON#*]'],
  'list-prefixes': ['dynamodb:Query on table [VOCABULARY#NamePrefix]'],
  'get-prefix': ['dynamodb:GetItem on table [VOCABULARY#NamePrefix]'],
  'list-suffixes': ['dynamodb:Query on table [VOCABULARY#NameSuffix]'],
  'get-suffix': ['dynamodb:GetItem on table [VOCABULARY#NameSuffix]'],
  'list-name-prefixes': ['dynamodb:Query on table [VOCABULARY#NamePrefix]'],
  'get-name-prefix': ['dynamodb:GetItem on table [VOCABULARY#NamePrefix]'],
  'create-name-prefix': createEntry('NamePrefix'),
  'update-name-prefix': updateEntry('NamePrefix'),
  'list-name-suffixes': ['dynamodb:Query on table [VOCABULARY#NameSuffix]'],
  'get-name-suffix': ['dynamodb:GetItem on table [VOCABULARY#NameSuffix]'],
  'create-name-suffix': createEntry('NameSuffix'),
  'update-name-suffix': updateEntry('NameSuffix'),
  'create-person': [
    RESERVE_IDS,
    ...IDEMPOTENCY_RECORDS,
    `dynamodb:BatchGetItem on table [PERSON#* ${VOCABULARIES}]`,
    `dynamodb:PutItem on table [PERSON#* EMAIL#* NAME#* HASHED#NAME#* LOCALREF#* GRAM#*] ${TX}`,
    `dynamodb:DeleteItem on table [PERSON#*] ${TX}`,
    `dynamodb:UpdateItem on table [${Array.from({ length: 16 }, (_, shard) => `COUNTER#persons#${shard}`).join(' ')} ${PERSON_COUNTERS}] ${TX}`,
    `dynamodb:ConditionCheckItem on table [PERSON#* ${VOCABULARIES}] ${TX}`,
  ],
  'update-person': [
    RESERVE_IDS,
    ...IDEMPOTENCY_RECORDS,
    `dynamodb:BatchGetItem on table [PERSON#* ${VOCABULARIES}]`,
    'dynamodb:GetItem on table [PERSON#*]',
    `dynamodb:PutItem on table [PERSON#* EMAIL#* NAME#* HASHED#NAME#* LOCALREF#* GRAM#*] ${TX}`,
    `dynamodb:DeleteItem on table [PERSON#* EMAIL#* NAME#* HASHED#NAME#* LOCALREF#* GRAM#*] ${TX}`,
    `dynamodb:UpdateItem on table [${PERSON_COUNTERS}] ${TX}`,
    `dynamodb:ConditionCheckItem on table [PERSON#* ${VOCABULARIES}] ${TX}`,
  ],
  'merge-person': MERGE,
  'unmerge-person': UNMERGE,
  'list-duplicates': [
    'dynamodb:Query on table [DUPQUEUE#* DUPLICATES#*]',
    'dynamodb:BatchGetItem on table [DUPPAIR#*]',
  ],
  'get-duplicate': ['dynamodb:BatchGetItem on table [DUPPAIR#*]'],
  // A merge's grants, and the pair's own.
  'decide-duplicate': [
    ...MERGE,
    'dynamodb:BatchGetItem on table [DUPPAIR#*]',
    `dynamodb:PutItem on table [DUPPAIR#* DUPQUEUE#*] ${TX}`,
    `dynamodb:DeleteItem on table [DUPQUEUE#*] ${TX}`,
  ],
  // Webhook subscriptions (API.md 16): their one partition, the requester checked as a person write's.
  'list-subscriptions': ['dynamodb:Query on table [SUBSCRIPTIONS]'],
  'get-subscription': ['dynamodb:GetItem on table [SUBSCRIPTIONS]'],
  // Its lane put where the feed ends now (the shards' heads read), in the subscription's own partition.
  'create-subscription': [
    ...IDEMPOTENCY_RECORDS,
    'dynamodb:BatchGetItem on table [FEED#*]',
    `dynamodb:PutItem on table [SUBSCRIPTIONS SUBSCRIPTION#*] ${TX}`,
    `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
    ...SEALS_SECRETS,
  ],
  'update-subscription': SUBSCRIPTION_WRITE,
  'rotate-subscription-secret': [...SUBSCRIPTION_WRITE, ...SEALS_SECRETS],
  // The subscription read (404), then its attempts queried in its own partition: reads only.
  'list-deliveries': [
    'dynamodb:GetItem on table [SUBSCRIPTIONS]',
    'dynamodb:Query on table [SUBSCRIPTION#*]',
  ],
  // Its lane set back in the subscription's own partition, the requester checked live; the
  // subscription item itself is neither read nor written. It checks the `after` feed cursor: the
  // cursor key's secret, read only, as list-events reads it.
  'replay-subscription': [
    ...IDEMPOTENCY_RECORDS,
    'dynamodb:GetItem on table [SUBSCRIPTION#*]',
    `dynamodb:UpdateItem on table [SUBSCRIPTION#*] ${TX}`,
    `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
    'secretsmanager:GetSecretValue on the feed cursor key',
  ],
  // The waker: the subscriptions' partition read, and the deliverer invoked, no other function.
  'wake-webhooks': [
    'dynamodb:Query on table [SUBSCRIPTIONS]',
    'lambda:InvokeFunction on the deliver-webhooks function',
    ...QUEUE_READS,
  ],
  // A lane run: the subscription read (and paused, over the version read), its lane's lease, position
  // and attempts written outside transactions in its own partition, the feed read, a secret opened;
  // an invocation that failed sent to its failure queue.
  'deliver-webhooks': [
    'dynamodb:GetItem on table [SUBSCRIPTIONS]',
    `dynamodb:PutItem on table [SUBSCRIPTIONS] ${TX}`,
    'dynamodb:PutItem on table [SUBSCRIPTION#*]',
    'dynamodb:UpdateItem on table [SUBSCRIPTION#*]',
    'dynamodb:BatchGetItem on table [FEED#*]',
    'dynamodb:Query on table [FEED#*]',
    'kms:Decrypt on the webhook key',
    // CDK's grant to an on-failure destination queue.
    'sqs:GetQueueAttributes on dead-letter queue',
    'sqs:GetQueueUrl on dead-letter queue',
    'sqs:SendMessage on dead-letter queue',
  ],
  // No Idempotency-Key (a second DELETE is 404).
  'delete-subscription': [
    'dynamodb:GetItem on table [SUBSCRIPTIONS]',
    `dynamodb:DeleteItem on table [SUBSCRIPTIONS SUBSCRIPTION#*] ${TX}`,
    `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
  ],
  // No idempotency records; claims, postings, reference item and binding only deleted (API.md 15).
  'erase-person': [
    RESERVE_IDS,
    'dynamodb:UpdateItem on table [IDEMPOTENCY#*]',
    'dynamodb:BatchGetItem on table [PERSON#*]',
    'dynamodb:GetItem on table [PERSON#*]',
    // The links of the persons merged into it and the entries of each (merged-from.ts, history-erasure.ts) and the stored answers' links.
    'dynamodb:Query on table [PERSON#*]',
    `dynamodb:PutItem on table [PERSON#*] ${TX}`,
    `dynamodb:DeleteItem on table [PERSON#* EMAIL#* NAME#* HASHED#NAME#* LOCALREF#* GRAM#* PRINCIPAL#*] ${TX}`,
    `dynamodb:UpdateItem on table [PERSON#* ${Array.from({ length: 16 }, (_, shard) => `COUNTER#persons#${shard}`).join(' ')} ${PERSON_COUNTERS}] ${TX}`,
    `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
  ],
  'bind-principal': [
    'dynamodb:BatchGetItem on table [PERSON#* PRINCIPAL#*]',
    `dynamodb:PutItem on table [PERSON#* PRINCIPAL#*] ${TX}`,
    `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
  ],
  'unbind-principal': [
    'dynamodb:BatchGetItem on table [PERSON#*]',
    `dynamodb:DeleteItem on table [PERSON#* PRINCIPAL#*] ${TX}`,
  ],
  // Only the chain of an erasure: stored answers, history entries and the answers' links, merged
  // references, the mark.
  'finish-erasure': [
    'dynamodb:UpdateItem on table [IDEMPOTENCY#*]',
    'dynamodb:BatchGetItem on table [PERSON#*]',
    'dynamodb:Query on table [PERSON#*]',
    `dynamodb:UpdateItem on table [PERSON#*] ${TX}`,
    // The merged references of the persons merged into it (API.md 13.1).
    `dynamodb:DeleteItem on table [PERSON#* LOCALREF#*] ${TX}`,
    ...QUEUE_READS,
  ],
  // A check of a changed person: it, its candidates, its pairs; a pair's items and the live checks.
  'detect-duplicates': [
    RESERVE_IDS,
    'dynamodb:GetItem on table [PERSON#* COUNTER#ids]',
    'dynamodb:Query on table [GRAM#* DUPLICATES#*]',
    'dynamodb:BatchGetItem on table [PERSON#* POSTINGCOUNT#* DUPPAIR#*]',
    `dynamodb:PutItem on table [DUPPAIR#* DUPQUEUE#* DUPLICATES#*] ${TX}`,
    `dynamodb:DeleteItem on table [DUPQUEUE#*] ${TX}`,
    `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
    ...QUEUE_READS,
  ],
  'enrich-person': [
    RESERVE_IDS,
    'dynamodb:Query on table [PERSON#*]',
    `dynamodb:PutItem on table [PERSON#*] ${TX}`,
    `dynamodb:UpdateItem on table [${PERSON_COUNTERS}] ${TX}`,
    ...QUEUE_READS,
    'secretsmanager:GetSecretValue on secret',
  ],
  'count-postings': ['dynamodb:UpdateItem on table [POSTINGCOUNT#*]', ...STREAM_READS],
  'append-events': [
    'dynamodb:BatchGetItem on table [FEED#* FEEDEVENT#*]',
    `dynamodb:PutItem on table [FEED#* FEEDEVENT#*] ${TX}`,
    ...STREAM_READS,
    // It puts each event it appends on the bus, the feed's one publisher (issue #55).
    'events:PutEvents on event bus',
  ],
  'list-change-history': [
    `dynamodb:GetItem on table [PERSON#* ${VOCABULARIES}]`,
    `dynamodb:Query on table [${HISTORIES}]`,
    'dynamodb:Query on index byChange',
    `dynamodb:BatchGetItem on table [${HISTORIES} ${VOCABULARIES} ${PERSON_COUNTERS} COUNTER#changes#NamePrefix#0 COUNTER#changes#NameSuffix#0]`,
  ],
  'get-change-history': [
    'dynamodb:Query on index byChangeId',
    `dynamodb:BatchGetItem on table [${HISTORIES}]`,
  ],
  // It signs and checks the feed's cursors: their key's secret, read only (API.md 14).
  'list-events': [
    'dynamodb:BatchGetItem on table [FEED#*]',
    'dynamodb:Query on table [FEED#*]',
    'secretsmanager:GetSecretValue on the feed cursor key',
  ],
  'seed-reference-data': [
    RESERVE_IDS,
    `dynamodb:BatchGetItem on table [${Array.from({ length: 16 }, (_, shard) => `COUNTER#persons#${shard}`).join(' ')} COUNTER#persons]`,
    'dynamodb:PutItem on table [POSTINGCOUNT#]',
    `dynamodb:Query on table [${VOCABULARIES}]`,
    `dynamodb:PutItem on table [${VOCABULARIES} NAMEPREFIX#* NAMESUFFIX#* ABBREVIATION#NamePrefix#* ABBREVIATION#NameSuffix#*] ${TX}`,
    `dynamodb:UpdateItem on table [COUNTER#changes#NamePrefix#0 COUNTER#changes#NameSuffix#0] ${TX}`,
  ],
  'backfill-postings': [
    'dynamodb:Scan on table',
    'dynamodb:GetItem on table [BACKFILL#*]',
    'dynamodb:PutItem on table [BACKFILL#*]',
    'dynamodb:BatchGetItem on table [PERSON#* GRAM#* LOCALREF#*]',
    'dynamodb:GetItem on table [PERSON#*]',
    `dynamodb:PutItem on table [PERSON#* GRAM#*] ${TX}`,
    `dynamodb:PutItem on table [LOCALREF#*] ${TX}`,
    `dynamodb:DeleteItem on table [PERSON#* GRAM#*] ${TX}`,
    `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
  ],
  'get-openapi': [],
  'get-person-schema': [],
  'get-context': [],
  'get-docs': [],
  'get-problem': [],
  'route-not-found': [],
};

const READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  // list-events reads its cursor key's secret, and nothing of it besides.
  'secretsmanager:GetSecretValue',
];
const READ_ONLY = [
  'get-person',
  'get-own-person',
  'list-persons',
  'export-persons',
  'reconcile-persons',
  'suggest-persons',
  'preview-person',
  'list-person-audit',
  'list-prefixes',
  'get-prefix',
  'list-suffixes',
  'get-suffix',
  'list-name-prefixes',
  'get-name-prefix',
  'list-name-suffixes',
  'get-name-suffix',
  'list-change-history',
  'get-change-history',
  'list-events',
  'list-subscriptions',
  'get-subscription',
  'list-deliveries',
];

/** The functions that sign or check the change feed's cursors, and so read their key's secret. */
const FEED_CURSOR_READERS = ['list-events', 'replay-subscription'];

/** The functions that may use the webhook key, and how: a create and a rotation seal and open secrets. */
const WEBHOOK_KEY_USERS: Record<string, string[]> = {
  'create-subscription': ['kms:Decrypt', 'kms:Encrypt'],
  'rotate-subscription-secret': ['kms:Decrypt', 'kms:Encrypt'],
  'deliver-webhooks': ['kms:Decrypt'],
};

describe('least privilege', () => {
  it('covers every function of the stack', () => {
    expect([...functions.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s has exactly its grants', (handler, expected) => {
    expect(grantsOf(handler)).toEqual([...EXECUTION, ...expected].sort());
  });

  it('gives read-only functions reads and nothing else', () => {
    for (const handler of READ_ONLY) {
      const found = functions.get(handler) as { resource: Resource };
      const actions = permissionsOf(template, roleOf(found.resource))
        .map(({ action }) => action)
        .filter((action) => !EXECUTION_ACTIONS.includes(action));
      expect(actions.length).toBeGreaterThan(0);
      expect(actions.filter((action) => !READ_ACTIONS.includes(action))).toEqual([]);
    }
  });

  it('lets list-persons read only the byName index, the person counters, the id counter, the postings and their counts, the reference items and persons', () => {
    const found = functions.get('list-persons') as { resource: Resource };
    const allowed = [
      ...PERSON_COUNTER_KEYS.map(({ pk }) => pk),
      'COUNTER#ids',
      'GRAM#*',
      'POSTINGCOUNT#*',
      'LOCALREF#*',
      'PERSON#*',
    ];
    for (const { action, resource, condition } of permissionsOf(template, roleOf(found.resource))) {
      if (EXECUTION_ACTIONS.includes(action)) continue;
      if (resource === `${tableId}.Arn`)
        for (const pattern of (condition as Record<string, Record<string, string[]>>)[
          'ForAllValues:StringLike'
        ]?.['dynamodb:LeadingKeys'] ?? ['(none)'])
          expect(allowed).toContain(pattern);
      else expect(resource).toBe(`${tableId}.Arn/index/byName`);
    }
  });

  it('lets only the ChangeHistory functions read the ChangeHistory indexes, each only the one it queries', () => {
    const indexReaders = (index: string) =>
      [...functions.keys()].filter((handler) =>
        permissionsOf(template, roleOf((functions.get(handler) as { resource: Resource }).resource)).some(
          ({ resource }) => resource === `${tableId}.Arn/index/${index}`,
        ),
      );
    expect(indexReaders('byChange')).toEqual(['list-change-history']);
    // An unmerge of a merge made before records were kept reads its two MERGE entries by id.
    expect(indexReaders('byChangeId').sort()).toEqual(['get-change-history', 'unmerge-person']);
    expect(indexReaders('byName').sort()).toEqual(['export-persons', 'list-persons']);
  });

  it('lets only create-subscription and rotate-subscription-secret (Encrypt, Decrypt) and deliver-webhooks (Decrypt) use the webhook key, and no one another KMS action', () => {
    const kmsActionsOf = (roleId: string) =>
      permissionsOf(template, roleId)
        .filter(({ action }) => action.startsWith('kms:'))
        .map(({ action, resource, condition }) => {
          // On the key itself, not every key: no condition widens or narrows it.
          expect({ action, resource, condition }).toEqual({
            action,
            resource: `${webhookKeyId}.Arn`,
            condition: undefined,
          });
          return action;
        })
        .sort();
    const users = Object.fromEntries(
      [...functions]
        .map(([handler, { resource }]) => [handler, kmsActionsOf(roleOf(resource))] as const)
        .filter(([, actions]) => actions.length > 0),
    );
    expect(users).toEqual(WEBHOOK_KEY_USERS);
    // Nor any other role of the stack (the custom-resource framework's).
    const others = Object.keys(resourcesOf(template, 'AWS::IAM::Role')).filter(
      (roleId) => ![...functions.values()].some(({ resource }) => roleOf(resource) === roleId),
    );
    expect(others.length).toBeGreaterThan(0);
    for (const roleId of others)
      expect({ roleId, actions: kmsActionsOf(roleId) }).toEqual({ roleId, actions: [] });
  });

  it('lets only list-events and replay-subscription read the feed cursor key (GetSecretValue), and no one another action on it', () => {
    const readers = Object.fromEntries(
      [...functions]
        .map(
          ([handler, { resource }]) =>
            [
              handler,
              permissionsOf(template, roleOf(resource))
                .filter(({ resource: target }) => target === `${cursorSecretId}.Ref`)
                .map(({ action, condition }) => ({ action, condition })),
            ] as const,
        )
        .filter(([, grants]) => grants.length > 0),
    );
    expect(readers).toEqual(
      Object.fromEntries(
        FEED_CURSOR_READERS.map((handler) => [
          handler,
          [{ action: 'secretsmanager:GetSecretValue', condition: undefined }],
        ]),
      ),
    );
  });

  it('keeps the webhook key rotated by KMS, retained with the table, its key policy naming the account only', () => {
    const [, key] = only(resourcesOf(template, 'AWS::KMS::Key'));
    expect(key.Properties.EnableKeyRotation).toBe(true);
    // Kept as the table is: the secrets sealed with it open with no other key.
    expect(key.DeletionPolicy).toBe('Retain');
    expect(key.DeletionPolicy).toBe(resourcesOf(template, 'AWS::DynamoDB::Table')[tableId]?.DeletionPolicy);
    // The key policy grants no function by itself: who may use the key is the roles' policies above.
    expect(key.Properties.KeyPolicy.Statement).toEqual([
      {
        Action: 'kms:*',
        Effect: 'Allow',
        Principal: {
          AWS: {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root'],
            ],
          },
        },
        Resource: '*',
      },
    ]);
  });

  it('grants table management or a wildcard action to nobody in the stack, and Scan only to the one-off backfill', () => {
    const actions = policyStatementsOf(template).flatMap(
      (statement: Json) => [statement.Action].flat() as string[],
    );
    expect(actions.length).toBeGreaterThan(0);
    expect(
      actions.filter((action) => /^dynamodb:(DeleteTable|UpdateTable|CreateTable|PartiQL.*)$/.test(action)),
    ).toEqual([]);
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
    const scanners = [...functions.keys()].filter((handler) =>
      permissionsOf(template, roleOf((functions.get(handler) as { resource: Resource }).resource)).some(
        ({ action }) => action === 'dynamodb:Scan',
      ),
    );
    expect(scanners).toEqual(['backfill-postings']);
    expect(actions.filter((action) => action === 'dynamodb:Scan')).toHaveLength(1);
  });

  it('gives every function a role of its own, and no role in the stack a managed policy', () => {
    const roles = [...functions.values()].map(({ resource }) => roleOf(resource));
    expect(new Set(roles).size).toBe(roles.length);
    const allRoles = Object.entries(resourcesOf(template, 'AWS::IAM::Role'));
    expect(allRoles.length).toBeGreaterThan(roles.length);
    for (const [roleId, role] of allRoles)
      expect({ roleId, managed: role.Properties.ManagedPolicyArns }).toEqual({ roleId, managed: undefined });
  });

  it('writes each function’s grants inline in its role, within IAM’s 10 240 characters of a role’s inline policies', () => {
    const attached = Object.values(resourcesOf(template, 'AWS::IAM::Policy')).flatMap(({ Properties }) =>
      Properties.Roles.map((role: { Ref: string }) => role.Ref),
    );
    for (const { resource } of functions.values()) {
      const roleId = roleOf(resource);
      const inline = resourcesOf(template, 'AWS::IAM::Role')[roleId]?.Properties.Policies;
      // IAM counts the policies' characters without their whitespace; a token's text stands in for the ARN it resolves to.
      const size = inline.reduce(
        (sum: number, { PolicyDocument }: { PolicyDocument: Json }) =>
          sum + JSON.stringify(PolicyDocument).length,
        0,
      );
      expect({ roleId, attached: attached.includes(roleId), fits: size < 10_240 }).toEqual({
        roleId,
        attached: false,
        fits: true,
      });
    }
  });

  it('lets the custom-resource framework’s functions write their log group, trace, and invoke their function', () => {
    const lambdas = Object.entries(resourcesOf(template, 'AWS::Lambda::Function'));
    const framework = lambdas.filter(([id]) => ![...functions.values()].some((service) => service.id === id));
    expect(framework).toHaveLength(4);
    for (const [, resource] of framework) {
      const logGroupId = resource.Properties.LoggingConfig.LogGroup.Ref as string;
      const invoked = resource.Properties.Environment.Variables.USER_ON_EVENT_FUNCTION_ARN['Fn::GetAtt'][0];
      const grants = permissionsOf(template, roleOf(resource))
        .filter(({ action }) => !action.startsWith('states:'))
        .map(({ action, resource: on }) => `${action} on ${on}`)
        .sort();
      expect(grants).toEqual(
        [
          `logs:CreateLogStream on ${logGroupId}.Arn`,
          `logs:PutLogEvents on ${logGroupId}.Arn`,
          'xray:PutTelemetryRecords on *',
          'xray:PutTraceSegments on *',
          `lambda:InvokeFunction on ${invoked}.Arn`,
          `lambda:InvokeFunction on ${invoked}.Arn:*`,
          `lambda:GetFunction on ${invoked}.Arn`,
        ].sort(),
      );
    }
  });
});

describe('partition patterns', () => {
  const matches = (pattern: string, value: string) =>
    new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`).test(value);
  const allowed = (handler: string) => (TABLE_ACCESS[handler] ?? []).flatMap((rule) => rule.partitions ?? []);
  const reaches = (handler: string, pk: string) => allowed(handler).some((pattern) => matches(pattern, pk));

  it('are derived from the key builders, so they cover the keys the code writes', () => {
    expect(partitionsLike(personKey(12345))).toBe('PERSON#*');
    expect(claimsOf('NamePrefix')).toEqual(['ABBREVIATION#NamePrefix#*', 'HASHED#ABBREVIATION#NamePrefix#*']);
    expect(vocabularyOf('NameSuffix')).toBe('VOCABULARY#NameSuffix');
    expect(changeCountersOf('Person')).toHaveLength(8);
    const personClaims = [
      claimKey({ field: 'email', value: 'ada@example.org' }),
      claimKey({ field: 'name', value: 'ada lovelace' }),
      // A folded name over 1024 bytes is hashed into the key.
      claimKey({ field: 'name', value: 'ada '.repeat(300) }),
    ];
    const person = [
      personKey(7),
      historyKey('Person', 7, 3),
      ...personClaims,
      idCounterKey,
      personCounterKey(7),
      personCounterKey(8),
    ];
    // Every shard a change id may land on.
    const personCounters = Array.from({ length: 16 }, (_, id) => changeCounterKeyOf('Person', id));
    for (const { pk } of [...person, ...personCounters, vocabularyKey('NameSuffix', 505)])
      expect({ pk, allowed: reaches('create-person', pk) }).toEqual({ pk, allowed: true });
    const entry = [
      vocabularyKey('NamePrefix', 600),
      historyKey('NamePrefix', 600, 2),
      changeCounterKeyOf('NamePrefix', 1234),
      // A long abbreviation is hashed into the key; the pattern still covers it.
      claimKey({ field: 'NamePrefix', value: 'x'.repeat(2000) }),
      personKey(7),
    ];
    for (const { pk } of entry)
      expect({ pk, allowed: reaches('update-name-prefix', pk) }).toEqual({ pk, allowed: true });
    for (const { pk } of [feedHeadKey(0), feedHeadKey(7), feedEventKey(3, 12)])
      expect({ pk, allowed: reaches('list-events', pk) }).toEqual({ pk, allowed: true });
    for (const { pk } of [
      vocabularyKey('NamePrefix', 1),
      vocabularyKey('NameSuffix', 1),
      historyKey('NameSuffix', 1, 1),
      claimKey({ field: 'NameSuffix', value: 'ii' }),
      changeCounterKeyOf('NameSuffix', 1),
      idCounterKey,
    ])
      expect({ pk, allowed: reaches('seed-reference-data', pk) }).toEqual({ pk, allowed: true });
    // A subscription's item, by every function of the routes; the requester, checked by every write.
    const subscription = subscriptionKey('0b7e4c1e-5d0a-4f2e-9c3b-2a1d0e9f8c7b').pk;
    const subscriptionWrites = [
      'create-subscription',
      'update-subscription',
      'rotate-subscription-secret',
      'delete-subscription',
    ];
    for (const handler of ['list-subscriptions', 'get-subscription', ...subscriptionWrites])
      expect({ handler, allowed: reaches(handler, subscription) }).toEqual({ handler, allowed: true });
    for (const handler of [...subscriptionWrites, 'replay-subscription'])
      expect({ handler, allowed: reaches(handler, personKey(7).pk) }).toEqual({ handler, allowed: true });
    // A subscription's own partition: its lane (put by a create, deleted with it, set back by a
    // replay) and its attempts (listed).
    const id = '0b7e4c1e-5d0a-4f2e-9c3b-2a1d0e9f8c7b';
    const lane = subscriptionLaneKey(id).pk;
    const attempts = deliveryKey(id, Date.parse('2025-01-02T03:04:05.678Z'), 123456, 3).pk;
    for (const handler of ['create-subscription', 'delete-subscription', 'replay-subscription'])
      expect({ handler, allowed: reaches(handler, lane) }).toEqual({ handler, allowed: true });
    expect(reaches('list-deliveries', subscription)).toBe(true);
    expect(reaches('list-deliveries', attempts)).toBe(true);
  });

  it('do not reach across item kinds', () => {
    const never: [string, string][] = [
      ['get-person', claimKey({ field: 'email', value: 'a@b.c' }).pk],
      ['list-persons', claimKey({ field: 'email', value: 'a@b.c' }).pk],
      ['enrich-person', personCounterKey(3).pk],
      // The posting counts are kept apart from the postings and the persons they count.
      ['count-postings', postingKey('abc', 1).pk],
      ['count-postings', personKey(1).pk],
      ['create-person', postingCountKey('abc').pk],
      // A vocabulary's functions touch that vocabulary only, and never a person's claims or counters.
      ['create-name-prefix', vocabularyKey('NameSuffix', 1).pk],
      ['create-name-prefix', historyKey('NameSuffix', 1, 1).pk],
      ['create-name-prefix', claimKey({ field: 'NameSuffix', value: 'ii' }).pk],
      ['create-name-prefix', claimKey({ field: 'email', value: 'a@b.c' }).pk],
      ['create-name-prefix', personCounterKey(3).pk],
      ['update-name-suffix', vocabularyKey('NamePrefix', 1).pk],
      ['update-name-suffix', changeCounterKeyOf('Person', 1).pk],
      ['list-name-prefixes', vocabularyKey('NameSuffix', 1).pk],
      ['get-suffix', vocabularyKey('NamePrefix', 1).pk],
      // Persons never write vocabulary entries, their history or their claims.
      ['update-person', claimKey({ field: 'NamePrefix', value: 'dr.' }).pk],
      ['update-person', historyKey('NamePrefix', 21, 1).pk],
      ['update-person', personCounterKey(3).pk],
      // The change counters are never the id or person counter.
      ['create-person', 'COUNTER#anything'],
      ['list-change-history', idCounterKey.pk],
      ['list-change-history', personCounterKey(3).pk],
      ['get-change-history', vocabularyKey('NamePrefix', 1).pk],
      // The seed writes no person (it reads the person counters: a table with none is marked).
      ['seed-reference-data', personKey(1).pk],
      // The feed's reader reads the shards only: not the marks of appended events, nor what they name.
      ['list-events', feedMarkKey(1).pk],
      ['list-events', historyKey('Person', 1, 1).pk],
      ['list-events', personKey(1).pk],
      // Webhook subscriptions: their own partition, and the requester's check; never a person's other
      // items, a binding (granted only with requester binding on), a counter or another item kind.
      ['list-subscriptions', personKey(1).pk],
      ['get-subscription', personKey(1).pk],
      ['create-subscription', idCounterKey.pk],
      ['create-subscription', principalKey('principal').pk],
      ['update-subscription', claimKey({ field: 'email', value: 'a@b.c' }).pk],
      ['rotate-subscription-secret', changeCounterKeyOf('Person', 1).pk],
      ['delete-subscription', feedHeadKey(0).pk],
      // The attempts are listed from the subscription's own partition, nothing else; a replay sets the
      // lane back only: never the subscription's item, the feed or a binding (without the option).
      ['list-deliveries', personKey(1).pk],
      ['list-deliveries', feedHeadKey(0).pk],
      ['list-deliveries', idempotencyKey('hash').pk],
      ['replay-subscription', subscriptionKey('0b7e4c1e-5d0a-4f2e-9c3b-2a1d0e9f8c7b').pk],
      ['replay-subscription', feedHeadKey(0).pk],
      ['replay-subscription', principalKey('principal').pk],
      ['replay-subscription', claimKey({ field: 'email', value: 'a@b.c' }).pk],
      ['create-person', subscriptionKey('0b7e4c1e-5d0a-4f2e-9c3b-2a1d0e9f8c7b').pk],
      ['erase-person', subscriptionKey('0b7e4c1e-5d0a-4f2e-9c3b-2a1d0e9f8c7b').pk],
    ];
    expect(never.filter(([handler, pk]) => reaches(handler, pk))).toEqual([]);
    expect(
      (TABLE_ACCESS['seed-reference-data'] ?? [])
        .filter((rule) => rule.partitions?.some((pattern) => matches(pattern, personCounterKey(3).pk)))
        .map((rule) => rule.actions),
    ).toEqual([['BatchGetItem']]);
  });

  it('let an erasure release the claims, postings, reference item and binding, never take one, and keep no idempotency record of its own (API.md 15)', () => {
    const rules = tableAccessOf('erase-person', { requesterBinding: true });
    const actionsOn = (pk: string) =>
      [
        ...new Set(
          rules
            .filter((rule) => rule.partitions?.some((pattern) => matches(pattern, pk)))
            .flatMap((rule) => rule.actions),
        ),
      ].sort();
    const released = [
      claimKey({ field: 'email', value: 'ada@example.org' }),
      claimKey({ field: 'name', value: 'ada lovelace' }),
      claimKey({ field: 'name', value: 'ada '.repeat(300) }),
      localReferenceKey('ada-1', 7),
      postingKey('ada', 7),
    ];

    for (const { pk } of released)
      expect({ pk, actions: actionsOn(pk) }).toEqual({ pk, actions: ['DeleteItem'] });
    expect(actionsOn(principalKey('https://issuer.example.org ada').pk)).toEqual([
      'BatchGetItem',
      'DeleteItem',
    ]);
    // A stored answer about the person is made its tombstone; none is put or deleted.
    expect(actionsOn(idempotencyKey('hash').pk)).toEqual(['UpdateItem']);
    expect(actionsOn(personCounterKey(7).pk)).toEqual(['UpdateItem']);
    // Outside its transactions it writes nothing but the reservation of its history entry's id.
    const reads = ['BatchGetItem', 'GetItem', 'Query'];
    expect(
      rules.filter((rule) => !rule.transactional && rule.actions.some((action) => !reads.includes(action))),
    ).toEqual([
      { actions: ['UpdateItem'], partitions: [idCounterKey.pk] },
      { actions: ['UpdateItem'], partitions: ['IDEMPOTENCY#*'] },
    ]);
  });

  it('leave the id counter (and the backfill its own positions, keyed writes their idempotency records, the posting counts: the stream and the deploy seed; a webhook lane its own partition) the only partitions written outside a transaction', () => {
    const writes = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'];
    const allowed = [
      { actions: ['UpdateItem'], partitions: [idCounterKey.pk] },
      { actions: ['GetItem', 'PutItem'], partitions: ['BACKFILL#*'] },
      { actions: ['PutItem', 'UpdateItem', 'DeleteItem'], partitions: ['IDEMPOTENCY#*'] },
      // An erasure makes the stored answers about its person the tombstone (API.md 15).
      { actions: ['UpdateItem'], partitions: ['IDEMPOTENCY#*'] },
      { actions: ['UpdateItem'], partitions: ['POSTINGCOUNT#*'] },
      { actions: ['PutItem'], partitions: ['POSTINGCOUNT#'] },
      // A webhook lane's lease, position and attempts: each subscription's own partition.
      { actions: ['UpdateItem', 'PutItem'], partitions: ['SUBSCRIPTION#*'] },
    ];
    for (const rules of Object.values(TABLE_ACCESS))
      for (const rule of rules)
        if (!rule.transactional && rule.actions.some((action) => writes.includes(action)))
          expect(allowed).toContainEqual(rule);
  });
});
