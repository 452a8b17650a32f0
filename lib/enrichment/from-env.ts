/**
 * The enrichment provider a container builds once from its environment. Deployed, the provider key
 * lives in Secrets Manager (the stack passes the secret's id, never its value, so the key is not in
 * the function's configuration; lib/secrets.ts reads it); locally and in tests, `ENRICHMENT_API_KEY`
 * holds it directly.
 */
import { logger } from '../logger';
import { cachedValue, type SecretReader, secretsManagerReader } from '../secrets';
import { traceRemoteCall } from '../tracer';
import { clearbitProvider } from './clearbit';
import type { LookupResult, PersonDataProvider } from './provider';

/** Names the Secrets Manager secret (ARN or name) whose string is the provider key; the stack sets it. */
export const ENRICHMENT_KEY_SECRET_ENV = 'ENRICHMENT_API_KEY_SECRET_ID';

/** How long a key read from Secrets Manager is used before it is read again. */
export const KEY_MAX_AGE_MS = 5 * 60_000;

/** Errors of reading the key that an operator must fix (a missing or unreadable secret, no value). */
const OPERATOR_ERRORS = new Set([
  'AccessDeniedException',
  'ResourceNotFoundException',
  'DecryptionFailure',
  'InvalidRequestException',
  'SecretUnusable',
]);

const keyUnreadable = (error: unknown): LookupResult => {
  const name = (error as Error)?.name ?? 'Error';
  const reason = `the provider key could not be read from Secrets Manager (${name})`;
  return OPERATOR_ERRORS.has(name) ? { kind: 'configuration-error', reason } : { kind: 'retry', reason };
};

/** A provider whose key comes from `apiKey()` at each lookup (cached there), built by `make`. */
const withKeyFrom = (
  apiKey: () => Promise<string>,
  make: (apiKey: string) => PersonDataProvider,
): PersonDataProvider => {
  let built: { key: string; provider: PersonDataProvider } | undefined;
  return {
    name: make('').name,
    async lookup(email) {
      let key: string;
      try {
        key = await apiKey();
      } catch (error) {
        return keyUnreadable(error);
      }
      if (built?.key !== key) built = { key, provider: make(key) };
      return built.provider.lookup(email);
    },
  };
};

/** Each lookup an X-Ray subsegment named for the provider, annotated with its result's kind. */
const traced = (provider: PersonDataProvider): PersonDataProvider => ({
  name: provider.name,
  lookup: (email) =>
    traceRemoteCall(
      provider.name,
      () => provider.lookup(email),
      (result) => result.kind,
    ),
});

/** No provider configured: every lookup is "nothing known", and the operator is told once. */
const unconfigured: PersonDataProvider = {
  name: 'none',
  lookup: async () => ({ kind: 'not-found' }),
};

export interface ProviderFromEnvOptions {
  /** Reads the secret named by `ENRICHMENT_API_KEY_SECRET_ID`; Secrets Manager by default. */
  readSecret?: SecretReader;
  keyMaxAgeMs?: number;
  now?: () => number;
}

/**
 * The provider from `ENRICHMENT_URL` and its key: from the secret named by
 * `ENRICHMENT_API_KEY_SECRET_ID` when set (read on the first lookup, not at start, so a cold start
 * never fails on it), else from `ENRICHMENT_API_KEY`. Built once per container.
 */
export const providerFromEnv = (
  env: NodeJS.ProcessEnv = process.env,
  { readSecret = secretsManagerReader(), keyMaxAgeMs = KEY_MAX_AGE_MS, now }: ProviderFromEnvOptions = {},
): PersonDataProvider => {
  if (!env.ENRICHMENT_URL) {
    logger.warn('ENRICHMENT_URL is not set: enrichment finds nothing');
    return unconfigured;
  }
  const url = env.ENRICHMENT_URL;
  const make = (apiKey: string) =>
    traced(
      clearbitProvider({
        url,
        apiKey,
        ...(env.ENRICHMENT_TIMEOUT_MS ? { timeoutMs: Number(env.ENRICHMENT_TIMEOUT_MS) } : {}),
      }),
    );
  const secretId = env[ENRICHMENT_KEY_SECRET_ENV];
  if (!secretId) return make(env.ENRICHMENT_API_KEY ?? '');
  return withKeyFrom(
    cachedValue(() => readSecret(secretId), keyMaxAgeMs, now),
    make,
  );
};
