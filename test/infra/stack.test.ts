import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { VISIBILITY_TIMEOUTS } from '../../infra/bus-consumer';
import { SEEDED_VOCABULARY } from '../../infra/handlers/seed/vocabulary-seed';
import {
  constructIdOf,
  FEED_CURSOR_HANDLERS,
  FRAMEWORK_MEMORY_MB,
  type PersonServiceStack,
  RUNBOOK_PATH,
  WEBHOOK_KEY_HANDLERS,
  WEBHOOK_LANE_TIMEOUT,
} from '../../infra/person-service-stack';
import { BUS_SUBSCRIPTIONS, WAKE_WEBHOOKS } from '../../lib/api/bus-subscriptions';
import { FALLBACK_HANDLER, ROUTES, servedMethods } from '../../lib/api/routes';
import { STREAM_SUBSCRIPTIONS } from '../../lib/db/table/stream-subscriptions';
import { ENRICHMENT_KEY_SECRET_ENV } from '../../lib/enrichment/from-env';
import { FEED_CURSOR_KEY_ENV, FEED_CURSOR_SECRET_ENV } from '../../lib/secrets';
import { DELIVER_FUNCTION_ENV, DELIVER_HANDLER } from '../../lib/webhooks/lane-invoker';
import { WEBHOOK_KEY_ID_ENV, WEBHOOK_SECRET_KEY_ENV } from '../../lib/webhooks/secret-box';
import {
  type Json,
  nestedStackId,
  only,
  onlyNamed,
  permissionsOf,
  type Resource,
  resourcesOf,
  roleOf,
  serviceFunctions,
  synthesize,
} from './support';

let stack: PersonServiceStack;
let template: Template;
/** The monitoring nested stack's template, parameters read as the parent passes them (support.ts). */
let monitoring: Template;
let functions: ReturnType<typeof serviceFunctions>;
let tableId: string;

beforeAll(() => {
  ({ stack, template, monitoring } = synthesize());
  functions = serviceFunctions(template);
  [tableId] = only(template.findResources('AWS::DynamoDB::Table'));
});

const fn = (handler: string) => {
  const found = functions.get(handler);
  if (!found) throw new Error(`No function bundles ${handler}`);
  return found;
};

const ref = (value: { Ref?: string; 'Fn::GetAtt'?: string[] }) => value.Ref ?? value['Fn::GetAtt']?.[0];

/** Every route key the route table makes: its routes, and a HEAD route beside each GET one. */
const ROUTE_KEYS = ROUTES.flatMap((route) =>
  servedMethods(route).map((method) => ({ key: `${method} ${route.path}`, route })),
);

const ROUTE_HANDLERS = [...new Set(ROUTES.map((route) => route.handler))];
const STREAM_HANDLERS = STREAM_SUBSCRIPTIONS.map((subscription) => subscription.handler);
const BUS_HANDLERS = BUS_SUBSCRIPTIONS.map((subscription) => subscription.handler);
const TABLE_HANDLERS = [
  'get-person',
  'get-own-person',
  'bind-principal',
  'unbind-principal',
  'merge-person',
  'unmerge-person',
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
  'create-name-prefix',
  'get-name-prefix',
  'update-name-prefix',
  'list-name-suffixes',
  'create-name-suffix',
  'get-name-suffix',
  'update-name-suffix',
  'list-change-history',
  'get-change-history',
  'list-events',
  'list-duplicates',
  'get-duplicate',
  'decide-duplicate',
  'list-subscriptions',
  'create-subscription',
  'get-subscription',
  'update-subscription',
  'delete-subscription',
  'rotate-subscription-secret',
  'list-deliveries',
  'replay-subscription',
  'create-person',
  'update-person',
  'erase-person',
  'enrich-person',
  'finish-erasure',
  'detect-duplicates',
  'count-postings',
  'append-events',
  'wake-webhooks',
  'deliver-webhooks',
  'seed-reference-data',
  'backfill-postings',
];

