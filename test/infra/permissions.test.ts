/**
 * Least privilege, read from the synthesized IAM policies: the expected grants are written out here,
 * independently of infra/table-access.ts, so a grant added there (a write for a read-only function,
 * a Scan anywhere) fails a test until this list agrees.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { partitionsLike, TABLE_ACCESS } from '../../infra/table-access';
import { claimKey, idCounterKey, personCounterKey, personKey, prefixKey, suffixKey } from '../../lib/db/keys';
import {
  type Json,
  only,
  permissionsOf,
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
let queueId: string;

beforeAll(() => {
  ({ template } = synthesize());
  functions = serviceFunctions(template);
  [tableId] = only(template.findResources('AWS::DynamoDB::Table'));
  [secretId] = only(template.findResources('AWS::SecretsManager::Secret'));
  [queueId] = only(template.findResources('AWS::SQS::Queue'));
});

/** A grant as the tests write it: `action on resource [partitions] (tx)`. */
const grantsOf = (handler: string): string[] => {
  const found = functions.get(handler);
  if (!found) throw new Error(`No function bundles ${handler}`);
  const names: Record<string, string> = {
    [`${tableId}.Arn`]: 'table',
    [`${tableId}.Arn/index/byName`]: 'index byName',
    [`${tableId}.StreamArn`]: 'stream',
    [`${secretId}.Ref`]: 'secret',
    [`${queueId}.Arn`]: 'dead-letter queue',
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

const TX = '(TransactWriteItems)';
const RESERVE_IDS = 'dynamodb:UpdateItem on table [COUNTER#ids]';

const EXPECTED: Record<string, string[]> = {
  'get-person': ['dynamodb:GetItem on table [PERSON#*]'],
  'list-persons': ['dynamodb:GetItem on table [COUNTER#persons]', 'dynamodb:Query on index byName'],
  'list-person-audit': ['dynamodb:GetItem on table [PERSON#*]', 'dynamodb:Query on table [PERSON#*]'],
  'list-prefixes': ['dynamodb:Query on table [PREFIX]'],
  'get-prefix': ['dynamodb:GetItem on table [PREFIX]'],
  'list-suffixes': ['dynamodb:Query on table [SUFFIX]'],
  'get-suffix': ['dynamodb:GetItem on table [SUFFIX]'],
  'create-person': [
    RESERVE_IDS,
    `dynamodb:PutItem on table [PERSON#* EMAIL#* NAME#*] ${TX}`,
    `dynamodb:UpdateItem on table [COUNTER#persons] ${TX}`,
    `dynamodb:ConditionCheckItem on table [PERSON#*] ${TX}`,
  ],
  'update-person': [
    RESERVE_IDS,
    'dynamodb:BatchGetItem on table [PERSON#*]',
    `dynamodb:PutItem on table [PERSON#* EMAIL#* NAME#*] ${TX}`,
    `dynamodb:DeleteItem on table [EMAIL#* NAME#*] ${TX}`,
  ],
  'enrich-person': [
    RESERVE_IDS,
    'dynamodb:Query on table [PERSON#*]',
    `dynamodb:PutItem on table [PERSON#*] ${TX}`,
    // The stream, as the event source mapping reads it (ListStreams takes no resource but *).
    'dynamodb:DescribeStream on stream',
    'dynamodb:GetRecords on stream',
    'dynamodb:GetShardIterator on stream',
    'dynamodb:ListStreams on *',
    'secretsmanager:GetSecretValue on secret',
    'sqs:GetQueueAttributes on dead-letter queue',
    'sqs:GetQueueUrl on dead-letter queue',
    'sqs:SendMessage on dead-letter queue',
  ],
  'seed-reference-data': ['dynamodb:BatchWriteItem on table [PREFIX SUFFIX]'],
  'get-openapi': [],
  'get-person-schema': [],
  'get-context': [],
  'get-docs': [],
  'route-not-found': [],
};

const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
const READ_ONLY = [
  'get-person',
  'list-persons',
  'list-person-audit',
  'list-prefixes',
  'get-prefix',
  'list-suffixes',
  'get-suffix',
];

describe('least privilege', () => {
  it('covers every function of the stack', () => {
    expect([...functions.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s has exactly its grants', (handler, expected) => {
    expect(grantsOf(handler)).toEqual([...expected].sort());
  });

  it('gives read-only functions reads and nothing else', () => {
    for (const handler of READ_ONLY) {
      const found = functions.get(handler) as { resource: Resource };
      const actions = permissionsOf(template, roleOf(found.resource)).map(({ action }) => action);
      expect(actions.length).toBeGreaterThan(0);
      expect(actions.filter((action) => !READ_ACTIONS.includes(action))).toEqual([]);
    }
  });

  it('lets list-persons read only the byName index and the person counter', () => {
    const found = functions.get('list-persons') as { resource: Resource };
    for (const { resource, condition } of permissionsOf(template, roleOf(found.resource))) {
      if (resource === `${tableId}.Arn`)
        expect(condition).toEqual({
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [personCounterKey.pk] },
        });
      else expect(resource).toBe(`${tableId}.Arn/index/byName`);
    }
  });

  it('grants Scan, table management or a wildcard action to nobody in the stack', () => {
    const statements = Object.values(resourcesOf(template, 'AWS::IAM::Policy')).flatMap(
      ({ Properties }) => Properties.PolicyDocument.Statement,
    );
    const actions = statements.flatMap((statement: Json) => [statement.Action].flat() as string[]);
    expect(actions.length).toBeGreaterThan(0);
    expect(
      actions.filter((action) =>
        /^dynamodb:(Scan|DeleteTable|UpdateTable|CreateTable|PartiQL.*)$/.test(action),
      ),
    ).toEqual([]);
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
  });

  it('gives every function a role of its own with only the basic execution managed policy', () => {
    const roles = [...functions.values()].map(({ resource }) => roleOf(resource));
    expect(new Set(roles).size).toBe(roles.length);
    const allRoles = resourcesOf(template, 'AWS::IAM::Role');
    for (const roleId of roles) {
      expect(JSON.stringify(allRoles[roleId]?.Properties.ManagedPolicyArns)).toMatch(
        /^\[\{"Fn::Join":\["",\["arn:",\{"Ref":"AWS::Partition"\},":iam::aws:policy\/service-role\/AWSLambdaBasicExecutionRole"\]\]\}\]$/,
      );
    }
  });
});

describe('partition patterns', () => {
  const matches = (pattern: string, value: string) =>
    new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`).test(value);
  const allowed = (handler: string) => (TABLE_ACCESS[handler] ?? []).flatMap((rule) => rule.partitions ?? []);

  it('are derived from the key builders, so they cover the keys the code writes', () => {
    expect(partitionsLike(personKey(12345))).toBe('PERSON#*');
    const claims = [
      claimKey({ field: 'email', value: 'ada@example.org' }),
      claimKey({ field: 'name', value: 'ada lovelace' }),
    ];
    for (const { pk } of [personKey(7), ...claims, idCounterKey, personCounterKey])
      expect(allowed('create-person').some((pattern) => matches(pattern, pk))).toBe(true);
    for (const { pk } of [prefixKey(3), suffixKey(4)])
      expect(allowed('seed-reference-data').some((pattern) => matches(pattern, pk))).toBe(true);
  });

  it('do not reach across item kinds', () => {
    expect(
      allowed('get-person').some((pattern) =>
        matches(pattern, claimKey({ field: 'email', value: 'a@b.c' }).pk),
      ),
    ).toBe(false);
    expect(allowed('list-persons').some((pattern) => matches(pattern, personKey(1).pk))).toBe(false);
    expect(allowed('enrich-person').some((pattern) => matches(pattern, personCounterKey.pk))).toBe(false);
  });
});
