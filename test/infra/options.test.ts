/** The deploy options (CDK context): what each one changes in the template, and what is refused. */
import { App } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { stackConfigFromContext } from '../../infra/config';
import { FALLBACK_HANDLER, ROUTES, servedMethods } from '../../lib/api/routes';
import { ENRICHMENT_KEY_SECRET_ENV } from '../../lib/enrichment/from-env';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '../../lib/http/cors';
import {
  OPTIONS,
  only,
  permissionsOf,
  type Resource,
  resourcesOf,
  roleOf,
  serviceFunctions,
  synthesize,
} from './support';

let defaults: Template;
let withOptions: Template;
/** Their monitoring nested stacks' templates: the alarm topic and its subscription. */
let defaultsMonitoring: Template;
let withOptionsMonitoring: Template;

beforeAll(() => {
  ({ template: defaults, monitoring: defaultsMonitoring } = synthesize());
  ({ template: withOptions, monitoring: withOptionsMonitoring } = synthesize({ context: OPTIONS }));
});

const variablesOf = (template: Template, handler: string) =>
  serviceFunctions(template).get(handler)?.resource.Properties.Environment.Variables;

describe('jwtIssuer and jwtAudience', () => {
  it('put a JWT authorizer with that issuer and audience in front of every non-public route', () => {
    const [authorizerId, authorizer] = only(resourcesOf(withOptions, 'AWS::ApiGatewayV2::Authorizer'));
    expect(authorizer.Properties).toMatchObject({
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Issuer: OPTIONS.jwtIssuer, Audience: ['person-service', 'person-admin'] },
    });
    for (const route of Object.values(resourcesOf(withOptions, 'AWS::ApiGatewayV2::Route'))) {
      const key = route.Properties.RouteKey as string;
      const isPublic = ROUTES.some(
        (candidate) =>
          candidate.public &&
          servedMethods(candidate).some((method) => `${method} ${candidate.path}` === key),
      );
      if (isPublic) expect({ key, auth: route.Properties.AuthorizationType }).toEqual({ key, auth: 'NONE' });
      else
        expect({ key, ...route.Properties }).toMatchObject({
          key,
          AuthorizationType: 'JWT',
          AuthorizerId: { Ref: authorizerId },
        });
    }
  });

  it('must come together', () => {
    const node = (context: Record<string, string>) => new App({ context }).node;
    expect(() => stackConfigFromContext(node({ jwtIssuer: OPTIONS.jwtIssuer }))).toThrow(/jwtAudience/);
    expect(() => stackConfigFromContext(node({ jwtAudience: 'x' }))).toThrow(/jwtIssuer/);
  });
});

describe('devStack', () => {
  it('destroys the table, logs and queue with the stack and leaves the table unprotected', () => {
    const [, table] = only(resourcesOf(withOptions, 'AWS::DynamoDB::Table'));
    expect(table.Properties.DeletionProtectionEnabled).toBe(false);
    for (const type of ['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup', 'AWS::SQS::Queue'])
      for (const resource of Object.values(resourcesOf(withOptions, type)))
        expect({ type, policy: resource.DeletionPolicy }).toEqual({ type, policy: 'Delete' });
  });

  it('is off by default: the table, logs, secret and queue outlive the stack', () => {
    for (const type of [
      'AWS::DynamoDB::Table',
      'AWS::Logs::LogGroup',
      'AWS::SQS::Queue',
      'AWS::SecretsManager::Secret',
    ])
      for (const resource of Object.values(resourcesOf(defaults, type)))
        expect({ type, policy: resource.DeletionPolicy }).toEqual({ type, policy: 'Retain' });
  });

  it('accepts only true or false', () => {
    expect(() => stackConfigFromContext(new App({ context: { devStack: 'yes' } }).node)).toThrow(/devStack/);
  });
});

