/**
 * The bundles the stack deploys, built for real: the stack is synthesized with bundling on, so every
 * function goes through its `NodejsFunction` with the stack's own esbuild settings (about a minute
 * for all of them), and the tests read what lands in the cloud assembly.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Template } from 'aws-cdk-lib/assertions';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_FILE, BUNDLE_SETTINGS, entryOf, esbuildOptions } from '../../infra/bundling';
import { ENTRY_METADATA, PROJECT_ROOT } from '../../infra/service-function';
import { BUS_SUBSCRIPTIONS } from '../../lib/api/bus-subscriptions';
import { FALLBACK_HANDLER, ROUTES } from '../../lib/api/routes';
import { STREAM_SUBSCRIPTIONS } from '../../lib/db/table/stream-subscriptions';
import { SWAGGER_UI_FILES } from '../../lib/docs/docs-page';
import { DELIVER_HANDLER } from '../../lib/webhooks/lane-invoker';
import { bundleFunctions } from '../support/bundles';
import { serviceFunctions, synthesize } from './support';

/**
 * 1.25 MiB: the largest bundle was 947 KiB before the X-Ray tracer (issue #42), which adds 176 to 189 KiB
 * to each (aws-xray-sdk-core is CommonJS, so esbuild keeps it whole, its unused SDK v2 patcher and
 * `semver` too). What a bundle costs is its cold start, which the bench measures and checks
 * (docs/performance.md); this bound only catches a bundle that doubles by accident.
 */
const MAX_BUNDLE_BYTES = 1.25 * 1024 * 1024;

/** A static import statement of minified ESM: `import{a as b}from"node:fs"`, `import"x"`. */
const STATIC_IMPORT = /(?:^|[;}\n])\s*import\s*(?:[\w$*{}\s,]+?from\s*)?["']([^"']+)["']/g;

let outdir: string;
let template: Template;
/** Handler name → the folder its bundle was staged in. */
const bundles = new Map<string, string>();
const entries = new Map<string, string>();

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'person-service-assembly-'));
  ({ template } = synthesize({ bundle: true, outdir }));
  for (const [handler, { resource }] of serviceFunctions(template)) {
    const hash = (resource.Properties.Code.S3Key as string).replace(/\.zip$/, '');
    bundles.set(handler, join(outdir, `asset.${hash}`));
    entries.set(handler, resource.Metadata?.[ENTRY_METADATA] as string);
  }
}, 300_000);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

/** Where two texts first differ, with some context, or undefined when they are equal. */
const firstDifference = (a: string, b: string) => {
  if (a === b) return undefined;
  let at = 0;
  while (a[at] === b[at]) at++;
  return { at, a: a.slice(Math.max(0, at - 60), at + 60), b: b.slice(Math.max(0, at - 60), at + 60) };
};

const bundleOf = (handler: string) => join(bundles.get(handler) as string, BUNDLE_FILE);
const sourcesOf = (handler: string): string[] => {
  const map = JSON.parse(readFileSync(`${bundleOf(handler)}.map`, 'utf8')) as { sources: string[] };
  return map.sources.map((source) => resolve(bundles.get(handler) as string, source));
};