describe('functions', () => {
  it('are one per handler module: every route handler, the fallback, the stream and bus handlers, the seed, the backfill', () => {
    expect([...functions.keys()].sort()).toEqual(
      [
        ...ROUTE_HANDLERS,
        FALLBACK_HANDLER,
        ...STREAM_HANDLERS,
        ...BUS_HANDLERS,
        DELIVER_HANDLER,
        'seed-reference-data',
        'backfill-postings',
      ].sort(),
    );
  });

  it('are all the service’s own, besides the custom-resource framework CDK provides', () => {
    const others = Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).filter(
      ([id]) => ![...functions.values()].some((service) => service.id === id),
    );
    expect(others.map(([, resource]) => resource.Properties.Description)).toEqual([
      'AWS CDK resource provider framework - onEvent (PersonServiceStack/ReferenceDataProvider)',
      'AWS CDK resource provider framework - onEvent (PersonServiceStack/PostingsBackfillProvider)',
      'AWS CDK resource provider framework - isComplete (PersonServiceStack/PostingsBackfillProvider)',
      'AWS CDK resource provider framework - onTimeout (PersonServiceStack/PostingsBackfillProvider)',
    ]);
  });

  it('all trace actively, and have their memory set: the service’s 512 MB, the framework’s 256 MB', () => {
    for (const [id, resource] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
      const own = [...functions.values()].some((service) => service.id === id);
      expect({
        id,
        tracing: resource.Properties.TracingConfig,
        memory: resource.Properties.MemorySize,
      }).toEqual({
        id,
        tracing: { Mode: 'Active' },
        memory: own ? 512 : FRAMEWORK_MEMORY_MB,
      });
    }
  });

  it('run Node.js 24 on arm64, from index.mjs’s handler export', () => {
    for (const { resource } of functions.values()) {
      expect(resource.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
    }
  });

  it('log under the Powertools service name, trace no return value, and start without --enable-source-maps (names stay in the bundles)', () => {
    for (const { resource } of functions.values()) {
      expect(resource.Properties.Environment.Variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'person-service',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
      });
      expect(resource.Properties.Environment.Variables.NODE_OPTIONS).toBeUndefined();
    }
  });

  it('each log to a log group of its own that keeps logs for 30 days', () => {
    const logGroups = resourcesOf(template, 'AWS::Logs::LogGroup');
    const used = new Set<string>();
    for (const { resource } of functions.values()) {
      const logGroupId = resource.Properties.LoggingConfig.LogGroup.Ref as string;
      expect(logGroups[logGroupId]?.Properties.RetentionInDays).toBe(30);
      used.add(logGroupId);
    }
    expect(used.size).toBe(functions.size);
  });

  it('are told the table name exactly when they use the table', () => {
    for (const [handler, { resource }] of functions) {
      const tableName = resource.Properties.Environment.Variables.TABLE_NAME;
      if (TABLE_HANDLERS.includes(handler)) expect(tableName).toEqual({ Ref: tableId });
      else expect(tableName).toBeUndefined();
    }
  });

  it('give enrichment the provider key’s secret by reference, never the key itself', () => {
    const [secretId] = onlyNamed(template.findResources('AWS::SecretsManager::Secret'), 'EnrichmentApiKey');
    const variables = fn('enrich-person').resource.Properties.Environment.Variables;
    expect(variables[ENRICHMENT_KEY_SECRET_ENV]).toEqual({ Ref: secretId });
    expect(variables.ENRICHMENT_API_KEY).toBeUndefined();
  });

  it('give list-events and replay-subscription (whose `after` is a feed cursor), and no other, the feed cursor key’s secret by reference: a key generated by the stack, read only', () => {
    const [secretId, secret] = onlyNamed(
      resourcesOf(template, 'AWS::SecretsManager::Secret'),
      'FeedCursorKey',
    );
    // Generated: no one types it, nor sees it in the template.
    expect(secret.Properties.GenerateSecretString).toMatchObject({
      PasswordLength: 64,
      ExcludePunctuation: true,
    });
    expect(secret.Properties.SecretString).toBeUndefined();
    expect(secret.DeletionPolicy).toBe('Retain');
    for (const [handler, { resource }] of functions) {
      const variables = resource.Properties.Environment.Variables;
      expect({ handler, secret: variables[FEED_CURSOR_SECRET_ENV] }).toEqual({
        handler,
        secret: FEED_CURSOR_HANDLERS.includes(handler) ? { Ref: secretId } : undefined,
      });
      expect(variables[FEED_CURSOR_KEY_ENV]).toBeUndefined();
      const reads = permissionsOf(template, roleOf(resource)).filter(
        ({ resource: target }) => target === `${secretId}.Ref`,
      );
      expect({ handler, reads: reads.map(({ action }) => action) }).toEqual({
        handler,
        reads: FEED_CURSOR_HANDLERS.includes(handler) ? ['secretsmanager:GetSecretValue'] : [],
      });
    }
    expect(FEED_CURSOR_HANDLERS).toEqual(['list-events', 'replay-subscription']);
  });

  it('give create-subscription and rotate-subscription-secret the webhook key by ARN to Encrypt and Decrypt with, deliver-webhooks to Decrypt with, and no other function: a key of the stack’s, rotated', () => {
    const [keyId, key] = only(resourcesOf(template, 'AWS::KMS::Key'));
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
    for (const [handler, { resource }] of functions) {
      const variables = resource.Properties.Environment.Variables;
      const actions = WEBHOOK_KEY_HANDLERS[handler];
      expect({ handler, key: variables[WEBHOOK_KEY_ID_ENV] }).toEqual({
        handler,
        key: actions ? { 'Fn::GetAtt': [keyId, 'Arn'] } : undefined,
      });
      // Never a local sealing key: that is npm start's, where no KMS key is named.
      expect(variables[WEBHOOK_SECRET_KEY_ENV]).toBeUndefined();
      const uses = permissionsOf(template, roleOf(resource)).filter(
        ({ resource: target }) => target === `${keyId}.Arn`,
      );
      expect({ handler, uses: uses.map(({ action }) => action).sort() }).toEqual({
        handler,
        uses: [...(actions ?? [])].sort(),
      });
    }
    expect(WEBHOOK_KEY_HANDLERS).toEqual({
      'create-subscription': ['kms:Encrypt', 'kms:Decrypt'],
      'rotate-subscription-secret': ['kms:Encrypt', 'kms:Decrypt'],
      'deliver-webhooks': ['kms:Decrypt'],
    });
  });

  it('name the handler module they bundle in their description', () => {
    expect(fn('get-docs').resource.Properties.Description).toBe('GET /docs, GET /docs/{asset}');
    expect(fn('create-person').resource.Properties.Description).toBe('POST /Person');
    expect(fn('update-name-prefix').resource.Properties.Description).toBe('PATCH /NamePrefix/{id}');
    expect(fn('rotate-subscription-secret').resource.Properties.Description).toBe(
      'POST /Subscription/{id}/rotate',
    );
    expect(fn('list-deliveries').resource.Properties.Description).toBe('GET /Subscription/{id}/deliveries');
    expect(fn('replay-subscription').resource.Properties.Description).toBe('POST /Subscription/{id}/replay');
  });
});

