/**
 * The stack's deploy options, read from CDK context (`cdk.json`, or `-c name=value` on the command
 * line) in one place, so the stack itself takes a typed value and tests can build it directly.
 */
import type { Node } from 'constructs';
import { IAM_ARN } from '../lib/domain/principal';
import { publicPropertiesFrom, type ReconcileProperty } from '../lib/domain/reconcile';
import { corsOriginsFrom } from '../lib/http/cors';

export interface JwtOption {
  /** The token issuer URL (`iss`), e.g. a Cognito user pool or an OIDC provider. */
  issuer: string;
  /** Accepted audiences (`aud`, or `client_id` for Cognito access tokens). */
  audience: string[];
}

export interface StackConfig {
  /** A throw-away stack: the table and logs are destroyed with it and the table is not protected. */
  devStack: boolean;
  /** Authorize with this JWT issuer instead of IAM (SigV4). */
  jwt?: JwtOption;
  /** Stage-wide request rate (requests per second, steady state) and burst. */
  throttle: { rateLimit: number; burstLimit: number };
  /** The enrichment provider's base URL; without it enrichment finds nothing. */
  enrichmentUrl?: string;
  /** Use this existing Secrets Manager secret (by name) for the provider key instead of creating one. */
  enrichmentSecretName?: string;
  /** Overrides the base of absolute URLs in responses (a custom domain in front of the API). */
  publicBaseUrl?: string;
  /** Where alarm notifications are emailed, if anywhere. */
  alarmEmail?: string;
  /**
   * Table indexes to leave out of this deploy (infra/table.ts): for an existing stack that gains more
   * than one index at once, which CloudFormation refuses in one update.
   */
  withholdIndexes: string[];
  /**
   * Origins whose browser apps may call the API (API Gateway's CORS, API.md 2.1); none (the default)
   * leaves CORS off.
   */
  corsOrigins: string[];
  /**
   * The Reconciliation API's public-read option (API.md 12): its routes, and no other, take requests
   * without credentials (OpenRefine sends none), and they show only these properties (`fullname`
   * always). Absent (the default): they are authorized like every other route.
   */
  reconcilePublic?: { properties: ReconcileProperty[] };
  /**
   * Requester binding (API.md 9.1): a write may name only the caller's own person (its principal: the
   * IAM caller's ARN, or the JWT's issuer and subject). Off by default, for GRC's clients.
   */
  requesterBinding: boolean;
  /** IAM principal ARNs that may write as any person while binding is on (importers, admin tools). */
  delegates: string[];
}

export const DEFAULT_THROTTLE = { rateLimit: 100, burstLimit: 200 };

/** Context values arrive as strings from `-c` and as JSON values from cdk.json. */
const text = (node: Node, key: string): string | undefined => {
  const value = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  return String(value);
};

const flag = (node: Node, key: string): boolean => {
  const value = text(node, key);
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new Error(`Context ${key} must be true or false, not ${value}`);
};

const positiveNumber = (node: Node, key: string, fallback: number): number => {
  const value = text(node, key);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new Error(`Context ${key} must be a positive number`);
  return number;
};

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

const optional = <K extends string>(key: K, value: string | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, string>>;

/** `reconcilePublic=true`, and what it shows: `reconcilePublicProperties` (comma-separated). */
const reconcilePublicOf = (node: Node): Pick<StackConfig, 'reconcilePublic'> => {
  const properties = text(node, 'reconcilePublicProperties');
  if (!flag(node, 'reconcilePublic')) {
    if (properties !== undefined)
      throw new Error(
        'Context reconcilePublicProperties goes with reconcilePublic=true: set both or neither',
      );
    return {};
  }
  return {
    reconcilePublic: { properties: publicPropertiesFrom(properties, 'Context reconcilePublicProperties') },
  };
};

/**
 * Reads the options: `devStack`, `jwtIssuer` with `jwtAudience` (comma-separated), `throttleRate`,
 * `throttleBurst`, `enrichmentUrl`, `enrichmentSecretName`, `publicBaseUrl`, `alarmEmail`,
 * `withholdIndexes` (comma-separated index names), `corsOrigins` (comma-separated origins),
 * `reconcilePublic` with `reconcilePublicProperties` (comma-separated property ids),
 * `requesterBinding` with `delegates` (comma-separated IAM principal ARNs).
 */
export const stackConfigFromContext = (node: Node): StackConfig => {
  const issuer = text(node, 'jwtIssuer');
  const audience = list(text(node, 'jwtAudience'));
  if (Boolean(issuer) !== audience.length > 0)
    throw new Error('Context jwtIssuer and jwtAudience go together: set both or neither');
  return {
    devStack: flag(node, 'devStack'),
    ...(issuer ? { jwt: { issuer, audience } } : {}),
    throttle: {
      rateLimit: positiveNumber(node, 'throttleRate', DEFAULT_THROTTLE.rateLimit),
      burstLimit: positiveNumber(node, 'throttleBurst', DEFAULT_THROTTLE.burstLimit),
    },
    ...optional('enrichmentUrl', text(node, 'enrichmentUrl')),
    ...optional('enrichmentSecretName', text(node, 'enrichmentSecretName')),
    ...optional('publicBaseUrl', text(node, 'publicBaseUrl')),
    ...optional('alarmEmail', text(node, 'alarmEmail')),
    withholdIndexes: list(text(node, 'withholdIndexes')),
    corsOrigins: corsOriginsFrom(text(node, 'corsOrigins'), 'Context corsOrigins'),
    ...reconcilePublicOf(node),
    ...bindingOf(node),
  };
};

/** `requesterBinding` and its `delegates`, which mean nothing without it. */
const bindingOf = (node: Node): Pick<StackConfig, 'requesterBinding' | 'delegates'> => {
  const requesterBinding = flag(node, 'requesterBinding');
  const delegates = list(text(node, 'delegates'));
  if (delegates.length > 0 && !requesterBinding)
    throw new Error('Context delegates needs requesterBinding=true: without binding anyone writes as anyone');
  const notArn = delegates.filter((arn) => !IAM_ARN.test(arn));
  if (notArn.length > 0)
    throw new Error(`Context delegates holds what is not an IAM ARN: ${notArn.join(', ')}`);
  return { requesterBinding, delegates };
};
