/**
 * One Lambda function of the service, with the defaults they all share, so a new handler is one
 * line in the stack and no function can be deployed on another runtime, architecture or bundling.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { type CfnRole, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type CfnFunction,
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
 * A Lambda execution role that writes its own log group and no other: AWS's managed
 * AWSLambdaBasicExecutionRole, which CDK attaches by default, would let it create log groups and write
 * to every log group of the account (cdk-nag AwsSolutions-IAM4). These writes and X-Ray's, for active
 * tracing, are the role's own inline policy, apart from the grants the stack adds to its default
 * policy: X-Ray's writes have no resource form, and their `*` is acknowledged on this inline policy
 * alone (AwsSolutions-IAM5, and Serverless-LambdaStarPermissions, which reads inline policies only),
 * so a wildcard granted beside the function's other grants still fails the synth.
 */
export const executionRole = (scope: Construct, id: string, logGroup: ILogGroup): Role => {
  const role = new Role(scope, id, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    inlinePolicies: {
      Execution: new PolicyDocument({
        statements: [
          new PolicyStatement({
            actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            resources: [logGroup.logGroupArn],
          }),
          new PolicyStatement({ actions: TRACE_WRITES, resources: ['*'] }),
        ],
      }),
    },
  });
  const traces = `${TRACE_WRITES.join(' and ')} (active tracing) have no resource form: IAM takes only * for them`;
  acknowledge(role.node.defaultChild as CfnRole, {
    [WILDCARD_FINDING]: traces,
    'Serverless-LambdaStarPermissions': traces,
  });
  return role;
};

/**
 * Active X-Ray tracing, set on the function's CloudFormation resource: CDK's `tracing` option would
 * grant X-Ray's writes in the default policy, beside the function's other grants, where acknowledging
 * their wildcard would pass any other; `executionRole` grants them instead.
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
    { entry, description, environment = {}, timeout, memorySize, logRemovalPolicy }: ServiceFunctionProps,
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
