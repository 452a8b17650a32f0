/**
 * How every Lambda bundle is built, in one place: `npm run build` (infra/bundle.ts) and the stack's
 * `NodejsFunction`s (infra/service-function.ts) both read these settings, so what is tested locally
 * from `dist/` and what is deployed are built alike. Nothing here imports the CDK: the build script
 * stays a plain esbuild run.
 */
import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { SWAGGER_UI_FILES } from '../lib/docs/docs-page';

/** The Node.js major version Lambda runs (`nodejs24.x`); bundles are compiled for it. */
export const LAMBDA_NODE_MAJOR = 24;

/** The esbuild settings every bundle shares. */
export const BUNDLE_SETTINGS = {
  platform: 'node',
  target: `node${LAMBDA_NODE_MAJOR}`,
  /** ESM: top-level await works, and Lambda loads `index.mjs` as a module. */
  format: 'esm',
  /**
   * White space and syntax minified, identifiers kept: a stack trace in the logs names the real
   * functions (`sendWrite`, `applyPatch`) without `--enable-source-maps`, which cost every cold start
   * about 20 ms (parsing a 2 MB map: `npm run bench -- --only cold` measures it). Kept names cost the
   * import nothing measurable (create-person: 128 ms either way, medians of 21).
   */
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: false,
  /** The map ships beside the bundle, for turning a logged position into a TypeScript line offline. */
  sourcemap: true,
  /**
   * ESM entry points first: the AWS SDK and Powertools ship ES modules that esbuild can tree-shake,
   * which keeps a bundle with the whole SDK client in it under 1 MiB (CommonJS first is ~20% larger).
   */
  mainFields: ['module', 'main'],
  /**
   * Nothing is external: the AWS SDK is bundled, not left to the runtime's copy, because a bundled
   * client starts faster (no module resolution across node_modules) and its version is the one tested.
   */
  external: [] as string[],
  /**
   * Some bundled CommonJS dependencies call `require()`; ESM output has none, so give it one. The import
   * is renamed: with identifiers kept, a bundled module's own `createRequire` would clash with it.
   */
  banner:
    "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
  logLevel: 'warning',
} as const;

/** The Powertools service name every function logs under (lib/logger.ts reads it). */
export const SERVICE_NAME = 'person-service';

/**
 * The environment every function starts with (the stack's, and the benchmark's cold starts). No
 * `NODE_OPTIONS=--enable-source-maps`: see `minifyIdentifiers` above.
 */
export const FUNCTION_ENVIRONMENT = {
  POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
  POWERTOOLS_LOG_LEVEL: 'INFO',
  /**
   * No return value in a trace: a Person answer holds names and emails. lib/http/tracing.ts and
   * lib/tracer.ts already pass `captureResponse: false`; this covers any method traced later.
   */
  POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
} as const;

/** Where a bundle's entry file and its bundle live: `index.mjs`, as Lambda's `index.handler` expects. */
export const BUNDLE_FILE = 'index.mjs';

/** A file copied beside a bundle, relative to the project root and to the bundle's folder. */
export interface BundleAsset {
  from: string;
  to: string;
}

/**
 * Files a handler reads at run time besides its bundle. The docs page serves Swagger UI's files,
 * which lib/docs/assets.ts looks up in `swagger-ui-dist/` beside the bundle when there is no
 * node_modules (as in Lambda).
 */
export const BUNDLE_ASSETS: Readonly<Record<string, readonly BundleAsset[]>> = {
  'get-docs': Object.keys(SWAGGER_UI_FILES).map((file) => ({
    from: `node_modules/swagger-ui-dist/${file}`,
    to: `swagger-ui-dist/${file}`,
  })),
};

/** The assets of one handler (none for most). */
export const assetsOf = (handler: string): readonly BundleAsset[] => BUNDLE_ASSETS[handler] ?? [];

/** The entry of a handler module: `functions/<handler>.ts`. */
export const entryOf = (handler: string) => `functions/${handler}.ts`;

/** The esbuild options of one bundle, as `npm run build` runs them: `<outdir>/index.mjs`. */
export const esbuildOptions = (entry: string, outdir: string): BuildOptions => ({
  ...BUNDLE_SETTINGS,
  mainFields: [...BUNDLE_SETTINGS.mainFields],
  external: [...BUNDLE_SETTINGS.external],
  banner: { js: BUNDLE_SETTINGS.banner },
  entryPoints: [entry],
  outfile: join(outdir, BUNDLE_FILE),
  bundle: true,
});
