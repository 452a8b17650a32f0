/** The repository's TypeScript sources, for the tests that read the code itself (layering, key prefixes). */
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** The repository's root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/** Every .ts file below `folder` (from the root), as paths from the root, sorted. */
export const sourceFiles = (folder: string): string[] =>
  readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
