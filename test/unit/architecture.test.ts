/**
 * The layering of lib/ that STYLE.md describes, read from the import statements themselves: each
 * concern has one home, so a module's imports say which layer it is in. A new import that breaks a
 * rule fails here before a reader (or a cold start) pays for it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from '../support/source-files';

/** `import ... from 'x'` and `export ... from 'x'`; `type` marks the ones that vanish when built. */
const IMPORT = /^(?:import|export)\s+(type\s)?[^;]*?from\s+'([^']+)';/gms;

/** A file's imports (type-only ones too, or not): project files as paths from the root, packages by name. */
const importsOf = (file: string, withTypes: boolean): string[] =>
  [...readFileSync(join(ROOT, file), 'utf8').matchAll(IMPORT)]
    .filter(([, typeOnly]) => withTypes || !typeOnly)
    .map(([, , specifier]) => {
      const target = specifier as string;
      return target.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), `${target}.ts`)) : target;
    });

/** Functions, arrows and methods of lib/db over `limit` lines: `file:line (length)`. */
const longFunctions = (limit: number): string[] =>
  sourceFiles('lib/db').flatMap((file) => {
    const source = ts.createSourceFile(
      file,
      readFileSync(join(ROOT, file), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const found: string[] = [];
    const visit = (node: ts.Node) => {
      if (
        ts.isArrowFunction(node) ||
        ts.isFunctionDeclaration(node) ||
        ts.isFunctionExpression(node) ||
        ts.isMethodDeclaration(node)
      ) {
        const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const length = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
        if (length > limit) found.push(`${file}:${first + 1} (${length})`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  });

const FILES = [...sourceFiles('lib'), ...sourceFiles('functions')];
/** What each file loads when it runs. */
const graph = new Map(FILES.map((file) => [file, importsOf(file, false)]));
/** What each file depends on, types included: a cycle here is one for a reader too. */
const typeGraph = new Map(FILES.map((file) => [file, importsOf(file, true)]));

/** Every project file and package a file loads, directly or through other project files. */
const closureOf = (file: string): Set<string> => {
  const seen = new Set<string>();
  const visit = (next: string) => {
    for (const target of graph.get(next) ?? []) {
      if (seen.has(target)) continue;
      seen.add(target);
      visit(target);
    }
  };
  visit(file);
  return seen;
};

const cycles = (): string[][] => {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const walk = (file: string, path: string[]) => {
    state.set(file, 'open');
    for (const target of typeGraph.get(file) ?? []) {
      if (!typeGraph.has(target)) continue;
      if (state.get(target) === 'open') found.push([...path.slice(path.indexOf(target)), target]);
      else if (!state.has(target)) walk(target, [...path, target]);
    }
    state.set(file, 'done');
  };
  for (const file of typeGraph.keys()) if (!state.has(file)) walk(file, [file]);
  return found;
};

const inLayer = (layer: string) => [...graph.keys()].filter((file) => file.startsWith(`${layer}/`));
/** Imports of `files` that `forbidden` names, type-only ones counted: a type names its module to a reader too. */
const importing = (files: string[], forbidden: (target: string) => boolean) =>
  files.flatMap((file) =>
    (typeGraph.get(file) ?? []).filter(forbidden).map((target) => `${file} -> ${target}`),
  );

const folderOf = (file: string) => dirname(file);
/** Folder -> the project folders its files import (types counted), itself left out. */
const folderGraph = (() => {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of typeGraph) {
    const from = folderOf(file);
    const to = folders.get(from) ?? new Set<string>();
    for (const target of targets)
      if (typeGraph.has(target) && folderOf(target) !== from) to.add(folderOf(target));
    folders.set(from, to);
  }
  return folders;
})();

/** The cycles between folders: a folder that reaches itself through others' imports. */
const folderCycles = (): string[] =>
  [...folderGraph.keys()].filter((start) => {
    const seen = new Set<string>();
    const stack = [...(folderGraph.get(start) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop() as string;
      if (next === start) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(folderGraph.get(next) ?? []));
    }
    return false;
  });

describe('the layers of lib/', () => {
  it('reads the imports (the check below would pass vacuously otherwise)', () => {
    expect(graph.get('functions/get-person.ts')).toContain('lib/db/from-env.ts');
    expect(graph.get('lib/db/write/send.ts')).toContain('@aws-sdk/lib-dynamodb');
  });

  it('have no import cycle, counting type-only imports', () => {
    expect(cycles()).toEqual([]);
  });

  it('have no cycle between folders, counting type-only imports', () => {
    expect(folderGraph.get('lib/db/person/read')).toContain('lib/db/person');
    expect(folderCycles()).toEqual([]);
  });

  it("keep the person wing's rooms apart: person/read and person/write import nothing of each other", () => {
    const reads = inLayer('lib/db/person/read');
    const writes = inLayer('lib/db/person/write');
    expect(reads.length * writes.length).toBeGreaterThan(0);
    expect([
      ...importing(reads, (target) => target.startsWith('lib/db/person/write/')),
      ...importing(writes, (target) => target.startsWith('lib/db/person/read/')),
    ]).toEqual([]);
  });

  it('keep the HTTP edge on ports: lib/http names nothing of lib/db, types included', () => {
    expect(importing(inLayer('lib/http'), (target) => target.startsWith('lib/db/'))).toEqual([]);
    expect(
      importing(inLayer('lib/http'), (target) => target.startsWith('lib/domain/ports/')).length,
    ).toBeGreaterThan(0);
  });

  it('keep lib/domain pure: no AWS, no storage, no HTTP', () => {
    expect(
      importing(inLayer('lib/domain'), (target) =>
        /^(@aws-sdk|@middy|lib\/(db|http|local|docs))/.test(target),
      ),
    ).toEqual([]);
  });

  it("keep the API's catalogues as data: lib/api loads no package and names only lib/domain and itself", () => {
    expect(importing(inLayer('lib/api'), (target) => !/^lib\/(api|domain)\//.test(target))).toEqual([]);
    const named = inLayer('lib/api').flatMap((file) =>
      (typeGraph.get(file) ?? [])
        .filter((target) => target.startsWith('lib/') && !/^lib\/(api|domain)\//.test(target))
        .map((target) => `${file} -> ${target}`),
    );
    expect(named).toEqual([]);
  });

  it('keep the documents apart from the HTTP edge: lib/docs names nothing of lib/http, types included', () => {
    const named = inLayer('lib/docs').flatMap((file) =>
      (typeGraph.get(file) ?? [])
        .filter((target) => target.startsWith('lib/http/'))
        .map((target) => `${file} -> ${target}`),
    );
    expect(named).toEqual([]);
  });

  it('keep the command-line tools on the HTTP API: lib/cli imports nothing of lib/db, lib/http, lib/local or functions', () => {
    expect(inLayer('lib/cli').length).toBeGreaterThan(0);
    expect(
      importing(inLayer('lib/cli'), (target) =>
        /^(lib\/(db|http|local|docs|enrichment)\/|functions\/)/.test(target),
      ),
    ).toEqual([]);
  });

  it('keep storage below the HTTP edge: lib/db imports nothing of lib/http, lib/docs or lib/local', () => {
    expect(importing(inLayer('lib/db'), (target) => /^lib\/(http|docs|local)\//.test(target))).toEqual([]);
  });

  it('keep the timeouts out of the storage module: the edge, enrichment, local and infra take them from lib/timeouts', () => {
    const users = [...inLayer('lib/http'), ...inLayer('lib/enrichment'), ...inLayer('lib/local')];
    expect(importing(users, (target) => target === 'lib/db/write/send.ts')).toEqual([]);
    expect(importing(['lib/timeouts.ts'], () => true)).toEqual([]);
  });

  it('build the self-description from schemas, never from handlers or storage (no AWS SDK in their bundles)', () => {
    expect(
      importing(inLayer('lib/docs'), (target) => /^lib\/(db|local)\/|-handlers?\.ts$/.test(target)),
    ).toEqual([]);
    const documents = [
      'get-openapi',
      'get-person-schema',
      'get-context',
      'get-docs',
      'get-problem',
      'route-not-found',
    ];
    for (const name of documents) {
      const loaded = [...closureOf(`functions/${name}.ts`)];
      expect({ name, heavy: loaded.filter((target) => /^@aws-sdk|^lib\/db\//.test(target)) }).toEqual({
        name,
        heavy: [],
      });
    }
  });

  it('keep functions/ to wiring: each handler body lives in lib/http', () => {
    for (const file of [...graph.keys()].filter((name) => name.startsWith('functions/'))) {
      const source = readFileSync(join(ROOT, file), 'utf8');
      expect({ file, body: /\.handler\(|readHandler|writeHandler/.test(source) }).toEqual({
        file,
        body: false,
      });
    }
  });
  it('name the parts of lib/db: no function, arrow or method there is over 60 lines (issue #54 step 2)', () => {
    expect(longFunctions(60)).toEqual([]);
  });
});
