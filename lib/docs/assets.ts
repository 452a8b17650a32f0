/**
 * Reads the Swagger UI files the docs page serves. Locally (`npm start`, tests) they come from
 * node_modules; a bundled function has no node_modules, so its build copies them into a
 * `swagger-ui-dist/` folder beside the bundle, which is looked up when the package cannot be resolved.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SwaggerUiFile } from './docs-page';

export interface AssetSource {
  read(name: SwaggerUiFile): Promise<Uint8Array>;
}

/** The folder holding `swagger-ui-dist`'s files: the installed package, else the bundle's copy. */
export const swaggerUiDir = (): string => {
  try {
    return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch {
    return fileURLToPath(new URL('./swagger-ui-dist/', import.meta.url));
  }
};

/**
 * The files of one folder, each read on first use and kept for the container's life: they never
 * change while it runs.
 */
export const folderAssets = (dir: () => string = swaggerUiDir): AssetSource => {
  const cache = new Map<string, Promise<Uint8Array>>();
  return {
    read(name) {
      let content = cache.get(name);
      if (!content) {
        content = readFile(join(dir(), name));
        // A failed read is not kept: the next request tries again.
        content.catch(() => cache.delete(name));
        cache.set(name, content);
      }
      return content;
    },
  };
};
