/**
 * cdk-nag in the build (issue #42): its AwsSolutions and Serverless packs leave no finding
 * unacknowledged in the stack, with the default options and with each variant the deploy options make
 * (infra/config.ts), and a finding nobody acknowledged fails the synth, as `npm run synth` and every
 * infra test's synth run the packs (infra/nag.ts). The packs walk the whole app, so the monitoring
 * nested stack's resources are checked with the stack's. The acknowledgements themselves are pinned
 * here: a new rule acknowledged anywhere fails a test until this list agrees.
 */
import { type Stack, Validations } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { nagPacks } from '../../infra/nag';
import type { PersonServiceStack } from '../../infra/person-service-stack';
import { NO_RESOURCE_FORM } from '../../infra/service-function';
import { type Json, OPTIONS, policyStatementsOf, synthesize } from './support';

const DELEGATE = 'arn:aws:iam::123456789012:role/importer';

/** The deploy options' variants, as test/infra/options.test.ts synthesizes them, and all at once. */
const VARIANTS: Record<string, Record<string, string>> = {
  'with the default options': {},
  'with a JWT authorizer, a dev stack, an imported secret, an alarm email and the other options': OPTIONS,
  'with CORS origins': { corsOrigins: 'https://app.example.org, http://localhost:5173' },
  'with the Reconciliation API open to read': {
    reconcilePublic: 'true',
    reconcilePublicProperties: 'email',
  },
  'with requester binding and a delegate': { requesterBinding: 'true', delegates: DELEGATE },
  'with all of these at once': {
    jwtIssuer: 'https://issuer.example.org/',
    jwtAudience: 'person-service',
    alarmEmail: 'ops@example.org',
    corsOrigins: 'https://app.example.org',
    reconcilePublic: 'true',
    requesterBinding: 'true',
    delegates: DELEGATE,
  },
};

/** Each finding of both packs that no acknowledgement covers: `severity rule at construct path`. */
const findingsOf = (stack: Stack) =>
  nagPacks().flatMap((pack) =>
    pack
      .validateScope(stack)
      .violations.flatMap(({ ruleName, severity, violatingResources }) =>
        violatingResources.map(({ constructPath }) => `${severity} ${ruleName} at ${constructPath}`),
      ),
  );

