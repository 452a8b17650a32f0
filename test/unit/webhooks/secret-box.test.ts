import { randomBytes } from 'node:crypto';
import { type DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import {
  kmsSecretBox,
  localSecretBox,
  SecretUnsealable,
  secretBoxFromEnv,
  WEBHOOK_KEY_ID_ENV,
  WEBHOOK_SECRET_KEY_ENV,
} from '../../../lib/webhooks/secret-box';

const key = () => randomBytes(32).toString('base64url');
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+1Zs2Xy1c8o=';

describe('the local box (npm start)', () => {
  it('seals a secret so that it is not in the sealed text, and opens it for its subscription', async () => {
    const box = localSecretBox(key());
    const sealed = await box.seal(SECRET, 'sub-1');
    expect(sealed).toMatch(/^l1\./);
    expect(sealed).not.toContain(SECRET.slice(6, 20));
    expect(await box.open(sealed, 'sub-1')).toBe(SECRET);
    expect(await box.seal(SECRET, 'sub-1')).not.toBe(sealed);
  });

  it('does not open a secret for another subscription, with another key, or changed', async () => {
    const box = localSecretBox(key());
    const sealed = await box.seal(SECRET, 'sub-1');
    await expect(box.open(sealed, 'sub-2')).rejects.toThrow(SecretUnsealable);
    await expect(localSecretBox(key()).open(sealed, 'sub-1')).rejects.toThrow(SecretUnsealable);
    const [version, iv, body] = sealed.split('.');
    const flipped = Buffer.from(body ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    await expect(box.open([version, iv, flipped.toString('base64url')].join('.'), 'sub-1')).rejects.toThrow(
      SecretUnsealable,
    );
    await expect(box.open('k1.AAAA', 'sub-1')).rejects.toThrow(SecretUnsealable);
  });

  it('wants a key of 32 bytes', () => {
    expect(() => localSecretBox(randomBytes(16).toString('base64url'))).toThrow(SecretUnsealable);
  });
});

describe('the KMS box (deployed)', () => {
  /**
   * KMS itself is not reachable here: a client that answers as KMS does (the ciphertext its own, bound
   * to the encryption context) shows what the box sends and reads back.
   */
  const fakeKms = () => {
    const sent: (EncryptCommand | DecryptCommand)[] = [];
    const client = {
      send: async (command: EncryptCommand | DecryptCommand) => {
        sent.push(command);
        if (command instanceof EncryptCommand) {
          const { Plaintext, EncryptionContext } = command.input;
          return {
            CiphertextBlob: Buffer.from(
              JSON.stringify([Buffer.from(Plaintext ?? []).toString(), EncryptionContext]),
            ),
          };
        }
        const [plain, context] = JSON.parse(Buffer.from(command.input.CiphertextBlob ?? []).toString());
        if (JSON.stringify(context) !== JSON.stringify(command.input.EncryptionContext))
          throw new Error('InvalidCiphertextException');
        return { Plaintext: Buffer.from(plain) };
      },
    } as unknown as KMSClient;
    return { client, sent };
  };

  it('encrypts with the key and the subscription as encryption context, and decrypts with both', async () => {
    const { client, sent } = fakeKms();
    const box = kmsSecretBox('arn:aws:kms:eu-west-1:123456789012:key/abc', client);
    const sealed = await box.seal(SECRET, 'sub-1');
    expect(sealed).toMatch(/^k1\./);
    expect(await box.open(sealed, 'sub-1')).toBe(SECRET);
    expect(sent.map((command) => command.input)).toEqual([
      expect.objectContaining({
        KeyId: 'arn:aws:kms:eu-west-1:123456789012:key/abc',
        EncryptionContext: { subscription: 'sub-1' },
      }),
      expect.objectContaining({
        KeyId: 'arn:aws:kms:eu-west-1:123456789012:key/abc',
        EncryptionContext: { subscription: 'sub-1' },
      }),
    ]);
    await expect(box.open(sealed, 'sub-2')).rejects.toThrow();
    await expect(box.open('l1.a.b', 'sub-1')).rejects.toThrow(SecretUnsealable);
  });
});

describe('the box of a container', () => {
  it('is the local key of WEBHOOK_SECRET_KEY, read on first use', async () => {
    const env: NodeJS.ProcessEnv = {};
    const box = secretBoxFromEnv(env);
    env[WEBHOOK_SECRET_KEY_ENV] = key();
    const sealed = await box.seal(SECRET, 'sub-1');
    expect(await localSecretBox(env[WEBHOOK_SECRET_KEY_ENV] ?? '').open(sealed, 'sub-1')).toBe(SECRET);
  });

  it('is KMS when WEBHOOK_KEY_ID names a key', async () => {
    const box = secretBoxFromEnv({ [WEBHOOK_KEY_ID_ENV]: 'alias/none', [WEBHOOK_SECRET_KEY_ENV]: key() });
    // A local sealing would open; KMS refuses a secret it did not seal before it calls anyone.
    await expect(box.open('l1.a.b', 'sub-1')).rejects.toThrow('Not sealed by KMS');
  });
});