describe('the HTTP API', () => {
  const routes = () => Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route'));

  /** The handler whose function a route's integration invokes. */
  const handlerOf = (route: Resource) => {
    const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
    const integration = resourcesOf(template, 'AWS::ApiGatewayV2::Integration')[integrationId] as Resource;
    expect(integration.Properties).toMatchObject({
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
    const functionId = ref(integration.Properties.IntegrationUri);
    return [...functions].find(([, { id }]) => id === functionId)?.[0];
  };

  it('has exactly the route table’s routes, a HEAD route beside each GET route, and $default for the rest', () => {
    expect(
      routes()
        .map((route) => route.Properties.RouteKey)
        .sort(),
    ).toEqual([...ROUTE_KEYS.map(({ key }) => key), '$default'].sort());
  });

  it('serves GET and HEAD /problems (the index, issue #53 step 3) as /problems/{name} is: same function, same authorization', () => {
    const byKey = (key: string) => routes().find((route) => route.Properties.RouteKey === key) as Resource;
    const page = byKey('GET /problems/{name}');
    for (const key of ['GET /problems', 'HEAD /problems']) {
      const index = byKey(key);
      expect(index, key).toBeDefined();
      expect(index.Properties.Target).toEqual(page.Properties.Target);
      expect(index.Properties.AuthorizationType).toEqual(page.Properties.AuthorizationType);
    }
  });

  it('has a HEAD route for every GET route, and for nothing else', () => {
    const keys = new Set(routes().map((route) => route.Properties.RouteKey as string));
    const gets = ROUTES.filter((route) => route.method === 'GET').map((route) => route.path);
    const heads = [...keys].filter((key) => key.startsWith('HEAD ')).map((key) => key.slice('HEAD '.length));
    expect(gets.length).toBeGreaterThan(0);
    expect(heads.sort()).toEqual(gets.sort());
  });

  it('sends each route to the function of its handler (HEAD to the GET route’s), and $default to the fallback', () => {
    for (const route of routes()) {
      const key = route.Properties.RouteKey as string;
      const expected =
        key === '$default'
          ? FALLBACK_HANDLER
          : ROUTE_KEYS.find((candidate) => candidate.key === key)?.route.handler;
      expect({ key, handler: handlerOf(route) }).toEqual({ key, handler: expected });
    }
  });

  it('lets API Gateway invoke each route function by one permission for any route of the API, the fallback by one per route', () => {
    const permissions = Object.values(resourcesOf(template, 'AWS::Lambda::Permission')).filter(
      (permission) => permission.Properties.Principal === 'apigateway.amazonaws.com',
    );
    const apiId = only(resourcesOf(template, 'AWS::ApiGatewayV2::Api'))[0];
    const sourceOf = (permission: Resource) => {
      const [, parts] = permission.Properties.SourceArn['Fn::Join'];
      expect(parts.slice(-2, -1)).toEqual([{ Ref: apiId }]);
      return parts.at(-1) as string;
    };
    const of = (handler: string) =>
      permissions.filter((permission) => ref(permission.Properties.FunctionName) === fn(handler).id);
    for (const handler of ROUTE_HANDLERS)
      expect({ handler, sources: of(handler).map(sourceOf) }).toEqual({ handler, sources: ['/*/*/*'] });
    // `$default`'s source ARN is `<api>/<stage>/$default`, which `/*/*/*` would not match.
    expect(of(FALLBACK_HANDLER).map(sourceOf)).toEqual(['/*/*']);
    expect(permissions).toHaveLength(ROUTE_HANDLERS.length + 1);
  });

  it('gives each HEAD route the integration and authorization of its GET route', () => {
    const byKey = new Map(routes().map((route) => [route.Properties.RouteKey as string, route]));
    const heads = [...byKey.keys()].filter((key) => key.startsWith('HEAD '));
    expect(heads.length).toBeGreaterThan(0);
    for (const key of heads) {
      const head = byKey.get(key)?.Properties;
      const get = byKey.get(key.replace(/^HEAD /, 'GET '))?.Properties;
      expect({ key, target: head.Target, auth: head.AuthorizationType }).toEqual({
        key,
        target: get.Target,
        auth: get.AuthorizationType,
      });
    }
  });

  it('authorizes with IAM by default and leaves only the self-description routes public', () => {
    for (const route of routes()) {
      const key = route.Properties.RouteKey as string;
      const isPublic = ROUTE_KEYS.some((candidate) => candidate.route.public && candidate.key === key);
      expect({ key, auth: route.Properties.AuthorizationType }).toEqual({
        key,
        auth: isPublic ? 'NONE' : 'AWS_IAM',
      });
    }
    expect(template.findResources('AWS::ApiGatewayV2::Authorizer')).toEqual({});
  });

  it('deploys one auto-deployed $default stage with throttling', () => {
    const [, stage] = only(resourcesOf(template, 'AWS::ApiGatewayV2::Stage'));
    expect(stage.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
    });
  });

  it('writes a JSON access log line per request to a retained log group', () => {
    const [, stage] = only(resourcesOf(template, 'AWS::ApiGatewayV2::Stage'));
    const { DestinationArn, Format } = stage.Properties.AccessLogSettings;
    const logGroup = resourcesOf(template, 'AWS::Logs::LogGroup')[ref(DestinationArn) as string] as Resource;
    expect(logGroup.Properties.RetentionInDays).toBe(30);
    expect(JSON.parse(Format)).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      integrationError: '$context.integrationErrorMessage',
    });
  });

  it('outputs its URL and the table name', () => {
    const outputs = template.toJSON().Outputs;
    const [apiId] = only(template.findResources('AWS::ApiGatewayV2::Api'));
    expect(JSON.stringify(outputs.ApiUrl.Value)).toContain(`{"Ref":"${apiId}"}`);
    expect(outputs.TableName.Value).toEqual({ Ref: tableId });
  });
});