describe('function bundles', () => {
  it('are each below 1.25 MiB', () => {
    const sizes = [...bundles.keys()].sort().map((handler) => ({
      handler,
      bytes: statSync(bundleOf(handler)).size,
    }));
    console.log(
      `bundle sizes (limit ${MAX_BUNDLE_BYTES} bytes):\n${sizes
        .map(({ handler, bytes }) => `  ${handler.padEnd(22)} ${(bytes / 1024).toFixed(1).padStart(7)} KiB`)
        .join('\n')}`,
    );
    expect(sizes.map(({ handler }) => handler)).toEqual(
      [...new Set([...ROUTES.map((route) => route.handler), FALLBACK_HANDLER])]
        .concat(
          STREAM_SUBSCRIPTIONS.map(({ handler }) => handler),
          BUS_SUBSCRIPTIONS.map(({ handler }) => handler),
          DELIVER_HANDLER,
          'seed-reference-data',
          'backfill-postings',
        )
        .sort(),
    );
    expect(sizes.filter(({ bytes }) => bytes > MAX_BUNDLE_BYTES)).toEqual([]);
  });

  it('are each built from their own handler module and no other', () => {
    const handlerModule = /[/\\](functions|infra[/\\]handlers)[/\\][^/\\]+\.ts$/;
    for (const [handler, entry] of entries) {
      expect({ handler, modules: sourcesOf(handler).filter((source) => handlerModule.test(source)) }).toEqual(
        {
          handler,
          modules: [join(PROJECT_ROOT, entry)],
        },
      );
    }
  });

  it('carry the AWS SDK inside, importing nothing but Node built-ins', () => {
    expect(sourcesOf('get-person').some((source) => source.includes('/@aws-sdk/client-dynamodb/'))).toBe(
      true,
    );
    expect(
      sourcesOf('enrich-person').some((source) => source.includes('/@aws-sdk/client-secrets-manager/')),
    ).toBe(true);
    for (const handler of bundles.keys()) {
      const imported = [...readFileSync(bundleOf(handler), 'utf8').matchAll(STATIC_IMPORT)].map(
        ([, specifier]) => specifier as string,
      );
      expect({ handler, external: imported.filter((specifier) => !specifier.startsWith('node:')) }).toEqual({
        handler,
        external: [],
      });
    }
  });

  it('are ES modules, white space minified, with a source map beside them and the require shim', () => {
    for (const handler of bundles.keys()) {
      const code = readFileSync(bundleOf(handler), 'utf8');
      expect(code.startsWith(BUNDLE_SETTINGS.banner)).toBe(true);
      expect(code.trimEnd().endsWith(`//# sourceMappingURL=${BUNDLE_FILE}.map`)).toBe(true);
      expect(code).toMatch(/\bexport\s*\{[^}]*\bhandler\b/);
    }
    // White space minified (a few long lines), names kept: a stack trace names the real functions.
    const code = readFileSync(bundleOf('get-person'), 'utf8');
    expect(code.length / code.split('\n').length).toBeGreaterThan(2_000);
    expect(code).toContain('personRepositoryFromEnv');
    expect(code).toMatch(/\bgetPersonHandler\b/);
  });

  it('are byte for byte what `npm run build` builds, from the one set of esbuild settings', async () => {
    const localOut = mkdtempSync(join(tmpdir(), 'person-service-build-'));
    try {
      for (const handler of ['get-person', 'enrich-person']) {
        const out = join(localOut, handler);
        await build(esbuildOptions(join(PROJECT_ROOT, entryOf(handler)), out));
        const local = readFileSync(join(out, BUNDLE_FILE), 'utf8');
        const deployed = readFileSync(bundleOf(handler), 'utf8');
        expect({ handler, difference: firstDifference(local, deployed) }).toEqual({
          handler,
          difference: undefined,
        });
      }
    } finally {
      rmSync(localOut, { recursive: true, force: true });
    }
  });

  it('are byte for byte what one esbuild run of several functions builds, as the bench bundles them', async () => {
    const together = mkdtempSync(join(tmpdir(), 'person-service-together-'));
    try {
      const handlers = ['get-person', 'enrich-person', 'get-docs'];
      await bundleFunctions(handlers, together, PROJECT_ROOT);
      for (const handler of handlers) {
        const local = readFileSync(join(together, handler, BUNDLE_FILE), 'utf8');
        const deployed = readFileSync(bundleOf(handler), 'utf8');
        expect({ handler, difference: firstDifference(local, deployed) }).toEqual({
          handler,
          difference: undefined,
        });
        expect(readdirSync(join(together, handler)).sort(), handler).toEqual(
          readdirSync(bundles.get(handler) as string).sort(),
        );
      }
    } finally {
      rmSync(together, { recursive: true, force: true });
    }
  });

  it('load on this Node.js and export a handler function', async () => {
    const script = `
      const results = {};
      for (const [handler, file] of JSON.parse(process.argv[1])) {
        try { results[handler] = typeof (await import(file)).handler; }
        catch (error) { results[handler] = String(error); }
      }
      console.log(JSON.stringify(results));`;
    const files = [...bundles.keys()].map((handler) => [handler, pathToFileURL(bundleOf(handler)).href]);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script, JSON.stringify(files)],
      {
        env: {
          PATH: process.env.PATH,
          TABLE_NAME: 'bundle-test',
          AWS_REGION: 'us-east-1',
          POWERTOOLS_LOG_LEVEL: 'SILENT',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
      },
    );
    const results = JSON.parse(stdout) as Record<string, string>;
    expect(results).toEqual(Object.fromEntries([...bundles.keys()].map((handler) => [handler, 'function'])));
  }, 60_000);

  it('ship the Swagger UI files beside the docs bundle, where the docs handler looks for them', () => {
    const dir = join(bundles.get('get-docs') as string, 'swagger-ui-dist');
    expect(readdirSync(dir).sort()).toEqual(Object.keys(SWAGGER_UI_FILES).sort());
    for (const file of Object.keys(SWAGGER_UI_FILES))
      expect(
        readFileSync(join(dir, file)).equals(
          readFileSync(join(PROJECT_ROOT, 'node_modules/swagger-ui-dist', file)),
        ),
      ).toBe(true);
    expect(readdirSync(bundles.get('get-person') as string).sort()).toEqual([
      BUNDLE_FILE,
      `${BUNDLE_FILE}.map`,
    ]);
  });
});