/** Every acknowledgement made in the stack: its rule id (a function's logical id as `<function.Arn>`) and reason. */
const acknowledgementsOf = (stack: Stack) =>
  stack.node
    .findAll()
    .flatMap((construct) => construct.node.metadata)
    .filter(({ type }) => type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap(({ data }) => Object.entries(data as Record<string, string>))
    .map(([id, reason]) => ({
      rule: id.replace(/^annotation::/i, '').replace(/<\w+\.Arn>/, '<function.Arn>'),
      reason,
    }));

/** The actions IAM takes on * only, which the acknowledged IAM5 `Resource::*` findings grant. */
/** Each variant's stack, synthesized without the packs, so that a test lists their findings itself. */
const synthesized = new Map<string, { stack: PersonServiceStack; template: Template }>();

beforeAll(() => {
  for (const [variant, context] of Object.entries(VARIANTS))
    synthesized.set(variant, synthesize({ context, nag: false }));
}, 240_000);

const variant = (name: string) => synthesized.get(name) as { stack: PersonServiceStack; template: Template };

/** A synth's time when the other infra files bundle beside it: some seconds, more than a test's default. */
const SYNTH_TIMEOUT = 120_000;

describe('cdk-nag', () => {
  it.each(Object.keys(VARIANTS))('finds nothing unacknowledged in the stack %s', (name) => {
    expect(findingsOf(variant(name).stack)).toEqual([]);
  });

  /** The message a synth fails with, run as `npm run synth` runs it: with both packs. */
  const failureOf = (extend: (stack: PersonServiceStack) => void) => {
    expect(() => synthesize({ extend, nag: false })).not.toThrow();
    try {
      synthesize({ extend });
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('The synth did not fail');
  };

  it(
    'fails the synth on a finding nobody acknowledged, naming the rule and the construct',
    () => {
      const message = failureOf((stack) => {
        new Queue(stack, 'Unacknowledged', { enforceSSL: true });
      });
      expect(message).toContain('PersonServiceStack/Unacknowledged/Resource');
      expect(message).toContain("Acknowledge with 'AwsSolutions::AwsSolutions-SQS3'");
    },
    SYNTH_TIMEOUT,
  );

  it(
    'checks the monitoring nested stack too',
    () => {
      const message = failureOf((stack) => {
        new Queue(stack.monitoring, 'Unacknowledged', { enforceSSL: true });
      });
      expect(message).toContain('PersonServiceStack/Monitoring/Unacknowledged/Resource');
      expect(message).toContain("Acknowledge with 'AwsSolutions::AwsSolutions-SQS3'");
    },
    SYNTH_TIMEOUT,
  );

  it(
    'fails it on a wildcard granted to a function, though its role’s X-Ray wildcard is acknowledged',
    () => {
      const grant = (stack: PersonServiceStack) =>
        stack.functions
          .get('get-person')
          ?.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:GetItem'], resources: ['*'] }));
      // The role's own validation, with or without the packs: their acknowledgement on the role would pass it.
      for (const nag of [false, true])
        expect(() => synthesize({ extend: grant, nag })).toThrow(
          /GetPersonServiceRole.*dynamodb:GetItem is granted on \*, though it has a resource form/s,
        );
    },
    SYNTH_TIMEOUT,
  );

  it('acknowledges these rules only, each with its reason in words', () => {
    const acknowledged = [...synthesized.values()].flatMap(({ stack }) => acknowledgementsOf(stack));
    expect([...new Set(acknowledged.map(({ rule }) => rule))].sort()).toEqual(
      [
        // Routes without authorization: self-description, and with their options CORS preflights and the Reconciliation API.
        'AwsSolutions-APIG4',
        // X-Ray's writes, and the stream functions' dynamodb:ListStreams: no resource form.
        'AwsSolutions-IAM5[Resource::*]',
        'Serverless-LambdaStarPermissions',
        // The custom-resource framework's invoke grants on a function's versions and aliases.
        'AwsSolutions-IAM5[Resource::<function.Arn>:*]',
        // The framework's waiter state machine: its logs and traces are CDK's.
        'AwsSolutions-SF1',
        'AwsSolutions-SF2',
        'Serverless-StepFunctionStateMachineXray',
        // The enrichment provider's key: a third party's, which no function can rotate.
        'AwsSolutions-SMG4',
        // The dead-letter queues (the stream mappings', the bus consumers' and their rules') are dead-letter queues.
        'AwsSolutions-SQS3',
        'Serverless-SQSRedrivePolicy',
        // No function is invoked asynchronously (but the framework's onEvent, which answers CloudFormation itself).
        'Serverless-LambdaDLQ',
        // A queue's event source mapping takes no on-failure destination: the queue's redrive policy is it.
        'Serverless-LambdaEventSourceMappingDestination',
        // The alarm email subscription.
        'Serverless-SNSRedrivePolicy',
      ].sort(),
    );
    for (const { rule, reason } of acknowledged)
      expect({ rule, reason }).toEqual({ rule, reason: expect.stringMatching(/^\S.{60,}$/) });
  });

  it('acknowledges a grant on * only where every action of it has no resource form', () => {
    for (const { template } of synthesized.values()) {
      const wildcards = policyStatementsOf(template).filter((statement: Json) =>
        [statement.Resource].flat().includes('*'),
      );
      expect(wildcards.length).toBeGreaterThan(0);
      for (const statement of wildcards)
        expect([statement.Action].flat().filter((action) => !NO_RESOURCE_FORM.includes(action))).toEqual([]);
    }
  });
});