/** The event source mappings that read the table's stream. */
const streamMappings = () =>
  Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).filter(
    (resource) =>
      JSON.stringify(resource.Properties.EventSourceArn) ===
      JSON.stringify({ 'Fn::GetAtt': [tableId, 'StreamArn'] }),
  );

/** The one event source mapping of a function. */
const mappingOf = (handler: string) =>
  only(
    Object.fromEntries(
      Object.entries(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).filter(
        ([, resource]) => ref(resource.Properties.FunctionName) === fn(handler).id,
      ),
    ),
  )[1].Properties;

describe('the table stream', () => {
  const queueOf = (handler: string) =>
    only(
      Object.fromEntries(
        Object.entries(resourcesOf(template, 'AWS::SQS::Queue')).filter(([queueId]) =>
          queueId.startsWith(`${constructIdOf(handler)}DeadLetters`),
        ),
      ),
    );

  it('has at most two readers (DynamoDB Streams throttles a shard read by more), one mapping per stream subscription', () => {
    expect(STREAM_SUBSCRIPTIONS.length).toBeLessThanOrEqual(2);
    expect(streamMappings()).toHaveLength(STREAM_SUBSCRIPTIONS.length);
  });

  it('feeds each subscribed function, and only those, from the table’s stream', () => {
    expect(
      streamMappings()
        .map((resource) => ref(resource.Properties.FunctionName))
        .sort(),
    ).toEqual(STREAM_HANDLERS.map((handler) => fn(handler).id).sort());
  });

  it('filters each with its subscription’s own filter pattern', () => {
    for (const subscription of STREAM_SUBSCRIPTIONS)
      expect(
        mappingOf(subscription.handler).FilterCriteria.Filters.map((filter: { Pattern: string }) =>
          JSON.parse(filter.Pattern),
        ),
      ).toEqual([subscription.filterPattern]);
    expect(STREAM_SUBSCRIPTIONS.map(({ filterPattern }) => filterPattern.eventName)).toEqual([
      ['INSERT', 'REMOVE'],
      ['INSERT'],
    ]);
  });

  it('gives its readers batches gathered a while, splits failing ones, retries a bounded number of times, reports per record', () => {
    const delivery = {
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 3,
      MaximumRecordAgeInSeconds: 6 * 3600,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      StartingPosition: 'TRIM_HORIZON',
    };
    // The counts sum a batch per gram: up to 1 000 records gathered for up to 10 s.
    expect(mappingOf('count-postings')).toMatchObject({
      BatchSize: 1_000,
      MaximumBatchingWindowInSeconds: 10,
      ...delivery,
    });
    // The feed appends a shard's events of a batch in one transaction: up to 100 records, a second.
    expect(mappingOf('append-events')).toMatchObject({
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 1,
      ...delivery,
    });
  });

  it('sends records it gives up on to an encrypted SQS dead-letter queue per function that keeps them 14 days', () => {
    for (const handler of STREAM_HANDLERS) {
      const [queueId, queue] = queueOf(handler);
      expect(mappingOf(handler).DestinationConfig.OnFailure.Destination).toEqual({
        'Fn::GetAtt': [queueId, 'Arn'],
      });
      expect(queue.Properties).toMatchObject({
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      });
    }
  });

  it('gives the functions time for a batch of lookups with retries', () => {
    for (const handler of [...STREAM_HANDLERS, ...BUS_HANDLERS])
      expect(fn(handler).resource.Properties.Timeout).toBe(120);
  });
});

describe('the event bus', () => {
  let busId: string;
  beforeAll(() => {
    [busId] = only(template.findResources('AWS::Events::EventBus'));
  });

  it('carries the change feed, put on it by the feed’s appender, named with the API’s URL as the events’ source', () => {
    const variables = fn('append-events').resource.Properties.Environment.Variables;
    expect(variables.EVENT_BUS_NAME).toEqual({ Ref: busId });
    const [apiId] = Object.keys(resourcesOf(template, 'AWS::ApiGatewayV2::Api'));
    expect(variables.PUBLIC_BASE_URL).toEqual({ 'Fn::GetAtt': [apiId, 'ApiEndpoint'] });
    expect(template.toJSON().Outputs.EventBusName.Value).toEqual({ Ref: busId });
  });

  it('takes events from append-events only: no other function may put on it', () => {
    const putters = [...functions].filter(([, { resource }]) =>
      permissionsOf(template, roleOf(resource)).some(({ action }) => action === 'events:PutEvents'),
    );
    expect(putters.map(([handler]) => handler)).toEqual(['append-events']);
    expect(
      permissionsOf(template, roleOf(fn('append-events').resource))
        .filter(({ action }) => action === 'events:PutEvents')
        .map(({ resource }) => resource),
    ).toEqual([`${busId}.Arn`]);
  });
});

