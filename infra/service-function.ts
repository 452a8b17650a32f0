/**
 * One Lambda function of the service, with the defaults they all share, so a new handler is one
 * line in the stack and no function can be deployed on another runtime, architecture or bundling.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, Lazy, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  type AddToPrincipalPolicyResult,
  type CfnRole,
  PolicyDocument,
  PolicyStatement,
  Role,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type CfnFunction,
  type IDestination,
  type Function as LambdaFunction,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type ILogGroup, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { HTTP_FUNCTION_TIMEOUT_MS } from '../lib/timeouts';
import { assetsOf, BUNDLE_SETTINGS, FUNCTION_ENVIRONMENT } from './bundling';
import { acknowledge, WILDCARD_FINDING } from './nag';
import { METRICS_NAMESPACE_ENV, serviceNamespaceOf } from './service-metrics';

/** The repository root: entries, package-lock.json and node_modules are found from here. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** How long function logs are kept: long enough to look into last month's incident, no longer. */
export const LOG_RETENTION = RetentionDays.ONE_MONTH;

/** Template metadata naming the handler module a function bundles, for readers and tests. */
export const ENTRY_METADATA = 'PersonService:Entry';

const shellQuote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * The stack's esbuild settings for one handler: infra/bundling.ts's shared settings in CDK's
 * terms, bundled locally by the esbuild in devDependencies (never in Docker), with the handler's
 * run-time files copied beside the bundle.
 */
export const bundlingOptions = (handler: string): BundlingOptions => {
  const assets = assetsOf(handler);
  return {
    target: BUNDLE_SETTINGS.target,
    format: BUNDLE_SETTINGS.format === 'esm' ? OutputFormat.ESM : OutputFormat.CJS,
    // CDK's `minify` is all or nothing; the parts come as esbuild flags.
    minify: false,
    esbuildArgs: {
      '--minify-whitespace': BUNDLE_SETTINGS.minifyWhitespace,
      '--minify-syntax': BUNDLE_SETTINGS.minifySyntax,
      '--minify-identifiers': BUNDLE_SETTINGS.minifyIdentifiers,
    },
    sourceMap: BUNDLE_SETTINGS.sourcemap,
    mainFields: [...BUNDLE_SETTINGS.mainFields],
    banner: BUNDLE_SETTINGS.banner,
    bundleAwsSDK: true,
    externalModules: [...BUNDLE_SETTINGS.external],
    logLevel: LogLevel.WARNING,
    forceDockerBundling: false,
    ...(assets.length > 0
      ? {
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (inputDir: string, outputDir: string) =>
              assets.map(({ from, to }) => {
                const target = join(outputDir, to);
                return `mkdir -p ${shellQuote(join(target, '..'))} && cp ${shellQuote(join(inputDir, from))} ${shellQuote(target)}`;
              }),
          },
        }
      : {}),
  };
};

/** X-Ray's writes of active tracing: IAM gives them no resource form, only `*`. */
export const TRACE_WRITES = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];

/**
 * The actions IAM takes only `*` for that a function of the stack is granted: X-Ray's writes, and the
 * `dynamodb:ListStreams` an event source mapping reads a table's stream with.
 */
export const NO_RESOURCE_FORM = [...TRACE_WRITES, 'dynamodb:ListStreams'];

/** Why a role's grants on `*` stay: the reason cdk-nag's wildcard findings are acknowledged with. */
const WILDCARD_REASON = `${NO_RESOURCE_FORM.join(', ')} (active tracing, a stream's event source mapping) have no resource form: IAM takes only * for them, and the role's own validation fails the synth on * for any other action`;

/**
 * A Lambda execution role whose policies are all inline in the role: the statements it is created
 * with, and every grant the stack adds later (CDK puts those in a separate `AWS::IAM::Policy`, one
 * more resource per function against CloudFormation's 500 a stack). A policy with no statement is
 * left out of the template. A grant on `*` fails the synth unless every action of it has no resource
 * form ({@link NO_RESOURCE_FORM}): cdk-nag's wildcard findings, acknowledged on the role for those
 * actions, would pass any other.
 */
class ExecutionRole extends Role {
  private readonly policies: { Execution: PolicyDocument; Grants: PolicyDocument };

