/**
 * The secrets a container reads, and the change feed's cursor key among them. Deployed, a secret lives
 * in Secrets Manager and the stack passes its id, never its value, so it is not in the function's
 * configuration; it is read on the first request that needs it, never at import (a cold start does
 * not wait for it, nor fails on it), and kept.
 */
import { randomBytes } from 'node:crypto';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { FeedCursorKey } from './domain/feed';
import { traceClient } from './tracer';

/** Reads the current string value of a secret. */
export type SecretReader = (secretId: string) => Promise<string>;

/** The secret holds no usable value: retrying will not help until an operator sets one. */
export class SecretUnusable extends Error {
  override name = 'SecretUnusable';
}

/**
 * Reads secrets with one Secrets Manager client, created on first use so a container that never
 * reads a secret never builds one, nor loads the client's code (imported then, not with the module).
 */
export const secretsManagerReader = (client?: SecretsManagerClient): SecretReader => {
  let secrets = client;
  return async (secretId) => {
    const sdk = await import('@aws-sdk/client-secrets-manager');
    secrets ??= traceClient(new sdk.SecretsManagerClient({}));
    const { SecretString } = await secrets.send(new sdk.GetSecretValueCommand({ SecretId: secretId }));
    const value = SecretString?.trim();
    if (!value) throw new SecretUnusable(`The secret ${secretId} holds no string value`);
    return value;
  };
};

/**
 * A value read on first use and kept for `maxAgeMs`, so a container asks once, not per request, yet a
 * value replaced in the secret takes effect without a deploy. A failed read is not kept: the next
 * call tries again.
 */
export const cachedValue = <T = string>(
  read: () => Promise<T>,
  maxAgeMs: number,
  now: () => number = Date.now,
): (() => Promise<T>) => {
  let cached: { value: Promise<T>; readAt: number } | undefined;
  return () => {
    if (!cached || now() - cached.readAt >= maxAgeMs) {
      const value = read();
      const entry = { value, readAt: now() };
      cached = entry;
      value.catch(() => {
        if (cached === entry) cached = undefined;
      });
    }
    return cached.value;
  };
};

/** Names the Secrets Manager secret (ARN or name) whose string is the feed's cursor key; the stack sets it. */
export const FEED_CURSOR_SECRET_ENV = 'FEED_CURSOR_SECRET_ID';

/** The feed's cursor key itself, where no secret holds it: `npm start` sets it (lib/local/feed-cursor-key.ts). */
export const FEED_CURSOR_KEY_ENV = 'FEED_CURSOR_KEY';

/**
 * The change feed's cursor key (lib/domain/feed.ts): from the secret named by `FEED_CURSOR_SECRET_ID`
 * when set, read on the first request and kept for the container's life (a changed key would refuse
 * every cursor already handed out, so it is not re-read); else `FEED_CURSOR_KEY`; else a random key
 * for this process, so a cursor is never forgeable, only not good past a restart.
 */
export const feedCursorKeyFromEnv = (
  env: NodeJS.ProcessEnv = process.env,
  { readSecret = secretsManagerReader() }: { readSecret?: SecretReader } = {},
): (() => Promise<FeedCursorKey>) => {
  let fromSecret: (() => Promise<string>) | undefined;
  let random: string | undefined;
  return async () => {
    const secretId = env[FEED_CURSOR_SECRET_ENV];
    if (secretId) {
      fromSecret ??= cachedValue(() => readSecret(secretId), Number.POSITIVE_INFINITY);
      return fromSecret();
    }
    const key = env[FEED_CURSOR_KEY_ENV];
    if (key) return key;
    random ??= randomBytes(32).toString('base64url');
    return random;
  };
};