describe('the bus consumers', () => {
  const queues = () => resourcesOf(template, 'AWS::SQS::Queue');
  const rules = () => Object.values(resourcesOf(template, 'AWS::Events::Rule'));
  /** The rule, its queue, the queue's and the target's dead-letter queues of one subscription. */
  const consumerOf = (handler: string) => {
    const [busId] = only(template.findResources('AWS::Events::EventBus'));
    const targeting = rules().filter(
      (rule) =>
        JSON.stringify(rule.Properties.EventBusName) === JSON.stringify({ Ref: busId }) &&
        rule.Properties.Targets.some(
          (target: Json) => ref(target.Arn) === ref(mappingOf(handler).EventSourceArn),
        ),
    );
    expect(targeting, handler).toHaveLength(1);
    const [rule] = targeting as [Resource];
    const [target] = rule.Properties.Targets;
    const queueId = ref(target.Arn) as string;
    const queue = queues()[queueId] as Resource;
    const deadLettersId = ref(queue.Properties.RedrivePolicy?.deadLetterTargetArn ?? {}) as string;
    const undeliveredId = ref(target.DeadLetterConfig?.Arn ?? {}) as string;
    return { rule, target, queueId, queue, deadLettersId, undeliveredId };
  };

  it('are each a rule on the stack’s bus with exactly their event types, to their own queue, and no other rule', () => {
    // And the webhook sweep's schedule (below), on the default bus.
    expect(rules()).toHaveLength(BUS_SUBSCRIPTIONS.length + 1);
    for (const subscription of BUS_SUBSCRIPTIONS) {
      const { rule, target } = consumerOf(subscription.handler);
      expect(rule.Properties.EventPattern).toEqual({ 'detail-type': [...subscription.eventTypes] });
      expect(rule.Properties.State).toBe('ENABLED');
      expect(rule.Properties.Targets).toHaveLength(1);
      expect(target.Arn).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
    }
    const queuesRead = BUS_HANDLERS.map((handler) => consumerOf(handler).queueId);
    expect(new Set(queuesRead).size).toBe(BUS_HANDLERS.length);
  });

  it('let only their rule send to their queue, over TLS only, the queue encrypted by SQS', () => {
    for (const handler of BUS_HANDLERS) {
      const { queueId, queue, rule } = consumerOf(handler);
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
      const [ruleId] = Object.entries(resourcesOf(template, 'AWS::Events::Rule')).find(
        ([, candidate]) => candidate === rule,
      ) as [string, Resource];
      const statements = Object.values(resourcesOf(template, 'AWS::SQS::QueuePolicy'))
        .filter(({ Properties }) => Properties.Queues.some((queueRef: Json) => ref(queueRef) === queueId))
        .flatMap(({ Properties }) => Properties.PolicyDocument.Statement);
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
      const senders = [ruleId, ...(handler === WAKE_WEBHOOKS.handler ? [sweepRule()[0]] : [])];
      const sends = statements.filter((statement: Json) => statement.Effect === 'Allow');
      expect(sends).toHaveLength(senders.length);
      for (const [n, sender] of senders.entries())
        expect(sends[n]).toMatchObject({
          Principal: { Service: 'events.amazonaws.com' },
          Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [sender, 'Arn'] } } },
        });
    }
  });

  /** The webhook sweep's rule: the one with a schedule. */
  const sweepRule = () =>
    only(
      Object.fromEntries(
        Object.entries(resourcesOf(template, 'AWS::Events::Rule')).filter(
          ([, rule]) => rule.Properties.ScheduleExpression !== undefined,
        ),
      ),
    );

  it('put the webhook sweep on wake-webhooks’ queue every minute, from the default bus, its undelivered events kept', () => {
    const [, rule] = sweepRule();
    const { queueId, undeliveredId } = consumerOf(WAKE_WEBHOOKS.handler);
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
    expect(rule.Properties.EventBusName).toBeUndefined();
    expect(rule.Properties.Targets).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [queueId, 'Arn'] },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [undeliveredId, 'Arn'] } },
      }),
    ]);
  });

  it('send a message failed maxReceiveCount times to a dead-letter queue of 14 days the operator may redrive from', () => {
    for (const subscription of BUS_SUBSCRIPTIONS) {
      const { queue, deadLettersId } = consumerOf(subscription.handler);
      expect(queue.Properties.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [deadLettersId, 'Arn'] },
        maxReceiveCount: subscription.maxReceiveCount,
      });
      expect(queues()[deadLettersId]?.Properties).toMatchObject({
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
        RedriveAllowPolicy: { redrivePermission: 'allowAll' },
      });
    }
  });

  it('keep events EventBridge could not deliver in a dead-letter queue of the rule’s own', () => {
    for (const handler of BUS_HANDLERS) {
      const { queueId, deadLettersId, undeliveredId } = consumerOf(handler);
      expect(queues()[undeliveredId]?.Properties).toMatchObject({
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      });
      expect(new Set([queueId, deadLettersId, undeliveredId]).size).toBe(3);
    }
  });

  it('are read by their function in batches of the catalogue’s size, reporting failed messages one by one', () => {
    for (const subscription of BUS_SUBSCRIPTIONS) {
      const { queueId } = consumerOf(subscription.handler);
      expect(mappingOf(subscription.handler)).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
        BatchSize: subscription.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    }
  });

  it('hide a message being worked on for six timeouts of its function, as AWS advises', () => {
    for (const handler of BUS_HANDLERS) {
      const { queue } = consumerOf(handler);
      expect(VISIBILITY_TIMEOUTS).toBe(6);
      expect(queue.Properties.VisibilityTimeout).toBe(6 * fn(handler).resource.Properties.Timeout);
    }
  });

  it('keep enrichment’s provider settings and its secret, and give it no stream to read', () => {
    const variables = fn('enrich-person').resource.Properties.Environment.Variables;
    expect(Object.keys(variables)).toContain(ENRICHMENT_KEY_SECRET_ENV);
    expect(streamMappings().map((resource) => ref(resource.Properties.FunctionName))).not.toContain(
      fn('enrich-person').id,
    );
    expect(STREAM_HANDLERS.filter((handler) => BUS_HANDLERS.includes(handler))).toEqual([]);
  });

  it('alarm on the age of the oldest message, the depth of each dead-letter queue, and the function’s errors, each naming its runbook entry', () => {
    const alarms = Object.values(resourcesOf(monitoring, 'AWS::CloudWatch::Alarm'));
    const on = (metricName: string, queueId: string) =>
      alarms.filter(
        (alarm) =>
          alarm.Properties.MetricName === metricName &&
          JSON.stringify(alarm.Properties.Dimensions) ===
            JSON.stringify([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }]),
      );
    const runbook = (entry: string) =>
      expect.stringMatching(new RegExp(`Runbook: ${RUNBOOK_PATH}#${entry}$`));
    for (const handler of BUS_HANDLERS) {
      const { queueId, deadLettersId, undeliveredId } = consumerOf(handler);
      const [age] = on('ApproximateAgeOfOldestMessage', queueId);
      expect(age?.Properties).toMatchObject({
        Statistic: 'Maximum',
        Threshold: 6 * fn(handler).resource.Properties.Timeout,
        AlarmDescription: runbook('consumer-queue-age'),
      });
      expect(on('ApproximateNumberOfMessagesVisible', deadLettersId)).toEqual([
        expect.objectContaining({
          Properties: expect.objectContaining({
            Threshold: 1,
            AlarmDescription: runbook('consumer-dead-letters'),
          }),
        }),
      ]);
      expect(on('ApproximateNumberOfMessagesVisible', undeliveredId)).toEqual([
        expect.objectContaining({
          Properties: expect.objectContaining({
            Threshold: 1,
            AlarmDescription: runbook('undelivered-events'),
          }),
        }),
      ]);
      const errors = alarms.filter(
        (alarm) =>
          alarm.Properties.Metrics?.[0]?.Expression === 'failed + logged' &&
          JSON.stringify(alarm.Properties.Metrics).includes(`{"Ref":"${fn(handler).id}"}`),
      );
      expect(errors.map((alarm) => alarm.Properties.AlarmDescription)).toEqual([runbook('consumer-errors')]);
    }
  });
});

