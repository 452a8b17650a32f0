/**
 * Where webhook signing secrets are kept sealed (API.md 16: shown once, stored encrypted). Deployed,
 * AWS KMS encrypts each with the stack's key, the subscription's id as its encryption context, so a
 * sealed secret copied onto another subscription does not open, and every Decrypt is in CloudTrail.
 * Locally (`npm start`), AES-256-GCM with a key the data folder keeps (lib/local/local-keys.ts), the
 * id as its additional data. KMS's client is loaded on first use, not at import (a cold start of a
 * function that never seals does not pay for it).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { SecretBox } from '../domain/ports/subscriptions';
import { traceClient } from '../tracer';

/** The KMS key (id or ARN) that seals webhook secrets; the stack sets it. */
export const WEBHOOK_KEY_ID_ENV = 'WEBHOOK_KEY_ID';

/** The local key (base64url of 32 bytes) that seals them where no KMS key is named; `npm start` sets it. */
export const WEBHOOK_SECRET_KEY_ENV = 'WEBHOOK_SECRET_KEY';

/** The encryption context's name for the subscription a secret belongs to. */
const CONTEXT_NAME = 'subscription';

/** A sealed secret whose form or key is not this box's: it cannot be opened. */
export class SecretUnsealable extends Error {
  override name = 'SecretUnsealable';
}

/** Sealed by KMS: `k1.` and the ciphertext blob in base64. */
export const kmsSecretBox = (keyId: string, client?: KMSClient): SecretBox => {
  let kms = client;
  const sdk = async () => {
    const loaded = await import('@aws-sdk/client-kms');
    kms ??= traceClient(new loaded.KMSClient({}));
    return { kms, loaded };
  };
  return {
    async seal(secret, context) {
      const { kms, loaded } = await sdk();
      const { CiphertextBlob } = await kms.send(
        new loaded.EncryptCommand({
          KeyId: keyId,
          Plaintext: Buffer.from(secret, 'utf8'),
          EncryptionContext: { [CONTEXT_NAME]: context },
        }),
      );
      if (!CiphertextBlob) throw new SecretUnsealable('KMS answered no ciphertext');
      return `k1.${Buffer.from(CiphertextBlob).toString('base64')}`;
    },
    async open(sealed, context) {
      if (!sealed.startsWith('k1.')) throw new SecretUnsealable('Not sealed by KMS');
      const { kms, loaded } = await sdk();
      const { Plaintext } = await kms.send(
        new loaded.DecryptCommand({
          KeyId: keyId,
          CiphertextBlob: Buffer.from(sealed.slice(3), 'base64'),
          EncryptionContext: { [CONTEXT_NAME]: context },
        }),
      );
      if (!Plaintext) throw new SecretUnsealable('KMS answered no plaintext');
      return Buffer.from(Plaintext).toString('utf8');
    },
  };
};

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Sealed by a local key: `l1.`, the nonce, the ciphertext and its tag, each base64url. */
export const localSecretBox = (key: string): SecretBox => {
  const bytes = Buffer.from(key, 'base64url');
  if (bytes.length !== 32) throw new SecretUnsealable('The local sealing key must be 32 bytes of base64url');
  return {
    async seal(secret, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', bytes, iv).setAAD(Buffer.from(context, 'utf8'));
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return ['l1', iv.toString('base64url'), sealed.toString('base64url')].join('.');
    },
    async open(sealed, context) {
      const [version, iv, body] = sealed.split('.');
      if (version !== 'l1' || !iv || !body) throw new SecretUnsealable('Not sealed by a local key');
      const data = Buffer.from(body, 'base64url');
      try {
        const decipher = createDecipheriv('aes-256-gcm', bytes, Buffer.from(iv, 'base64url'))
          .setAAD(Buffer.from(context, 'utf8'))
          .setAuthTag(data.subarray(data.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(data.subarray(0, data.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch (error) {
        throw new SecretUnsealable('The secret was sealed with another key or for another subscription', {
          cause: error,
        });
      }
    },
  };
};

/**
 * The box of this container, chosen on first use (`npm start` sets its key after the functions are
 * loaded): KMS when `WEBHOOK_KEY_ID` names a key (deployed), else the local key of
 * `WEBHOOK_SECRET_KEY`, else a random key for this process (secrets then do not outlive it).
 */
export const secretBoxFromEnv = (env: NodeJS.ProcessEnv = process.env): SecretBox => {
  let box: SecretBox | undefined;
  const chosen = () => {
    const keyId = env[WEBHOOK_KEY_ID_ENV];
    box ??= keyId
      ? kmsSecretBox(keyId)
      : localSecretBox(env[WEBHOOK_SECRET_KEY_ENV] ?? randomBytes(32).toString('base64url'));
    return box;
  };
  return {
    seal: (secret, context) => chosen().seal(secret, context),
    open: (sealed, context) => chosen().open(sealed, context),
  };
};
