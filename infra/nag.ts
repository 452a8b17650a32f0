/**
 * cdk-nag in the build (issue #42): its AwsSolutions and Serverless packs check the app at every
 * synth (`npm run synth`, `cdk deploy`) and in the infra tests, and a finding fails the synth unless
 * it is acknowledged on the construct concerned, with its reason in words. The acknowledgements are
 * made where the constructs are built (infra/person-service-stack.ts, infra/service-function.ts), by
 * `acknowledge` below.
 *
 * cdk-nag 3 is a CDK policy-validation plugin (`Validations.of(app).addPlugins`), not an aspect: its
 * findings are a validation report, not annotations, and an acknowledgement (`Validations.acknowledge`)
 * covers the construct it is made on and everything inside it. Findings that name a resource, such as
 * an IAM wildcard, are acknowledged one by one: `AwsSolutions-IAM5[Resource::*]`.
 */
import { type CfnResource, Stack, type Stage, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** The packs, fresh: a pack keeps the findings of its last run. Verbose: each finding says why it matters. */
export const nagPacks = () => [
  new AwsSolutionsChecks(undefined, { verbose: true }),
  new ServerlessChecks(undefined, { verbose: true }),
];

/** Runs both packs at every synth of the app: an unacknowledged finding fails it. */
export const checkWithNag = (app: Stage) => Validations.of(app).addPlugins(...nagPacks());

/** Acknowledges findings on a construct and what it contains: finding id → why it stays. */
export const acknowledge = (scope: IConstruct, reasons: Record<string, string>) =>
  Validations.of(scope).acknowledge(...Object.entries(reasons).map(([id, reason]) => ({ id, reason })));

/**
 * The IAM5 finding of a grant on every version and alias of one resource (`<arn>:*`), as cdk-nag
 * names it: by the logical id of the resource whose ARN it extends.
 */
export const versionsFinding = (resource: CfnResource) =>
  `AwsSolutions-IAM5[Resource::<${Stack.of(resource).resolve(resource.logicalId)}.Arn>:*]`;

/** The IAM5 finding of a grant on `*`: acknowledged only where every action it grants has no resource form. */
export const WILDCARD_FINDING = 'AwsSolutions-IAM5[Resource::*]';
