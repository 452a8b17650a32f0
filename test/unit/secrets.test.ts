/**
 * The change feed's cursor key as a container finds it (lib/secrets.ts): deployed, the stack's secret,
 * read on the first request and not before (a cold start does not wait for it), then kept; locally,
 * `FEED_CURSOR_KEY`; without either, a random key for the process. And npm start's key
 * (lib/local/feed-cursor-key.ts): one per data folder, kept there, and a new one in memory.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_CURSOR_KEY_FILE, localKey } from '../../lib/local/local-keys';
import { FEED_CURSOR_KEY_ENV, FEED_CURSOR_SECRET_ENV, feedCursorKeyFromEnv } from '../../lib/secrets';

describe('feedCursorKeyFromEnv', () => {
  it('reads the secret on the first request, not when built, and once a container', async () => {
    const asked: string[] = [];
    const key = feedCursorKeyFromEnv(
      { [FEED_CURSOR_SECRET_ENV]: 'arn:aws:secretsmanager:eu-west-1:1:secret:feed-cursor-key' },
      {
        readSecret: async (id) => {
          asked.push(id);
          return 'the stack’s key';
        },
      },
    );
    expect(asked).toEqual([]);
    expect(await Promise.all([key(), key(), key()])).toEqual([
      'the stack’s key',
      'the stack’s key',
      'the stack’s key',
    ]);
    expect(asked).toEqual(['arn:aws:secretsmanager:eu-west-1:1:secret:feed-cursor-key']);
  });

  it('tries the secret again on the next request after a failed read', async () => {
    let reads = 0;
    const key = feedCursorKeyFromEnv(
      { [FEED_CURSOR_SECRET_ENV]: 'feed-cursor-key' },
      {
        readSecret: async () => {
          reads++;
          if (reads === 1) throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
          return 'k';
        },
      },
    );
    await expect(key()).rejects.toThrow('throttled');
    expect(await key()).toBe('k');
    expect(reads).toBe(2);
  });

  it('takes FEED_CURSOR_KEY without a secret, and else makes a random key it keeps', async () => {
    expect(await feedCursorKeyFromEnv({ [FEED_CURSOR_KEY_ENV]: 'local key' })()).toBe('local key');
    const random = feedCursorKeyFromEnv({});
    const other = feedCursorKeyFromEnv({});
    expect(await random()).toBe(await random());
    expect((await random()).length).toBeGreaterThanOrEqual(32);
    expect(await random()).not.toBe(await other());
  });
});

describe('npm start’s key', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'cursor-key-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('is made once in a data folder and kept there: the same after a restart, another in another folder', async () => {
    const folder = join(root, 'data');
    const first = await localKey(FEED_CURSOR_KEY_FILE, folder);
    expect(await localKey(FEED_CURSOR_KEY_FILE, folder)).toBe(first);
    expect((await readFile(join(folder, FEED_CURSOR_KEY_FILE), 'utf8')).trim()).toBe(first);
    expect((await stat(join(folder, FEED_CURSOR_KEY_FILE))).mode & 0o077).toBe(0);
    expect(await localKey(FEED_CURSOR_KEY_FILE, join(root, 'other'))).not.toBe(first);
  });

  it('is a new random key at each start in memory', async () => {
    const [one, two] = [await localKey(FEED_CURSOR_KEY_FILE), await localKey(FEED_CURSOR_KEY_FILE)];
    expect(one).not.toBe(two);
    expect(one.length).toBeGreaterThanOrEqual(32);
  });
});