describe('the postings backfill', () => {
  it('runs once at deploy, a custom resource on the table whose function is asked again until it is done', () => {
    const [, resource] = only(resourcesOf(template, 'Custom::PostingsBackfill'));
    expect(resource.Properties).toMatchObject({ TableName: { Ref: tableId }, BackfillVersion: '2' });
    expect(fn('backfill-postings').resource.Properties.Timeout).toBe(600);
    const frameworkId = ref(resource.Properties.ServiceToken) as string;
    const framework = resourcesOf(template, 'AWS::Lambda::Function')[frameworkId] as Resource;
    const arn = { 'Fn::GetAtt': [fn('backfill-postings').id, 'Arn'] };
    expect(framework.Properties.Environment.Variables).toMatchObject({
      USER_ON_EVENT_FUNCTION_ARN: arn,
      USER_IS_COMPLETE_FUNCTION_ARN: arn,
    });
  });

  it('runs after every writer is updated, and the list is updated only once it is done', () => {
    const [backfillId, resource] = only(resourcesOf(template, 'Custom::PostingsBackfill'));
    const dependsOn = (resource as { DependsOn?: string[] }).DependsOn ?? [];
    for (const writer of ['create-person', 'update-person', 'enrich-person', 'update-name-prefix'])
      expect(dependsOn).toContain(fn(writer).id);
    for (const reader of ['list-persons', 'reconcile-persons', 'suggest-persons']) {
      expect(dependsOn).not.toContain(fn(reader).id);
      expect((fn(reader).resource as { DependsOn?: string[] }).DependsOn).toContain(backfillId);
    }
  });
});

