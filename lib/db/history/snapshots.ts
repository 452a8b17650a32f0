/** Objects as ChangeHistory entries store them, compressed: an entry must fit beside a person near the body limit. */
import { gunzipSync, gzipSync } from 'node:zlib';

export const encodeSnapshot = (object: unknown): Uint8Array => gzipSync(JSON.stringify(object));
export const decodeSnapshot = <T>(snapshot: Uint8Array | undefined): T | null =>
  snapshot ? (JSON.parse(gunzipSync(snapshot).toString('utf8')) as T) : null;
