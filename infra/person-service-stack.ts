/**
 * The whole service as one stack, built from what lib/ declares: the table from the table
 * definition, one function per handler module of the route table, the HTTP API's routes from that
 * table, the stream subscriptions with their event filters, and the bus subscriptions, each a consumer
 * of the change feed's events through its own queue (infra/bus-consumer.ts). Deploy options come in as
 * a typed `StackConfig` (infra/config.ts reads them from context). The alarms and their topic are a
 * nested stack of it (infra/monitoring.ts), as a stack holds at most 500 resources.
 */
import { createHash } from 'node:crypto';
import { CfnOutput, CustomResource, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  type CorsPreflightOptions,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpStage,
  type IHttpRouteAuthorizer,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer, HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { type IMetric, MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import { EventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import {
  type CfnFunction,
  FilterCriteria,
  Function as LambdaFunction,
  StartingPosition,
} from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { BUS_SUBSCRIPTIONS, WAKE_WEBHOOKS } from '../lib/api/bus-subscriptions';
import { FALLBACK_HANDLER, ROUTES, servedMethods } from '../lib/api/routes';
import { STREAM_SUBSCRIPTIONS } from '../lib/db/table/stream-subscriptions';
import { ENRICHMENT_KEY_SECRET_ENV } from '../lib/enrichment/from-env';
import {
  CORS_ALLOWED_HEADERS,
  CORS_EXPOSED_HEADERS,
  CORS_MAX_AGE_SECONDS,
  CORS_METHODS,
} from '../lib/http/cors';
import { FEED_CURSOR_SECRET_ENV } from '../lib/secrets';
import { DELIVER_FUNCTION_ENV, DELIVER_HANDLER } from '../lib/webhooks/lane-invoker';
import { WEBHOOK_KEY_ID_ENV } from '../lib/webhooks/secret-box';
import { SWEEP_DETAIL_TYPE } from '../lib/webhooks/wake-lanes';
import { entryOf } from './bundling';
import { BusConsumer, DEAD_LETTER_RETENTION } from './bus-consumer';
import type { StackConfig } from './config';
import { constructIdOf } from './construct-ids';
import { ServiceDashboard, type StreamConsumer } from './dashboard';
import { functionErrors } from './function-errors';
import { SEEDED_VOCABULARY } from './handlers/seed/vocabulary-seed';
import { type AlarmOptions, Monitoring } from './monitoring';
import { acknowledge, versionsFinding } from './nag';
import {
  executionRole,
  LOG_RETENTION,
  ServiceFunction,
  type ServiceFunctionProps,
  traceActively,
} from './service-function';
import { serviceMetric } from './service-metrics';
import { PersonTable } from './table';
import { tableAccessOf, tableAccessStatements } from './table-access';

export { type AlarmOptions, RUNBOOK_PATH, type RunbookEntry } from './monitoring';
export { constructIdOf };

/** Stream delivery: few records unless the subscription says, bounded retries, then the DLQ; its timeout all consumers'. */
export const STREAM_DELIVERY = {
  batchSize: 5,
  retryAttempts: 3,
  maxRecordAge: Duration.hours(6),
  timeout: Duration.minutes(2),
};

/** The 5xx share of requests, in percent, above which the API alarms. */
export const SERVER_ERROR_RATE_PERCENT = 5;

/**
 * The share of enrichments the provider failed, in percent, at or above which enrichment alarms (in 2
 * of 3 fifteen-minute periods, with at least ENRICHMENT_FAILURES_MIN failures in each). A few failed
 * lookups are the third-party provider's normal weather (a timeout, a refusal): the person stays
 * unenriched and nothing else breaks. A fifth of them failing for half an hour is not weather but an
 * outage, a revoked or expired key or a spent quota, which only the operator fixes.
 */
export const ENRICHMENT_FAILURE_RATE_PERCENT = 20;

/** The functions that sign or check the change feed's cursors (a replay's `after`), and so read their key's secret. */
export const FEED_CURSOR_HANDLERS: readonly string[] = ['list-events', 'replay-subscription'];

/**
 * The functions that seal or open webhook signing secrets (lib/webhooks/secret-box.ts) with the
 * stack's KMS key, and what each may do with it: a create and a rotation seal the new secret, and
 * open the answer they keep for a retried `Idempotency-Key`; the delivering function opens secrets to
 * sign with; nothing else touches the key.
 */
export const WEBHOOK_KEY_HANDLERS: Readonly<Record<string, readonly string[]>> = {
  'create-subscription': ['kms:Encrypt', 'kms:Decrypt'],
  'rotate-subscription-secret': ['kms:Encrypt', 'kms:Decrypt'],
  [DELIVER_HANDLER]: ['kms:Decrypt'],
};

/** Fewer failed enrichments than this in a period never alarm: two failures of two at night are no outage. */
export const ENRICHMENT_FAILURES_MIN = 3;

/** HTTP API access log fields (the `$context` variables of an HTTP API, one JSON line per request). */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  caller: '$context.identity.caller',
  principal: '$context.authorizer.principalId',
};

export interface PersonServiceStackProps extends StackProps {
  config: StackConfig;
}

/**
 * Who invokes a function, and so why it has no dead-letter queue of its own (cdk-nag
 * Serverless-LambdaDLQ): Lambda sends only failed asynchronous invocations to one, and none of the
 * service's functions is invoked asynchronously.
 */
const INVOKED_BY = {
  api: 'Invoked synchronously by API Gateway, which answers the caller with the error; a function dead-letter queue takes failed asynchronous invocations only',
  stream:
    "Invoked synchronously by the event source mapping of the table's stream: the records it gives up on go to the mapping's own on-failure SQS queue (<id>DeadLetters); a function dead-letter queue would never receive one",
  queue:
    "Invoked synchronously by the event source mapping polling its queue: a message it fails stays on the queue, is retried and after maxReceiveCount receives moves to the queue's own dead-letter queue (<id>Consumer/DeadLetters); a function dead-letter queue would never receive one",
  deploy:
    'Invoked synchronously at deploy by the CDK Provider framework, which reports a failure to CloudFormation (the deploy fails and rolls back); a function dead-letter queue takes failed asynchronous invocations only',
  destination:
    'Invoked asynchronously, its failed invocations go to an on-failure destination (an SQS queue), which keeps the error with the event, as AWS advises over a function dead-letter queue that keeps the event alone',
};

/**
 * How long a delivering invocation may run one webhook lane: it stops 15 s before the end, and the
 * next sweep (every minute) goes on where it stopped.
 */
export const WEBHOOK_LANE_TIMEOUT = Duration.minutes(5);

/** How often the schedule puts a sweep on the waking queue: every lane not paused is started. */
export const WEBHOOK_SWEEP_RATE = Duration.minutes(1);

/**
 * The memory of the CDK Provider framework's functions, which CDK leaves at Lambda's 128 MB default
 * (cdk-nag Serverless-LambdaDefaultMemorySize): they only hand the event on to the service's function
 * and wait for it, a few times per deploy; 256 MB gives their cold start twice the CPU for next to no cost.
 */
export const FRAMEWORK_MEMORY_MB = 256;

/** The functions that read the search postings: updated only once the postings backfill is done. */
const POSTING_READERS = ['list-persons', 'reconcile-persons', 'suggest-persons'];

export class PersonServiceStack extends Stack {
  readonly table: PersonTable;
  readonly api: HttpApi;
  /** The `$default` stage: its own construct, as `HttpApi`'s built-in one takes no throttle or logs. */
  readonly stage: HttpStage;
  /** Every function of the service, by handler name. */
  readonly functions = new Map<string, ServiceFunction>();
  /**
   * The alarms and their topic, a nested stack (infra/monitoring.ts): they count against its own 500
   * resources, not this stack's.
   */
  readonly monitoring: Monitoring;

  private readonly config: StackConfig;
  /** Seals webhook secrets: create and rotate seal with it, the delivering function opens with it. */
  private readonly webhookKey: Key;
  private readonly streams: StreamConsumer[] = [];
  private readonly consumers: BusConsumer[] = [];
  /** Queues of failed work besides the consumers' (deliver-webhooks' failed runs), by dashboard label. */
  private readonly failureQueues: Record<string, Queue> = {};

  constructor(scope: Construct, id: string, { config, ...props }: PersonServiceStackProps) {
    super(scope, id, props);
    this.config = config;
    const stateful = config.devStack ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    // First: every part below makes its alarms in it.
    this.monitoring = new Monitoring(this, 'Monitoring', {
      ...(config.alarmEmail ? { alarmEmail: config.alarmEmail } : {}),
    });

    this.table = new PersonTable(this, 'Table', {
      devStack: config.devStack,
      withholdIndexes: config.withholdIndexes,
    });
    this.webhookKey = this.webhookSecretKey(stateful);
    ({ api: this.api, stage: this.stage } = this.httpApi(stateful));
    const bus = this.changeEventBus();
    this.streamSubscriptions(stateful, bus);
    this.busSubscriptions(stateful, bus);
    this.referenceData(stateful);
    const backfill = this.postingsBackfill(stateful);
    // A deploy updates the writers before the backfill runs (so no person written meanwhile lacks its
    // postings) and the readers of postings (the list, reconciliation) only after it is done (so no
    // search misses a person stored before them).
    for (const [handler, fn] of this.functions)
      if (POSTING_READERS.includes(handler)) fn.node.addDependency(backfill);
      else if (handler !== 'backfill-postings') backfill.node.addDependency(fn);
    this.throttleAlarms();
    this.storageAlarms();
    this.enrichmentAlarm();
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.monitoring.topic.topicArn,
      description: 'Alarm notifications',
    });
    new ServiceDashboard(this, 'Observability', {
      stage: this.stage,
      functions: this.functions,
      table: this.table,
      streams: this.streams,
      consumers: this.consumers,
      failureQueues: this.failureQueues,
      alarms: this.monitoring.alarms,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'The DynamoDB table' });
  }

  /** A function for one handler module, with exactly the table access tableAccessOf gives it. */
  private serviceFunction(
    handler: string,
    entry: string,
    description: string,
    extra: {
      /** How it is invoked: the reason it needs no function dead-letter queue. */
      invokedBy: keyof typeof INVOKED_BY;
      /** Invoked asynchronously: its on-failure destination and retries. */
      asynchronous?: ServiceFunctionProps['asynchronous'];
      environment?: Record<string, string>;
      timeout?: Duration;
    },
  ): ServiceFunction {
    const rules = tableAccessOf(handler, this.config);
    const fn = new ServiceFunction(this, constructIdOf(handler), {
      entry,
      description,
      logRemovalPolicy: this.config.devStack ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      ...(extra.timeout ? { timeout: extra.timeout } : {}),
      ...(extra.asynchronous ? { asynchronous: extra.asynchronous } : {}),
      environment: {
        // Only functions that touch the table are told its name.
        ...(rules.length > 0 ? { TABLE_NAME: this.table.tableName } : {}),
        ...extra.environment,
      },
    });
    for (const statement of tableAccessStatements(this.table, rules)) fn.addToRolePolicy(statement);
    acknowledge(fn, { 'Serverless-LambdaDLQ': INVOKED_BY[extra.invokedBy] });
    this.functions.set(handler, fn);
    return fn;
  }

  private authorizer(): IHttpRouteAuthorizer {
    const { jwt } = this.config;
    return jwt
      ? new HttpJwtAuthorizer('JwtAuthorizer', jwt.issuer, { jwtAudience: jwt.audience })
      : new HttpIamAuthorizer();
  }

  /**
   * API Gateway's own CORS when `corsOrigins` lists origins (API.md 2.1): it answers preflights itself
   * and adds the headers to every answer to those origins, ignoring any the functions send.
   */
  private corsPreflight(): CorsPreflightOptions | undefined {
    const { corsOrigins } = this.config;
    if (corsOrigins.length === 0) return undefined;
    return {
      allowOrigins: corsOrigins,
      allowMethods: CORS_METHODS.map((method) => CorsHttpMethod[method]),
      allowHeaders: [...CORS_ALLOWED_HEADERS],
      exposeHeaders: [...CORS_EXPOSED_HEADERS],
      maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
    };
  }

  /** The HTTP API: the route table's routes, the fallback as `$default`, authorized unless public. */
  private httpApi(stateful: RemovalPolicy): { api: HttpApi; stage: HttpStage } {
    const { publicBaseUrl, requesterBinding, delegates } = this.config;
    const http: Record<string, string> = {
      ...(publicBaseUrl ? { PUBLIC_BASE_URL: publicBaseUrl } : {}),
      // Requester binding (API.md 9.1): the functions read it as npm start's do (lib/http/config.ts).
      ...(requesterBinding ? { REQUESTER_BINDING: 'on' } : {}),
      ...(delegates.length > 0 ? { DELEGATES: delegates.join(',') } : {}),
    };
    const cursorSecret = this.feedCursorSecret(stateful);
    const integrationOf = (handler: string) => {
      const routes = ROUTES.filter((route) => route.handler === handler);
      const description =
        routes.length > 0
          ? routes.map((route) => `${route.method} ${route.path}`).join(', ')
          : '$default: 404 or 405 for a request no route matches';
      const { reconcilePublic } = this.config;
      // The public-read option (API.md 12): the functions of its routes show only the listed properties.
      const narrowed: Record<string, string> =
        reconcilePublic && routes.some((route) => route.reconciliation)
          ? {
              RECONCILE_PUBLIC_READ: 'on',
              RECONCILE_PUBLIC_PROPERTIES: reconcilePublic.properties.join(','),
            }
          : {};
      // The feed's cursors are signed (API.md 14): the function that signs and checks them is told its
      // key's secret by reference, and may read that secret, nothing more; no other function may.
      const signsCursors = FEED_CURSOR_HANDLERS.includes(handler);
      const sealsSecrets = WEBHOOK_KEY_HANDLERS[handler];
      const fn = this.serviceFunction(handler, entryOf(handler), description, {
        invokedBy: 'api',
        environment: {
          ...http,
          ...narrowed,
          ...(signsCursors ? { [FEED_CURSOR_SECRET_ENV]: cursorSecret.secretArn } : {}),
          ...(sealsSecrets ? { [WEBHOOK_KEY_ID_ENV]: this.webhookKey.keyArn } : {}),
        },
      });
      if (sealsSecrets) this.webhookKey.grant(fn, ...sealsSecrets);
      if (signsCursors)
        fn.addToRolePolicy(
          new PolicyStatement({
            actions: ['secretsmanager:GetSecretValue'],
            resources: [cursorSecret.secretArn],
          }),
        );
      // One invoke permission per function, for any route of this API (`<api>/*/*/*`), rather than
      // CDK's one per route: in effect the same grant, as API Gateway invokes a function only through
      // a route integrated with it, at about half the resources (a stack holds at most 500). The
      // fallback keeps CDK's per-route ones: its `$default` route's source ARN
      // (`<api>/<stage>/$default`) has no method and path for `*/*/*` to match.
      return new HttpLambdaIntegration(`${constructIdOf(handler)}Integration`, fn, {
        scopePermissionToRoute: handler === FALLBACK_HANDLER,
      });
    };

    const fallback = integrationOf(FALLBACK_HANDLER);
    const cors = this.corsPreflight();
    const api = new HttpApi(this, 'Api', {
      description: 'Authority Person Service',
      createDefaultStage: false,
      defaultAuthorizer: this.authorizer(),
      defaultIntegration: fallback,
      ...(cors ? { corsPreflight: cors } : {}),
    });
    // AWS ("Configure CORS for HTTP APIs"): the $default route catches OPTIONS too, so with an
    // authorizer on it a browser's preflight, which carries no credentials, would be refused; a public
    // OPTIONS /{proxy+} route takes precedence over $default and lets the preflight through.
    if (cors)
      for (const route of api.addRoutes({
        path: '/{proxy+}',
        methods: [HttpMethod.OPTIONS],
        integration: fallback,
        authorizer: new HttpNoneAuthorizer(),
      }))
        acknowledge(route, {
          'AwsSolutions-APIG4':
            "CORS preflights (corsOrigins): a browser sends them without credentials, and API Gateway's CORS answers them itself",
        });
    const integrations = new Map<string, HttpLambdaIntegration>();
    for (const route of ROUTES) {
      let integration = integrations.get(route.handler);
      if (!integration) {
        integration = integrationOf(route.handler);
        integrations.set(route.handler, integration);
      }
      // Self-description stays public (API.md 9): JSON-LD processors and tooling fetch it unsigned;
      // the Reconciliation API's routes only with the public-read option (API.md 12). Why, in words,
      // is the acknowledgement of cdk-nag's AwsSolutions-APIG4 on those routes.
      const open = route.public
        ? 'Self-description (API.md 9): the OpenAPI document, JSON Schema, JSON-LD context, docs and problem types are public, as JSON-LD processors and tooling fetch them unsigned; they hold no person data'
        : route.reconciliation && this.config.reconcilePublic
          ? "The Reconciliation API's public-read option (reconcilePublic, API.md 12): OpenRefine sends no credentials, and its functions show only fullname and the properties the option lists"
          : undefined;
      // HEAD beside every GET (API.md 2.1), to the same integration and authorizer. API Gateway does not
      // do it by itself: an HTTP API route key is one method and one path, and AWS's routing rules
      // ("Create routes for HTTP APIs", "Routing API requests") pick an exact method-and-path match,
      // then a greedy {proxy+} one, then $default; only `ANY` stands for other methods, and no rule
      // serves HEAD from a GET route, so without these a HEAD would reach $default (whose fallback,
      // finding the GET route, would redirect it to itself).
      const added = api.addRoutes({
        path: route.path,
        methods: servedMethods(route).map((method) => HttpMethod[method]),
        integration,
        ...(open ? { authorizer: new HttpNoneAuthorizer() } : {}),
      });
      if (open) for (const served of added) acknowledge(served, { 'AwsSolutions-APIG4': open });
    }

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: LOG_RETENTION,
      removalPolicy: stateful,
    });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: this.config.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    this.alarm(
      'ApiServerErrorRate',
      new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: {
          errors: stage.metricServerError({ statistic: 'Sum', period: Duration.minutes(5) }),
          requests: stage.metricCount({ statistic: 'Sum', period: Duration.minutes(5) }),
        },
        period: Duration.minutes(5),
        label: '5xx responses (% of requests)',
      }),
      {
        threshold: SERVER_ERROR_RATE_PERCENT,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        description: `${SERVER_ERROR_RATE_PERCENT}% or more of API requests answered 5xx in 2 of 3 five-minute periods`,
        runbook: 'api-5xx-rate',
      },
    );
    return { api, stage };
  }

  /**
   * The key the change feed signs its cursors with (lib/secrets.ts): a random string the stack makes,
   * never seen by anyone, kept with the table (a new key would refuse every cursor consumers hold).
   */
  private feedCursorSecret(stateful: RemovalPolicy): Secret {
    const secret = new Secret(this, 'FeedCursorKey', {
      description: "Key of the change feed's cursor MACs (GET /events): generated, read by list-events only",
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: stateful,
    });
    acknowledge(secret, {
      'AwsSolutions-SMG4':
        'A MAC key no one handles: rotating it would refuse every cursor consumers hold (400), and nothing is gained while it stays in this secret; replace it by hand only if it leaks',
    });
    return secret;
  }

  /**
   * The KMS key webhook signing secrets are sealed with (API.md 16: stored encrypted), rotated yearly
   * by KMS, kept with the table (the secrets it sealed open only with it).
   */
  private webhookSecretKey(stateful: RemovalPolicy): Key {
    return new Key(this, 'WebhookSecretKey', {
      description: "Seals webhook subscriptions' signing secrets (encryption context: the subscription id)",
      enableKeyRotation: true,
      removalPolicy: stateful,
    });
  }

  /** The provider key's secret: the one named in context, or one created for the operator to fill. */
  private enrichmentSecret(stateful: RemovalPolicy): ISecret {
    const { enrichmentSecretName } = this.config;
    if (enrichmentSecretName) return Secret.fromSecretNameV2(this, 'EnrichmentApiKey', enrichmentSecretName);
    const secret = new Secret(this, 'EnrichmentApiKey', {
      description: 'API key of the person-data enrichment provider (put the real key here)',
      removalPolicy: stateful,
    });
    acknowledge(secret, {
      'AwsSolutions-SMG4':
        "A third-party key, issued by the enrichment provider: no rotation function can get a new one from it by itself, so the operator rotates it by putting the provider's new key here",
    });
    return secret;
  }

  /**
   * Functions fed by the table's stream, each with its event filter, failure handling and alarms: the
   * two readers of lib/db/table/stream-subscriptions.ts. The feed's appender also puts each event it
   * appends on the bus (API.md 14), naming the service's base URL as their source.
   */
  private streamSubscriptions(stateful: RemovalPolicy, bus: EventBus) {
    const environments: Record<string, Record<string, string>> = {
      'append-events': {
        EVENT_BUS_NAME: bus.eventBusName,
        PUBLIC_BASE_URL: this.eventSource(),
      },
    };
    for (const subscription of STREAM_SUBSCRIPTIONS) {
      const id = constructIdOf(subscription.handler);
      const fn = this.serviceFunction(
        subscription.handler,
        entryOf(subscription.handler),
        `DynamoDB stream: ${subscription.handler} (filter ${JSON.stringify(subscription.filterPattern)})`,
        {
          invokedBy: 'stream',
          environment: environments[subscription.handler] ?? {},
          timeout: STREAM_DELIVERY.timeout,
        },
      );
      if (subscription.handler === 'append-events') bus.grantPutEventsTo(fn);

      const deadLetters = new Queue(this, `${id}DeadLetters`, {
        retentionPeriod: Duration.days(14),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        removalPolicy: stateful,
      });
      const isDeadLetterQueue =
        "This queue is itself a dead-letter queue (the event source mapping's on-failure destination): a dead-letter queue of its own would only move the same records again; its depth alarms instead";
      this.streams.push({ handler: subscription.handler, fn, deadLetters });
      acknowledge(deadLetters, {
        'AwsSolutions-SQS3': isDeadLetterQueue,
        'Serverless-SQSRedrivePolicy': isDeadLetterQueue,
      });
      fn.addEventSource(
        new DynamoEventSource(this.table, {
          // From the oldest record kept: a redeploy that replaces the mapping misses no insert, and
          // the appender and the counts are idempotent, so a record seen twice is counted once.
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: subscription.batching?.size ?? STREAM_DELIVERY.batchSize,
          ...(subscription.batching
            ? { maxBatchingWindow: Duration.seconds(subscription.batching.windowSeconds) }
            : {}),
          bisectBatchOnError: true,
          retryAttempts: STREAM_DELIVERY.retryAttempts,
          maxRecordAge: STREAM_DELIVERY.maxRecordAge,
          reportBatchItemFailures: true,
          onFailure: new SqsDlq(deadLetters),
          filters: [FilterCriteria.filter(subscription.filterPattern)],
        }),
      );

      // Errors are both invocations that failed and records the handler logged as failed (it
      // reports failures per record, so most never fail the invocation).
      this.alarm(`${id}Errors`, functionErrors(this, id, fn, subscription.handler), {
        threshold: 1,
        description: `${subscription.handler} failed or logged an error`,
        runbook: 'stream-function-errors',
      });
      this.alarm(
        `${id}DeadLetterDepth`,
        deadLetters.metricApproximateNumberOfMessagesVisible({
          statistic: 'Maximum',
          period: Duration.minutes(5),
        }),
        {
          threshold: 1,
          description: `Stream records that ${subscription.handler} gave up on are waiting in its DLQ`,
          runbook: 'dead-letter-queue-depth',
        },
      );
    }
  }

  /**
   * The consumers of the change feed's events on the bus (lib/api/bus-subscriptions.ts), each its own
   * rule, queue, dead-letter queues and alarms (infra/bus-consumer.ts). What a consumer is told besides
   * the table is here: enrichment its provider.
   */
  private busSubscriptions(stateful: RemovalPolicy, bus: EventBus) {
    const secret = this.enrichmentSecret(stateful);
    new CfnOutput(this, 'EnrichmentSecretArn', {
      value: secret.secretArn,
      description: 'Secret holding the enrichment provider key',
    });
    const deliver = this.webhookDeliverer(stateful);
    const environments: Record<string, Record<string, string>> = {
      'enrich-person': {
        [ENRICHMENT_KEY_SECRET_ENV]: secret.secretArn,
        ...(this.config.enrichmentUrl ? { ENRICHMENT_URL: this.config.enrichmentUrl } : {}),
      },
      [WAKE_WEBHOOKS.handler]: { [DELIVER_FUNCTION_ENV]: deliver.functionName },
    };
    for (const subscription of BUS_SUBSCRIPTIONS) {
      const fn = this.serviceFunction(
        subscription.handler,
        entryOf(subscription.handler),
        `EventBridge via SQS: ${subscription.handler} (${subscription.eventTypes.join(', ')})`,
        {
          invokedBy: 'queue',
          environment: environments[subscription.handler] ?? {},
          timeout: STREAM_DELIVERY.timeout,
        },
      );
      if (subscription.handler === 'enrich-person')
        fn.addToRolePolicy(
          new PolicyStatement({
            actions: ['secretsmanager:GetSecretValue'],
            resources: [secret.secretFullArn ?? `${secret.secretArn}-??????`],
          }),
        );
      // The waker starts lanes by invoking the delivering function, that one function alone.
      if (subscription === WAKE_WEBHOOKS)
        fn.addToRolePolicy(
          new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [deliver.functionArn] }),
        );
      const consumer = new BusConsumer(this, `${constructIdOf(subscription.handler)}Consumer`, {
        bus,
        subscription,
        fn,
        removalPolicy: stateful,
        alarm: (id, metric, options) => this.alarm(id, metric, options),
      });
      this.consumers.push(consumer);
      if (subscription === WAKE_WEBHOOKS)
        // The sweep, on the default bus (where schedules run), put on the waking queue: every lane not
        // paused is started, its retries' time come or not (lib/webhooks/wake-lanes.ts).
        new Rule(this, 'WebhookSweep', {
          description: `wake-webhooks: sweep every webhook lane (${SWEEP_DETAIL_TYPE})`,
          schedule: Schedule.rate(WEBHOOK_SWEEP_RATE),
          targets: [new SqsQueue(consumer.queue, { deadLetterQueue: consumer.undelivered })],
        });
    }
  }

  /**
   * The function that delivers one webhook lane per asynchronous invocation (API.md 16), with KMS
   * Decrypt on the secrets' key and no retry of its own: the sweep starts every lane each minute, so
   * an invocation that failed goes to its failure queue (its on-failure destination), which alarms,
   * and the lane goes on at the next sweep. It runs outside any VPC: it reaches the internet, and no
   * private address of a VPC (the SSRF guard checks every address it connects to,
   * lib/webhooks/url-guard.ts).
   */
  private webhookDeliverer(stateful: RemovalPolicy): ServiceFunction {
    const failures = new Queue(this, 'DeliverWebhooksFailures', {
      retentionPeriod: DEAD_LETTER_RETENTION,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: stateful,
    });
    const itself =
      "This queue is itself where failures go (deliver-webhooks' on-failure destination): a dead-letter queue of its own would only move the same invocations again; its depth alarms instead";
    acknowledge(failures, { 'AwsSolutions-SQS3': itself, 'Serverless-SQSRedrivePolicy': itself });
    const fn = this.serviceFunction(
      DELIVER_HANDLER,
      entryOf(DELIVER_HANDLER),
      "Invoked asynchronously by wake-webhooks: delivers one webhook subscription's lane (API.md 16)",
      {
        invokedBy: 'destination',
        asynchronous: { onFailure: new SqsDestination(failures), retryAttempts: 0 },
        environment: {
          [WEBHOOK_KEY_ID_ENV]: this.webhookKey.keyArn,
          PUBLIC_BASE_URL: this.eventSource(),
        },
        timeout: WEBHOOK_LANE_TIMEOUT,
      },
    );
    this.webhookKey.grant(fn, ...(WEBHOOK_KEY_HANDLERS[DELIVER_HANDLER] ?? []));
    this.failureQueues[`${DELIVER_HANDLER} failed`] = failures;
    const period = Duration.minutes(5);
    this.alarm(
      'DeliverWebhooksFailures',
      failures.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period }),
      {
        threshold: 1,
        description:
          'Runs of webhook lanes failed (storage, KMS) and are waiting in the DLQ of deliver-webhooks',
        runbook: 'webhook-lane-failures',
      },
    );
    this.alarm(
      'WebhookSubscriptionsPaused',
      serviceMetric(this, 'WebhookSubscriptionsPaused', { statistic: 'Sum', period }),
      {
        threshold: 1,
        description:
          'The service paused a webhook subscription (its receiver answered 410, its address was refused, or 24 h of retries were spent)',
        runbook: 'webhook-subscription-paused',
      },
    );
    return fn;
  }

  /** The events' `source` (API.md 14): the service's public base URL, or the API's own. */
  private eventSource(): string {
    return this.config.publicBaseUrl ?? this.api.apiEndpoint;
  }

  /**
   * The bus the change feed's events are put on (API.md 14): `source` the service's base URL,
   * `detail-type` the event's type, `detail` the CloudEvent, for AWS consumers' rules.
   */
  private changeEventBus(): EventBus {
    const bus = new EventBus(this, 'ChangeEvents', {
      description: 'The change feed of the Person service: one CloudEvent per stored change',
    });
    new CfnOutput(this, 'EventBusName', {
      value: bus.eventBusName,
      description: 'The change feed as EventBridge events',
    });
    return bus;
  }

  /**
   * A custom resource on the table run by one of the service's functions at deploy (Provider
   * framework): construct ids `<id>`, `<id>Provider` and `<id>ProviderLogs`. With `waits`, the
   * function is also the Provider's `isComplete`, asked again every 30 s until it says it is done
   * (up to 2 hours).
   */
  private deployTimeResource(
    id: string,
    handler: string,
    description: string,
    {
      timeout,
      properties,
      waits = false,
    }: { timeout: Duration; properties: Record<string, string>; waits?: boolean },
    stateful: RemovalPolicy,
  ) {
    const fn = this.serviceFunction(handler, `infra/handlers/${handler}.ts`, description, {
      invokedBy: 'deploy',
      timeout,
    });
    const logGroup = new LogGroup(this, `${id}ProviderLogs`, {
      retention: LOG_RETENTION,
      removalPolicy: stateful,
    });
    // The framework's roles are the service's own, as its functions' are: no managed policy.
    const onEventRole = executionRole(this, `${id}ProviderOnEventRole`, logGroup);
    const waiterRole = waits
      ? executionRole(this, `${id}ProviderCompleteAndTimeoutRole`, logGroup)
      : undefined;
    const provider = new Provider(this, `${id}Provider`, {
      onEventHandler: fn,
      frameworkOnEventRole: onEventRole,
      ...(waiterRole
        ? {
            isCompleteHandler: fn,
            frameworkCompleteAndTimeoutRole: waiterRole,
            queryInterval: Duration.seconds(30),
            totalTimeout: Duration.hours(2),
          }
        : {}),
      logGroup,
    });
    this.completeFramework(provider, handler, fn, [onEventRole, ...(waiterRole ? [waiterRole] : [])]);
    return new CustomResource(this, id, {
      serviceToken: provider.serviceToken,
      resourceType: `Custom::${id}`,
      properties: { TableName: this.table.tableName, ...properties },
    });
  }

  /**
   * What CDK's Provider framework leaves undone on its functions, done (memory, active tracing), and
   * what cdk-nag finds in the framework that is CDK's to decide acknowledged, with the reason: its
   * grants on every version of a function, its functions' dead-letter queues, and its waiter state
   * machine's logs and traces.
   */
  private completeFramework(provider: Provider, handler: string, fn: ServiceFunction, roles: Role[]) {
    const frameworkFunctions = provider.node
      .findAll()
      .filter((child): child is LambdaFunction => child instanceof LambdaFunction);
    for (const framework of frameworkFunctions) {
      (framework.node.defaultChild as CfnFunction).memorySize = FRAMEWORK_MEMORY_MB;
      traceActively(framework);
    }
    const versions = `CDK's Provider framework grants invoking ${handler} with lambda:InvokeFunction on its ARN and on <arn>:*, its versions and aliases: one function, not a wildcard over resources`;
    for (const role of roles)
      acknowledge(role, { [versionsFinding(fn.node.defaultChild as CfnFunction)]: versions });
    const waited = frameworkFunctions.filter((framework) => framework.functionArn !== provider.serviceToken);
    acknowledge(provider, {
      'Serverless-LambdaDLQ':
        "CDK's Provider framework: CloudFormation invokes its onEvent function asynchronously, but the framework answers CloudFormation itself on any failure (the deploy fails and rolls back), so no event is left to keep; its waiter state machine invokes isComplete and onTimeout synchronously",
      ...(waited.length > 0
        ? {
            'AwsSolutions-SF1':
              "CDK's waiter state machine of the Provider framework, which calls isComplete every 30 s during a deploy: CDK's option to log it grants logs:CreateLogStream and logs:PutLogEvents on * (a wildcard over actions that have a resource form), worse than the finding; each call logs to the provider's log group, and the execution history stays in Step Functions",
            'AwsSolutions-SF2':
              "CDK's waiter state machine of the Provider framework: CDK offers no tracing for it; the isComplete calls it makes are traced as Lambda invocations",
            'Serverless-StepFunctionStateMachineXray':
              "CDK's waiter state machine of the Provider framework: CDK offers no tracing for it; the isComplete calls it makes are traced as Lambda invocations",
            ...Object.fromEntries(
              waited.map((framework) => [
                versionsFinding(framework.node.defaultChild as CfnFunction),
                "CDK's waiter state machine invokes the framework's isComplete and onTimeout functions with lambda:InvokeFunction on their ARNs and on <arn>:*, their versions and aliases: two functions, not a wildcard over resources",
              ]),
            ),
          }
        : {}),
    });
  }

  /**
   * The seeded NamePrefix and NameSuffix entries, written at deploy by the same seed function the
   * local runtime and the tests use. The construct ids keep their old names, so the resource is
   * updated in place rather than replaced.
   */
  private referenceData(stateful: RemovalPolicy) {
    this.deployTimeResource(
      'ReferenceData',
      'seed-reference-data',
      'Custom resource: writes the seeded NamePrefix and NameSuffix entries',
      {
        timeout: Duration.minutes(1),
        // Changes when the seeded entries change, so an update seeds again.
        properties: {
          DataVersion: createHash('sha256')
            .update(JSON.stringify(SEEDED_VOCABULARY))
            .digest('hex')
            .slice(0, 16),
        },
      },
      stateful,
    );
  }

  /**
   * The search postings of the persons stored before postings existed, built once at the deploy that
   * adds this resource (infra/handlers/backfill-postings.ts): each call of the function works for up
   * to 9 of its 10 minutes and keeps its place, and the Provider calls it again until it is done.
   * Bump `BackfillVersion` to run it again (2: the reference items of `local_reference_id`, #32).
   */
  private postingsBackfill(stateful: RemovalPolicy) {
    return this.deployTimeResource(
      'PostingsBackfill',
      'backfill-postings',
      'Custom resource: builds the search postings of the persons already stored',
      { timeout: Duration.minutes(10), properties: { BackfillVersion: '2' }, waits: true },
      stateful,
    );
  }

  /** One alarm per function on throttles: any throttle means requests or records were refused. */
  private throttleAlarms() {
    for (const [handler, fn] of this.functions) {
      this.alarm(
        `${constructIdOf(handler)}Throttles`,
        fn.metricThrottles({ statistic: 'Sum', period: Duration.minutes(5) }),
        { threshold: 1, description: `${handler} was throttled`, runbook: 'function-throttles' },
      );
    }
  }

  /**
   * The table refusing work: throttle events of the table or its indexes in 2 of 3 five-minute periods
   * (one burst is what the repository's retries absorb, StorageRetries; throttling that lasts is a hot
   * key or on-demand's limits, which no retry fixes), and any request answered 503 because storage stayed
   * busy past the retries (a caller got an error: the 5xx rate may not show a few).
   */
  private storageAlarms() {
    const period = Duration.minutes(5);
    const events = this.table.metricThrottleEvents({ statistic: 'Sum', period });
    this.alarm(
      'TableThrottles',
      new MathExpression({
        // FILL: DynamoDB sends throttle events only when there are some, and a sum with a missing term has no value.
        expression: Object.keys(events)
          .map((id) => `FILL(${id}, 0)`)
          .join(' + '),
        usingMetrics: events,
        period,
        label: 'Throttle events of the table and its indexes',
      }),
      {
        threshold: 1,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        description:
          'The table or one of its indexes throttled reads or writes in 2 of 3 five-minute periods',
        runbook: 'table-throttles',
      },
    );
    this.alarm(
      'StorageUnavailable',
      serviceMetric(this, 'StorageUnavailable', { statistic: 'Sum', period }),
      {
        threshold: 1,
        description: 'Requests were answered 503: storage stayed busy past the retry budget',
        runbook: 'storage-unavailable',
      },
    );
  }

  /** The provider failing a share of enrichments (ENRICHMENT_FAILURE_RATE_PERCENT says why that share). */
  private enrichmentAlarm() {
    const period = Duration.minutes(15);
    const of = (name: 'EnrichmentProviderErrors' | 'EnrichmentFilled' | 'EnrichmentUnknown') =>
      serviceMetric(this, name, { statistic: 'Sum', period });
    this.alarm(
      'EnrichmentFailureRate',
      new MathExpression({
        // Only periods with failures have a value: each metric is sent only when it counted something.
        expression: `IF(errors >= ${ENRICHMENT_FAILURES_MIN}, 100 * errors / (errors + FILL(filled, 0) + FILL(unknown, 0)), 0)`,
        usingMetrics: {
          errors: of('EnrichmentProviderErrors'),
          filled: of('EnrichmentFilled'),
          unknown: of('EnrichmentUnknown'),
        },
        period,
        label: 'Enrichments the provider failed (% of enrichments)',
      }),
      {
        threshold: ENRICHMENT_FAILURE_RATE_PERCENT,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        description: `The provider failed ${ENRICHMENT_FAILURE_RATE_PERCENT}% or more of enrichments in 2 of 3 fifteen-minute periods`,
        runbook: 'enrichment-failure-rate',
      },
    );
  }

  /** An alarm of the service, in the monitoring stack: it notifies the alarm topic. */
  private alarm(id: string, metric: IMetric, options: AlarmOptions) {
    this.monitoring.alarm(id, metric, options);
  }
}