describe('reference data', () => {
  it('is written at deploy by a custom resource on the table, run by the seed function', () => {
    const [, resource] = only(resourcesOf(template, 'Custom::ReferenceData'));
    expect(resource.Properties.TableName).toEqual({ Ref: tableId });
    expect(resource.Properties.DataVersion).toMatch(/^[0-9a-f]{16}$/);
    expect(fn('seed-reference-data').resource.Properties.Timeout).toBe(60);
    const frameworkId = ref(resource.Properties.ServiceToken) as string;
    const framework = resourcesOf(template, 'AWS::Lambda::Function')[frameworkId] as Resource;
    expect(framework.Properties.Environment.Variables.USER_ON_EVENT_FUNCTION_ARN).toEqual({
      'Fn::GetAtt': [fn('seed-reference-data').id, 'Arn'],
    });
  });

  it('seeds again exactly when the seeded vocabulary changes', () => {
    const dataVersion = (seed: typeof SEEDED_VOCABULARY) => {
      const original = { ...SEEDED_VOCABULARY };
      Object.assign(SEEDED_VOCABULARY, seed);
      try {
        const [, resource] = only(resourcesOf(synthesize().template, 'Custom::ReferenceData'));
        return resource.Properties.DataVersion as string;
      } finally {
        Object.assign(SEEDED_VOCABULARY, original);
      }
    };
    const [, resource] = only(resourcesOf(template, 'Custom::ReferenceData'));
    expect(dataVersion(SEEDED_VOCABULARY)).toBe(resource.Properties.DataVersion);
    const withCaptain = {
      ...SEEDED_VOCABULARY,
      NamePrefix: [...SEEDED_VOCABULARY.NamePrefix, { id: 514, term: 'Captain', abbreviation: 'Capt.' }],
    };
    expect(dataVersion(withCaptain)).not.toBe(resource.Properties.DataVersion);
  });
});

describe('alarms', () => {
  const alarms = () => Object.values(resourcesOf(monitoring, 'AWS::CloudWatch::Alarm'));
  const metricsOf = (alarm: Resource) =>
    (alarm.Properties.Metrics ?? []).flatMap((query: Record<string, Json>) =>
      query.MetricStat ? [query.MetricStat.Metric] : [],
    );

  it('watch the API’s 5xx rate: 5xx over request count, in percent', () => {
    const rate = alarms().filter((alarm) =>
      metricsOf(alarm).some((metric: { MetricName: string }) => metric.MetricName === '5xx'),
    );
    expect(rate).toHaveLength(1);
    const [alarm] = rate as [Resource];
    expect(alarm.Properties.Metrics[0].Expression).toBe('IF(requests > 0, 100 * errors / requests, 0)');
    expect(
      metricsOf(alarm)
        .map((metric: { MetricName: string }) => metric.MetricName)
        .sort(),
    ).toEqual(['5xx', 'Count']);
    expect(alarm.Properties).toMatchObject({ Threshold: 5, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
  });

  it('watch throttles of every function', () => {
    const throttled = alarms()
      .filter((alarm) => alarm.Properties.MetricName === 'Throttles')
      .map((alarm) => alarm.Properties.Dimensions[0].Value.Ref);
    expect(throttled.sort()).toEqual([...functions.values()].map(({ id }) => id).sort());
  });

  it('watch each stream and bus function’s errors: failed invocations plus records or messages logged as errors', () => {
    const filters = Object.values(resourcesOf(template, 'AWS::Logs::MetricFilter'));
    const errors = alarms().filter(
      (alarm) => alarm.Properties.Metrics?.[0]?.Expression === 'failed + logged',
    );
    const handlers = [...STREAM_HANDLERS, ...BUS_HANDLERS];
    expect(filters).toHaveLength(handlers.length);
    expect(errors).toHaveLength(handlers.length);
    for (const handler of handlers) {
      const filter = filters.find(
        (resource) =>
          JSON.stringify(resource.Properties.LogGroupName) ===
          JSON.stringify(fn(handler).resource.Properties.LoggingConfig.LogGroup),
      ) as Resource;
      expect(filter.Properties.FilterPattern).toBe('{ $.level = "ERROR" }');
      const logged = filter.Properties.MetricTransformations[0];
      expect(errors.map((alarm) => metricsOf(alarm))).toContainEqual([
        {
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn(handler).id } }],
          MetricName: 'Errors',
          Namespace: 'AWS/Lambda',
        },
        { MetricName: logged.MetricName, Namespace: logged.MetricNamespace },
      ]);
    }
  });

  it('watch each dead-letter queue’s depth, and the age of the oldest message of every other queue', () => {
    const queueOf = (alarm: Resource) => alarm.Properties.Dimensions[0].Value['Fn::GetAtt'][0];
    const watched = (metricName: string) =>
      alarms().filter((alarm) => alarm.Properties.MetricName === metricName);
    const queues = Object.entries(resourcesOf(template, 'AWS::SQS::Queue'));
    // A queue with a redrive policy is read by a function; one without is where failures end.
    const [read, deadLetters] = [
      queues.filter(([, queue]) => queue.Properties.RedrivePolicy),
      queues.filter(([, queue]) => !queue.Properties.RedrivePolicy),
    ].map((list) => list.map(([queueId]) => queueId).sort());
    expect(read).toHaveLength(BUS_HANDLERS.length);
    const depth = watched('ApproximateNumberOfMessagesVisible');
    expect(depth.map(queueOf).sort()).toEqual(deadLetters);
    for (const alarm of depth) expect(alarm.Properties).toMatchObject({ Threshold: 1, Statistic: 'Maximum' });
    expect(watched('ApproximateAgeOfOldestMessage').map(queueOf).sort()).toEqual(read);
  });

  it('all notify the alarm topic', () => {
    const [topicId] = only(monitoring.findResources('AWS::SNS::Topic'));
    for (const alarm of alarms()) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
  });
});