  constructor(scope: Construct, id: string, statements: PolicyStatement[]) {
    const policies = {
      Execution: new PolicyDocument({ statements }),
      Grants: new PolicyDocument(),
    };
    super(scope, id, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.policies = policies;
    (this.node.defaultChild as CfnRole).policies = Lazy.any({
      produce: () =>
        Object.entries(this.policies)
          .filter(([, document]) => !document.isEmpty)
          .map(([policyName, policyDocument]) => ({ policyName, policyDocument })),
    });
    this.node.addValidation({ validate: () => this.wildcardsWithResourceForm() });
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.policies.Grants.addStatements(statement);
    return { statementAdded: true, policyDependable: this };
  }

  private wildcardsWithResourceForm(): string[] {
    return Object.values(this.policies).flatMap((document) => [
      ...document.validateForIdentityPolicy(),
      ...(Stack.of(this).resolve(document)?.Statement ?? [])
        .filter(({ Resource }: { Resource: unknown }) => [Resource].flat().includes('*'))
        .flatMap(({ Action }: { Action: string | string[] }) => [Action].flat())
        .filter((action: string) => !NO_RESOURCE_FORM.includes(action))
        .map(
          (action: string) =>
            `${action} is granted on *, though it has a resource form: grant it on its resources`,
        ),
    ]);
  }
}

/**
 * A Lambda execution role that writes its own log group and no other: AWS's managed
 * AWSLambdaBasicExecutionRole, which CDK attaches by default, would let it create log groups and write
 * to every log group of the account (cdk-nag AwsSolutions-IAM4). These writes and X-Ray's, for active
 * tracing, are the role's `Execution` policy; the grants the stack adds are its `Grants` policy, both
 * inline (see {@link ExecutionRole}).
 */
export const executionRole = (scope: Construct, id: string, logGroup: ILogGroup): Role => {
  const role = new ExecutionRole(scope, id, [
    new PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
    new PolicyStatement({ actions: TRACE_WRITES, resources: ['*'] }),
  ]);
  acknowledge(role.node.defaultChild as CfnRole, {
    [WILDCARD_FINDING]: WILDCARD_REASON,
    'Serverless-LambdaStarPermissions': WILDCARD_REASON,
  });
  return role;
};

/**
 * Active X-Ray tracing, set on the function's CloudFormation resource: CDK's `tracing` option would
 * grant X-Ray's writes again, as a grant of the function's; `executionRole` grants them once, in its
 * `Execution` policy.
 */
export const traceActively = (fn: LambdaFunction) => {
  (fn.node.defaultChild as CfnFunction).tracingConfig = { mode: Tracing.ACTIVE };
};

export interface ServiceFunctionProps {
  /** The handler module, from the project root: `functions/get-person.ts`. */
  entry: string;
  /** What the function serves, shown in the console. */
  description: string;
  environment?: Record<string, string>;
  timeout?: Duration;
  memorySize?: number;
  /**
   * For a function invoked asynchronously: where an invocation that failed goes (its on-failure
   * destination), after how many of Lambda's retries.
   */
  asynchronous?: { onFailure: IDestination; retryAttempts: number };
  /** What happens to the function's log group when the stack goes. */
  logRemovalPolicy: RemovalPolicy;
}

/** The handler name of an entry: `functions/get-person.ts` → `get-person`. */
export const handlerNameOf = (entry: string) => entry.replace(/^.*\//, '').replace(/\.ts$/, '');

/**
 * A `NodejsFunction` on Node.js 24 (`nodejs24.x`) and arm64 (Graviton: cheaper per millisecond),
 * bundled to ESM with the AWS SDK inside, source maps on, a log group with retention of its own
 * (not one created by Lambda that keeps logs forever) and a role that writes only that log group,
 * active X-Ray tracing, and the Powertools service name and the stack's metrics namespace set.
 */
export class ServiceFunction extends NodejsFunction {
  /** Its execution role (construct id `<id>ServiceRole`), its own: the stack adds the function's grants. */
  readonly executionRole: Role;

  constructor(
    scope: Construct,
    id: string,
    {
      entry,
      description,
      environment = {},
      timeout,
      memorySize,
      logRemovalPolicy,
      asynchronous,
    }: ServiceFunctionProps,
  ) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: LOG_RETENTION,
      removalPolicy: logRemovalPolicy,
    });
    const role = executionRole(scope, `${id}ServiceRole`, logGroup);
    super(scope, id, {
      entry: join(PROJECT_ROOT, entry),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: memorySize ?? 512,
      ...asynchronous,
      timeout: timeout ?? Duration.millis(HTTP_FUNCTION_TIMEOUT_MS),
      description,
      logGroup,
      role,
      environment: {
        ...FUNCTION_ENVIRONMENT,
        [METRICS_NAMESPACE_ENV]: serviceNamespaceOf(scope),
        ...environment,
      },
      bundling: bundlingOptions(handlerNameOf(entry)),
    });
    this.executionRole = role;
    traceActively(this);
    (this.node.defaultChild as CfnFunction).addMetadata(ENTRY_METADATA, entry);
  }
}
