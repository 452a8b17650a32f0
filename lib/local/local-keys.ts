/**
 * The keys `npm start` keeps in place of the stack's (lib/secrets.ts, lib/webhooks/secret-box.ts): the
 * change feed's cursor key and the key that seals webhook secrets. With a data folder, one random key
 * per file kept in that folder, made on its first start, so the cursors a consumer holds and the
 * secrets subscriptions keep stay good across restarts on the same data and no other folder's server
 * takes them; in memory, a random key for this process, since its data is gone at the stop anyway.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The files in the data folder that hold the keys. */
export const FEED_CURSOR_KEY_FILE = 'feed-cursor.key';
export const WEBHOOK_SECRET_KEY_FILE = 'webhook-secret.key';

const randomKey = () => randomBytes(32).toString('base64url');

const readKey = async (file: string): Promise<string | undefined> => {
  try {
    return (await readFile(file, 'utf8')).trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

/** The key a data folder keeps in `name` (made there the first time), or a new one without a folder. */
export const localKey = async (name: string, dataDir?: string): Promise<string> => {
  if (!dataDir) return randomKey();
  const file = join(dataDir, name);
  const kept = await readKey(file);
  if (kept) return kept;
  await mkdir(dataDir, { recursive: true });
  try {
    // Readable by its owner only; `wx`: a server starting at the same moment keeps its own, and this one reads it.
    await writeFile(file, `${randomKey()}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = await readKey(file);
  if (!key) throw new Error(`${file} holds no key: delete it, and a new one is made at the next start`);
  return key;
};
