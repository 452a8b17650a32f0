/** The provider key, from the environment locally and from Secrets Manager when deployed. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENRICHMENT_KEY_SECRET_ENV, providerFromEnv } from '../../../lib/enrichment/from-env';
import { SecretUnusable, secretsManagerReader } from '../../../lib/secrets';

/** A provider stand-in on 127.0.0.1 that records the bearer key of each lookup and knows nobody. */
let server: Server;
let url: string;
const keysSeen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    keysSeen.push(request.headers.authorization ?? '');
    response.writeHead(404).end();
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((closed) => server.close(closed)));

const lookupKeys = async (provider: ReturnType<typeof providerFromEnv>, times: number) => {
  keysSeen.length = 0;
  for (let n = 0; n < times; n++)
    expect(await provider.lookup('ada@example.org')).toEqual({ kind: 'not-found' });
  return [...keysSeen];
};

const awsError = (name: string) => Object.assign(new Error(name), { name });

describe('providerFromEnv', () => {
  it('finds nothing without ENRICHMENT_URL', async () => {
    const provider = providerFromEnv({});
    expect(provider.name).toBe('none');
    expect(await provider.lookup('ada@example.org')).toEqual({ kind: 'not-found' });
  });

  it('uses ENRICHMENT_API_KEY when no secret is named', async () => {
    const provider = providerFromEnv({ ENRICHMENT_URL: url, ENRICHMENT_API_KEY: 'local-key' });
    expect(provider.name).toBe('clearbit');
    expect(await lookupKeys(provider, 1)).toEqual(['Bearer local-key']);
  });

  it('reads the key from the named secret once, and uses it across lookups', async () => {
    const reads: string[] = [];
    const provider = providerFromEnv(
      { ENRICHMENT_URL: url, ENRICHMENT_API_KEY: 'ignored', [ENRICHMENT_KEY_SECRET_ENV]: 'arn:secret:key' },
      {
        readSecret: async (id) => {
          reads.push(id);
          return 'secret-key';
        },
      },
    );
    expect(reads).toEqual([]); // not at start: a cold start never waits on, or fails on, the secret
    expect(await lookupKeys(provider, 3)).toEqual(Array(3).fill('Bearer secret-key'));
    expect(reads).toEqual(['arn:secret:key']);
  });

  it('reads the secret again once the cached key is older than its maximum age', async () => {
    let now = 0;
    let version = 1;
    const provider = providerFromEnv(
      { ENRICHMENT_URL: url, [ENRICHMENT_KEY_SECRET_ENV]: 'key' },
      { readSecret: async () => `key-${version}`, keyMaxAgeMs: 1_000, now: () => now },
    );
    expect(await lookupKeys(provider, 1)).toEqual(['Bearer key-1']);
    version = 2;
    now = 999;
    expect(await lookupKeys(provider, 1)).toEqual(['Bearer key-1']);
    now = 1_000;
    expect(await lookupKeys(provider, 1)).toEqual(['Bearer key-2']);
  });

  it('answers a configuration error when the secret cannot be read for good, and retries otherwise', async () => {
    const failures = [awsError('AccessDeniedException'), awsError('ThrottlingException')];
    let reads = 0;
    const provider = providerFromEnv(
      { ENRICHMENT_URL: url, [ENRICHMENT_KEY_SECRET_ENV]: 'key' },
      {
        readSecret: async () => {
          const failure = failures[reads++];
          if (failure) throw failure;
          return 'finally';
        },
      },
    );
    expect(await provider.lookup('ada@example.org')).toMatchObject({
      kind: 'configuration-error',
      reason: expect.stringContaining('AccessDeniedException'),
    });
    expect(await provider.lookup('ada@example.org')).toMatchObject({
      kind: 'retry',
      reason: expect.stringContaining('ThrottlingException'),
    });
    // A failed read is not kept: the next lookup reads again and succeeds.
    expect(await lookupKeys(provider, 1)).toEqual(['Bearer finally']);
    expect(reads).toBe(3);
  });
});

describe('secretsManagerReader', () => {
  const clientAnswering = (answer: { SecretString?: string }) => {
    const requests: unknown[] = [];
    const client = {
      send: async (command: { input: unknown }) => {
        requests.push(command.input);
        return answer;
      },
    } as unknown as SecretsManagerClient;
    return { client, requests };
  };

  it('asks for the secret by its id and returns its trimmed string', async () => {
    const { client, requests } = clientAnswering({ SecretString: '  the-key\n' });
    expect(await secretsManagerReader(client)('arn:secret:key')).toBe('the-key');
    expect(requests).toEqual([{ SecretId: 'arn:secret:key' }]);
  });

  it('refuses a secret with no string value', async () => {
    const { client } = clientAnswering({ SecretString: '   ' });
    await expect(secretsManagerReader(client)('key')).rejects.toBeInstanceOf(SecretUnusable);
  });
});