describe('throttleRate and throttleBurst', () => {
  it('set the stage throttling', () => {
    const [, stage] = only(resourcesOf(withOptions, 'AWS::ApiGatewayV2::Stage'));
    expect(stage.Properties.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: 25,
      ThrottlingBurstLimit: 50,
    });
  });

  it('must be positive numbers', () => {
    expect(() => stackConfigFromContext(new App({ context: { throttleRate: '0' } }).node)).toThrow(
      /throttleRate/,
    );
  });
});

describe('enrichmentSecretName', () => {
  it('imports the named secret instead of creating one, and grants reading only that secret', () => {
    expect(Object.keys(withOptions.findResources('AWS::SecretsManager::Secret'))).toEqual([
      expect.stringMatching(/^FeedCursorKey/),
    ]);
    const enrich = serviceFunctions(withOptions).get('enrich-person') as { resource: Resource };
    const secretArn = JSON.stringify(
      enrich.resource.Properties.Environment.Variables[ENRICHMENT_KEY_SECRET_ENV],
    );
    expect(secretArn).toContain(`:secret:${OPTIONS.enrichmentSecretName}`);
    const reads = permissionsOf(withOptions, roleOf(enrich.resource)).filter(({ action }) =>
      action.startsWith('secretsmanager:'),
    );
    expect(reads.map(({ action }) => action)).toEqual(['secretsmanager:GetSecretValue']);
    expect(reads[0]?.resource).toContain(`:secret:${OPTIONS.enrichmentSecretName}-??????`);
  });
});

describe('enrichmentUrl', () => {
  it('configures the provider of the enrichment function; without it enrichment finds nothing', () => {
    expect(variablesOf(withOptions, 'enrich-person').ENRICHMENT_URL).toBe(OPTIONS.enrichmentUrl);
    expect(variablesOf(defaults, 'enrich-person').ENRICHMENT_URL).toBeUndefined();
  });
});

describe('publicBaseUrl', () => {
  it('sets the base of absolute URLs for every HTTP function', () => {
    for (const route of ROUTES)
      expect(variablesOf(withOptions, route.handler).PUBLIC_BASE_URL).toBe(OPTIONS.publicBaseUrl);
    expect(variablesOf(defaults, 'get-person').PUBLIC_BASE_URL).toBeUndefined();
  });
});

describe('withholdIndexes', () => {
  const indexNames = (template: Template) => {
    const [, table] = only(resourcesOf(template, 'AWS::DynamoDB::Table'));
    return table.Properties.GlobalSecondaryIndexes.map(
      (index: { IndexName: string }) => index.IndexName,
    ).sort();
  };

  it('leaves the named indexes out of the table (an upgrade that adds two indexes deploys twice)', () => {
    expect(indexNames(withOptions)).toEqual(['byChange', 'byName']);
    expect(indexNames(defaults)).toEqual(['byChange', 'byChangeId', 'byName']);
  });

  it('refuses an index the table definition does not have', () => {
    expect(() => synthesize({ context: { withholdIndexes: 'byName,byNmae' } })).toThrow(/no index byNmae/);
  });
});

describe('alarmEmail', () => {
  it('subscribes the address to the alarm topic', () => {
    const [topicId] = only(withOptionsMonitoring.findResources('AWS::SNS::Topic'));
    const [, subscription] = only(resourcesOf(withOptionsMonitoring, 'AWS::SNS::Subscription'));
    expect(subscription.Properties).toMatchObject({
      Protocol: 'email',
      Endpoint: OPTIONS.alarmEmail,
      TopicArn: { Ref: topicId },
    });
    expect(defaultsMonitoring.findResources('AWS::SNS::Subscription')).toEqual({});
    expect(withOptions.findResources('AWS::SNS::Subscription')).toEqual({});
  });
});

