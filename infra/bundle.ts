// Bundles every handler in functions/ into dist/<name>/index.mjs with the settings the CDK stack
// deploys with (infra/bundling.ts), and copies the files a handler reads beside its bundle.
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { assetsOf, entryOf, esbuildOptions } from './bundling';

const bundleOne = async (handler: string) => {
  const outdir = join('dist', handler);
  await build(esbuildOptions(entryOf(handler), outdir));
  for (const { from, to } of assetsOf(handler)) {
    await mkdir(dirname(join(outdir, to)), { recursive: true });
    await copyFile(from, join(outdir, to));
  }
};

const handlers = (await readdir('functions'))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.replace(/\.ts$/, ''));
await Promise.all(handlers.map(bundleOne));
console.log(`bundled ${handlers.length} functions into dist/`);
