/**
 * Synthesizes the stack the way `cdk synth` does (cdk.json's context, then the test's own), and
 * reads what the tests assert on out of the template: functions by handler, their IAM statements. The
 * alarms and their topic are in the monitoring nested stack's template (`monitoring`).
 */
import { readFileSync } from 'node:fs';
import { App, type CfnResource, type NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { stackConfigFromContext } from '../../infra/config';
import { checkWithNag } from '../../infra/nag';
import { PersonServiceStack } from '../../infra/person-service-stack';
import { ENTRY_METADATA } from '../../infra/service-function';

const CDK_CONTEXT = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;

/** Every deploy option but CORS, binding and public reads, set to a value of its own (options.test.ts, nag.test.ts). */
export const OPTIONS = {
  devStack: 'true',
  jwtIssuer: 'https://issuer.example.org/',
  jwtAudience: 'person-service, person-admin',
  throttleRate: '25',
  throttleBurst: '50',
  enrichmentUrl: 'https://person.provider.example',
  enrichmentSecretName: 'person-service/enrichment-key',
  publicBaseUrl: 'https://people.example.org',
  alarmEmail: 'ops@example.org',
  withholdIndexes: 'byChangeId',
};

export interface SynthOptions {
  context?: Record<string, unknown>;
  /**
   * Bundle every function with esbuild, as `cdk synth` does. Off by default: the template is the
   * same either way (only asset hashes differ), and bundling every function takes about a minute.
   */
  bundle?: boolean;
  outdir?: string;
  /**
   * Run cdk-nag's packs at synth, as infra/app.ts does (on by default): a finding not acknowledged
   * fails the synth, and so every test that synthesizes. test/infra/nag.test.ts turns it off to list
   * the findings itself.
   */
  nag?: boolean;
  /** Adds to the stack before it is synthesized (a test's own resource). */
  extend?: (stack: PersonServiceStack) => void;
}

export const synthesize = ({
  context = {},
  bundle = false,
  outdir,
  nag = true,
  extend,
}: SynthOptions = {}) => {
  const app = new App({
    context: { ...CDK_CONTEXT, ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }), ...context },
    ...(outdir ? { outdir } : {}),
  });
  if (nag) checkWithNag(app);
  const stack = new PersonServiceStack(app, 'PersonServiceStack', {
    config: stackConfigFromContext(app.node),
  });
  extend?.(stack);
  const template = Template.fromStack(stack);
  return { app, stack, template, monitoring: monitoringTemplate(stack, template) };
};

/** The logical id, in the parent's template, of the resource that deploys a nested stack. */
export const nestedStackId = (nested: NestedStack) =>
  Stack.of(nested.nestedStackResource as CfnResource).resolve(
    (nested.nestedStackResource as CfnResource).logicalId,
  ) as string;

/**
 * The monitoring nested stack's template (alarms, alarm topic) as the parent stack sees it: each of
 * its parameters replaced by what the parent passes for it, so a function's name is again
 * `{"Ref": "<function's id>"}` and a queue's `{"Fn::GetAtt": ["<queue's id>", "QueueName"]}`, as the
 * assertions on the parent's own resources have them. Template.fromStack(stack.monitoring) is the
 * nested template itself.
 */
export const monitoringTemplate = (stack: PersonServiceStack, parent: Template): Template => {
  const nested = Template.fromStack(stack.monitoring).toJSON();
  const passed: Record<string, Json> =
    parent.toJSON().Resources[nestedStackId(stack.monitoring)].Properties.Parameters ?? {};
  const resolve = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'Ref' && value.Ref in passed) return passed[value.Ref];
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolve(inner)]));
  };
  return Template.fromJSON(
    { ...nested, Resources: resolve(nested.Resources) },
    { skipCyclicalDependenciesCheck: true },
  );
};

/** Template JSON: its shape is what the assertions check. */
// biome-ignore lint/suspicious/noExplicitAny: template JSON is checked by the assertions themselves
export type Json = any;

export type Resource = { Type: string; Properties: Json; Metadata?: Record<string, Json> } & Record<
  string,
  Json
>;

export const resourcesOf = (template: Template, type: string): Record<string, Resource> =>
  template.findResources(type) as Record<string, Resource>;

export const only = <T>(record: Record<string, T>): [string, T] => {
  const entries = Object.entries(record);
  if (entries.length !== 1) throw new Error(`Expected exactly one, found ${entries.length}`);
  return entries[0] as [string, T];
};

/** The one resource of a type whose logical id starts with `prefix` (its construct's id). */
export const onlyNamed = <T>(record: Record<string, T>, prefix: string): [string, T] =>
  only(Object.fromEntries(Object.entries(record).filter(([id]) => id.startsWith(prefix))));

/** The service's own functions (those the ServiceFunction construct made), by handler name. */
export const serviceFunctions = (template: Template): Map<string, { id: string; resource: Resource }> => {
  const functions = new Map<string, { id: string; resource: Resource }>();
  for (const [id, resource] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
    const entry = resource.Metadata?.[ENTRY_METADATA] as string | undefined;
    if (!entry) continue;
    const handler = entry.replace(/^.*\//, '').replace(/\.ts$/, '');
    if (functions.has(handler)) throw new Error(`Two functions bundle ${entry}`);
    functions.set(handler, { id, resource });
  }
  return functions;
};

/** One allowed (action, resource, condition) of a policy, with CloudFormation references made readable. */
export interface Permission {
  action: string;
  resource: string;
  condition?: Record<string, unknown>;
}

const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** `{"Fn::GetAtt": ["Table…", "Arn"]}` → `Table….Arn`; joins of those → their text. */
export const readable = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const object = value as Record<string, Json>;
  if (object['Fn::GetAtt']) return object['Fn::GetAtt'].join('.');
  if (object.Ref) return `${object.Ref}.Ref`;
  if (object['Fn::Join']) return object['Fn::Join'][1].map(readable).join(object['Fn::Join'][0]);
  return JSON.stringify(value);
};

/** The policies of the roles given (every role when none is): their own inline ones, and those attached to them. */
const policiesOf = (template: Template, roleId?: string): { PolicyDocument: Json }[] => [
  ...Object.entries(resourcesOf(template, 'AWS::IAM::Role'))
    .filter(([id]) => roleId === undefined || id === roleId)
    .flatMap(([, { Properties }]) => Properties.Policies ?? []),
  ...Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter(
      ({ Properties }) =>
        roleId === undefined || Properties.Roles.some((role: { Ref?: string }) => role.Ref === roleId),
    )
    .map(({ Properties }) => Properties),
];

/** Every statement of the stack's IAM policies, inline in a role or not. */
export const policyStatementsOf = (template: Template): Json[] =>
  policiesOf(template).flatMap(({ PolicyDocument }) => PolicyDocument.Statement);

/**
 * Every permission a role's policies grant (its own inline ones, and the policies attached to it),
 * one entry per action and resource.
 */
export const permissionsOf = (template: Template, roleId: string): Permission[] =>
  policiesOf(template, roleId)
    .flatMap(({ PolicyDocument }) => PolicyDocument.Statement)
    .flatMap((statement: Record<string, Json>) => {
      if (statement.Effect !== 'Allow') throw new Error('Only Allow statements are expected');
      return asList(statement.Action).flatMap((action: string) =>
        asList(statement.Resource).map((resource) => ({
          action,
          resource: readable(resource),
          ...(statement.Condition ? { condition: statement.Condition } : {}),
        })),
      );
    });

/** The role of a function. */
export const roleOf = (resource: Resource): string => resource.Properties.Role['Fn::GetAtt'][0];