describe('corsOrigins', () => {
  const ORIGINS = 'https://app.example.org, http://localhost:5173';
  let withCors: Template;
  beforeAll(() => {
    withCors = synthesize({ context: { corsOrigins: ORIGINS } }).template;
  });

  const apiOf = (template: Template) => only(resourcesOf(template, 'AWS::ApiGatewayV2::Api'))[1];
  const routeKeys = (template: Template) =>
    Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties.RouteKey as string,
    );

  it('is read as a comma-separated list of origins', () => {
    const node = new App({ context: { corsOrigins: ` ${ORIGINS} ,` } }).node;
    expect(stackConfigFromContext(node).corsOrigins).toEqual([
      'https://app.example.org',
      'http://localhost:5173',
    ]);
    expect(stackConfigFromContext(new App().node).corsOrigins).toEqual([]);
  });

  it.each([
    'https://app.example.org/',
    'https://app.example.org/path',
    '*',
    'app.example.org',
    'ftp://x.example',
  ])('refuses %s, which no browser sends as its Origin', (origin) => {
    const node = new App({ context: { corsOrigins: origin } }).node;
    expect(() => stackConfigFromContext(node)).toThrow(/corsOrigins must list origins/);
  });

  it('turns on API Gateway’s CORS for those origins: every method served, the shared headers, an hour', () => {
    expect(apiOf(withCors).Properties.CorsConfiguration).toEqual({
      AllowOrigins: ['https://app.example.org', 'http://localhost:5173'],
      AllowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'PUT'],
      AllowHeaders: [...CORS_ALLOWED_HEADERS],
      ExposeHeaders: [...CORS_EXPOSED_HEADERS],
      MaxAge: 3600,
    });
  });

  it('lets preflights past the authorizer of $default: a public OPTIONS /{proxy+} route to the fallback', () => {
    const routes = Object.values(resourcesOf(withCors, 'AWS::ApiGatewayV2::Route'));
    const options = routes.filter((route) => route.Properties.RouteKey === 'OPTIONS /{proxy+}');
    const fallback = routes.find((route) => route.Properties.RouteKey === '$default') as Resource;
    expect(options).toHaveLength(1);
    expect(options[0]?.Properties.AuthorizationType).toBe('NONE');
    expect(options[0]?.Properties.Target).toEqual(fallback.Properties.Target);
    expect(fallback.Properties.AuthorizationType).toBe('AWS_IAM');
    expect(serviceFunctions(withCors).has(FALLBACK_HANDLER)).toBe(true);
  });

  it('is off by default: no CORS configuration and no OPTIONS route', () => {
    expect(apiOf(defaults).Properties.CorsConfiguration).toBeUndefined();
    expect(routeKeys(defaults).filter((key) => key.startsWith('OPTIONS'))).toEqual([]);
  });
});

describe('reconcilePublic', () => {
  let open: Template;
  beforeAll(() => {
    open = synthesize({ context: { reconcilePublic: 'true', reconcilePublicProperties: 'email' } }).template;
  });

  const authOf = (template: Template) =>
    Object.fromEntries(
      Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map((route) => [
        route.Properties.RouteKey as string,
        route.Properties.AuthorizationType as string,
      ]),
    );
  const reconciliationKeys = ROUTES.filter((route) => route.reconciliation).flatMap((route) =>
    servedMethods(route).map((method) => `${method} ${route.path}`),
  );
  const reconciliationHandlers = [
    ...new Set(ROUTES.filter((route) => route.reconciliation).map((r) => r.handler)),
  ];

  it('opens the Reconciliation API routes, and no other, to callers without credentials', () => {
    const opened = authOf(open);
    const closed = authOf(defaults);
    expect(reconciliationKeys.length).toBeGreaterThanOrEqual(5);
    for (const key of reconciliationKeys) {
      expect({ key, auth: opened[key] }).toEqual({ key, auth: 'NONE' });
      expect({ key, auth: closed[key] }).toEqual({ key, auth: 'AWS_IAM' });
    }
    for (const [key, auth] of Object.entries(opened))
      if (!reconciliationKeys.includes(key)) expect({ key, auth }).toEqual({ key, auth: closed[key] });
  });

  it('tells their functions to show only fullname and the properties listed', () => {
    for (const handler of reconciliationHandlers) {
      expect(variablesOf(open, handler)).toMatchObject({
        RECONCILE_PUBLIC_READ: 'on',
        RECONCILE_PUBLIC_PROPERTIES: 'fullname,email',
      });
      expect(variablesOf(defaults, handler).RECONCILE_PUBLIC_READ).toBeUndefined();
    }
    expect(variablesOf(open, 'get-person').RECONCILE_PUBLIC_READ).toBeUndefined();
  });

  it('refuses a property that is none, and properties without the option', () => {
    const read = (context: Record<string, string>) => () => stackConfigFromContext(new App({ context }).node);
    expect(read({ reconcilePublic: 'true', reconcilePublicProperties: 'emial' })).toThrow(/emial/);
    expect(read({ reconcilePublicProperties: 'email' })).toThrow(/reconcilePublic=true/);
    expect(read({ reconcilePublic: 'true' })()).toMatchObject({
      reconcilePublic: { properties: ['fullname'] },
    });
  });
});