/**
 * CloudFormation's quotas: 500 resources and 200 parameters and outputs in a stack, each nested stack
 * counted on its own. The service's one stack came within ten resources of the 500 (an alarm per
 * function and a permission per route); the alarms went into the monitoring nested stack, the
 * permissions became one per function. These bounds keep room for some fifteen more functions with
 * their routes, and fail before the quotas do, not at a deploy.
 */
describe('CloudFormation limits', () => {
  const sizeOf = (of: Template) => {
    const json = of.toJSON();
    return {
      resources: Object.keys(json.Resources ?? {}).length,
      parameters: Object.keys(json.Parameters ?? {}).length,
      outputs: Object.keys(json.Outputs ?? {}).length,
    };
  };

  it('leave the stack at most 450 resources, and the monitoring stack under 500 resources and 200 parameters and outputs', () => {
    const parent = sizeOf(template);
    // The nested template itself: its parameters are what the parent passes it.
    const nested = sizeOf(Template.fromStack(stack.monitoring));
    console.log(
      `CloudFormation sizes: ${stack.stackName} ${JSON.stringify(parent)}, its monitoring stack ${JSON.stringify(nested)}`,
    );
    expect(parent.resources).toBeLessThanOrEqual(450);
    expect(parent.parameters).toBeLessThan(200);
    expect(parent.outputs).toBeLessThan(200);
    expect(nested.resources).toBeLessThan(500);
    expect(nested.parameters).toBeLessThan(200);
    expect(nested.outputs).toBeLessThan(200);
    const deploysIt = template.toJSON().Resources[nestedStackId(stack.monitoring)];
    expect(deploysIt.Type).toBe('AWS::CloudFormation::Stack');
    expect(Object.keys(deploysIt.Properties.Parameters)).toHaveLength(nested.parameters);
  });

  it('keep every alarm and the alarm topic in the monitoring stack, none in the stack itself', () => {
    for (const type of ['AWS::CloudWatch::Alarm', 'AWS::SNS::Topic']) {
      expect(template.findResources(type)).toEqual({});
      expect(Object.keys(monitoring.findResources(type)).length).toBeGreaterThan(0);
    }
    // The parent's output reads the nested stack's output of the topic's ARN.
    const [deploysIt, attribute] = template.toJSON().Outputs.AlarmTopicArn.Value['Fn::GetAtt'];
    expect(deploysIt).toBe(nestedStackId(stack.monitoring));
    const [topicId] = only(monitoring.findResources('AWS::SNS::Topic'));
    expect(
      Template.fromStack(stack.monitoring).toJSON().Outputs[attribute.replace(/^Outputs\./, '')].Value,
    ).toEqual({ Ref: topicId });
  });
});

describe('webhook delivery', () => {
  const deliver = () => fn(DELIVER_HANDLER);

  it('starts lanes from wake-webhooks by invoking deliver-webhooks, the one function it may invoke', () => {
    const wake = fn(WAKE_WEBHOOKS.handler);
    expect(wake.resource.Properties.Environment.Variables[DELIVER_FUNCTION_ENV]).toEqual({
      Ref: deliver().id,
    });
    const invokers = [...functions].filter(([, { resource }]) =>
      permissionsOf(template, roleOf(resource)).some(({ action }) => action.startsWith('lambda:')),
    );
    expect(invokers.map(([handler]) => handler)).toEqual([WAKE_WEBHOOKS.handler]);
    expect(
      permissionsOf(template, roleOf(wake.resource)).filter(({ action }) => action.startsWith('lambda:')),
    ).toEqual([{ action: 'lambda:InvokeFunction', resource: `${deliver().id}.Arn` }]);
  });

  it('runs each lane in an asynchronous invocation that Lambda does not retry, a failed one kept on a queue', () => {
    const [, config] = only(resourcesOf(template, 'AWS::Lambda::EventInvokeConfig'));
    expect(config.Properties).toMatchObject({
      FunctionName: { Ref: deliver().id },
      MaximumRetryAttempts: 0,
      Qualifier: '$LATEST',
    });
    const failures = ref(config.Properties.DestinationConfig.OnFailure.Destination) as string;
    expect(resourcesOf(template, 'AWS::SQS::Queue')[failures]?.Properties).toMatchObject({
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    });
    expect(permissionsOf(template, roleOf(deliver().resource))).toContainEqual({
      action: 'sqs:SendMessage',
      resource: `${failures}.Arn`,
    });
  });

  it('gives the deliverer five minutes a run, the events’ source, and no VPC: it reaches no private address', () => {
    const { Properties } = deliver().resource;
    expect(Properties.Timeout).toBe(WEBHOOK_LANE_TIMEOUT.toSeconds());
    expect(Properties.VpcConfig).toBeUndefined();
    const [apiId] = Object.keys(resourcesOf(template, 'AWS::ApiGatewayV2::Api'));
    expect(Properties.Environment.Variables.PUBLIC_BASE_URL).toEqual({
      'Fn::GetAtt': [apiId, 'ApiEndpoint'],
    });
  });
});
