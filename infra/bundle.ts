// Bundles every handler in functions/ into dist/<name>/index.mjs: ESM, minified, with source maps and
// the AWS SDK bundled (it starts faster than the runtime's copy). The CDK stack will use the same options.
import { readdir } from 'node:fs/promises';
import { build } from 'esbuild';

const functions = (await readdir('functions')).filter((file) => file.endsWith('.ts'));
await Promise.all(
  functions.map((file) =>
    build({
      entryPoints: [`functions/${file}`],
      outfile: `dist/${file.replace(/\.ts$/, '')}/index.mjs`,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      minify: true,
      sourcemap: true,
      // Some bundled CommonJS dependencies call require(); give ESM output one.
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
      logLevel: 'warning',
    }),
  ),
);
console.log(`bundled ${functions.length} functions into dist/`);