describe('requesterBinding and delegates (API.md 9.1)', () => {
  const DELEGATE = 'arn:aws:iam::123456789012:role/importer';
  let bound: Template;
  beforeAll(() => {
    bound = synthesize({ context: { requesterBinding: 'true', delegates: ` ${DELEGATE} ,` } }).template;
  });
  const bindingGrants = (template: Template, handler: string) => {
    const found = serviceFunctions(template).get(handler) as { resource: Resource };
    return permissionsOf(template, roleOf(found.resource))
      .filter(({ condition }) => JSON.stringify(condition ?? {}).includes('PRINCIPAL#*'))
      .map(({ action }) => action)
      .sort();
  };

  it('tells every HTTP function that binding is on and who the delegates are', () => {
    for (const handler of [
      'create-person',
      'update-person',
      'merge-person',
      'update-name-prefix',
      'get-person',
    ])
      expect(variablesOf(bound, handler), handler).toMatchObject({
        REQUESTER_BINDING: 'on',
        DELEGATES: DELEGATE,
      });
    expect(variablesOf(defaults, 'create-person').REQUESTER_BINDING).toBeUndefined();
    expect(variablesOf(defaults, 'create-person').DELEGATES).toBeUndefined();
  });

  it('grants the binding items to the writes that use them, only with the option', () => {
    expect(bindingGrants(bound, 'create-person')).toEqual([
      'dynamodb:ConditionCheckItem',
      'dynamodb:PutItem',
    ]);
    expect(bindingGrants(bound, 'update-person')).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
    ]);
    // A merge is a delegate's: only the source's binding, moved to the survivor.
    expect(bindingGrants(bound, 'merge-person')).toEqual(['dynamodb:PutItem']);
    // An erasure reads its caller's binding as a PATCH does; the erased person's own binding is
    // released with or without the option (a delegate may bind a principal either way), and its
    // conditional delete is the caller's check.
    expect(bindingGrants(bound, 'erase-person')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:DeleteItem']);
    expect(bindingGrants(defaults, 'erase-person')).toEqual(['dynamodb:DeleteItem']);
    expect(bindingGrants(bound, 'create-name-suffix')).toEqual(['dynamodb:ConditionCheckItem']);
    expect(bindingGrants(bound, 'get-person')).toEqual([]);
    for (const handler of ['create-person', 'update-person', 'merge-person'])
      expect(bindingGrants(defaults, handler), handler).toEqual([]);
  });

  it('refuses delegates without binding, and a delegate that is no IAM ARN', () => {
    const read = (context: Record<string, string>) => () => stackConfigFromContext(new App({ context }).node);
    expect(read({ delegates: DELEGATE })).toThrow(/requesterBinding=true/);
    expect(read({ requesterBinding: 'true', delegates: 'importer' })).toThrow(/importer/);
    expect(read({})()).toMatchObject({ requesterBinding: false, delegates: [] });
  });
});
