/**
 * The Layout table (docs/layout.md) names every folder and module a newcomer meets, and nothing that is
 * gone; the README and the docs pages name no file that is not in the repository.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const LAYOUT = 'docs/layout.md';
const layout = readFileSync(join(ROOT, LAYOUT), 'utf8');

/** The table's rows: the path in the first column, the text of the second. */
const rows = [...layout.matchAll(/^\| `([^`]+)` \| (.+) \|$/gm)].map(([, path, text]) => ({
  path: path as string,
  text: text as string,
}));

const entriesOf = (folder: string) =>
  readdirSync(join(ROOT, folder), { withFileTypes: true }).map((entry) =>
    entry.isDirectory() ? `${folder}/${entry.name}/` : `${folder}/${entry.name}`,
  );

describe(`the Layout table (${LAYOUT})`, () => {
  it('is the page the README sends a newcomer to for the layout', () => {
    expect(layout.split('\n')[0]).toBe('# Layout');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`](${LAYOUT})`);
  });

  it('has rows (the checks below would pass vacuously otherwise)', () => {
    expect(rows.length).toBeGreaterThan(5);
  });

  it('names only paths that exist', () => {
    expect(rows.map(({ path }) => path).filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('names every folder and module of lib/, and the source folders', () => {
    const listed = new Set(rows.map(({ path }) => path));
    const expected = [...entriesOf('lib'), 'functions/', 'infra/', 'events/', 'test/'];
    expect(expected.filter((path) => !listed.has(path))).toEqual([]);
  });

  it('names every folder below lib/ too: the rooms of the code as the tree has them', () => {
    const listed = new Set(rows.map(({ path }) => path));
    const folders = readdirSync(join(ROOT, 'lib'), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${relative(ROOT, join(entry.parentPath, entry.name))}/`);
    expect(folders).toContain('lib/db/person/write/');
    expect(folders.filter((path) => !listed.has(path))).toEqual([]);
  });

  it('says what each folder of test/ holds', () => {
    const testRow = rows.find(({ path }) => path === 'test/')?.text ?? '';
    const folders = entriesOf('test').filter((path) => path.endsWith('/'));
    expect(folders.filter((path) => !testRow.includes(`\`${path.slice('test/'.length)}\``))).toEqual([]);
  });
});

describe('the README and the docs pages', () => {
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ].map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));

  /**
   * Code spans that name a file of the repository (`lib/db/table/keys.ts`, `test/support/`) or outside,
   * each as written: from the repository's root, as a reader at its root types it, on every page.
   */
  const filePaths = pages.flatMap(({ path: page, text }) =>
    [...text.matchAll(/`((?:\.\.\/|(?:lib|test|functions|infra|events|docs|\.ci)\/)[^`\s]*)`/g)]
      .map(([, path]) => ({ page, path: path as string }))
      .filter(({ path }) => !path.includes('*')),
  );

  it('name file paths (the check below would pass vacuously otherwise)', () => {
    expect(pages.length).toBeGreaterThan(5);
    expect(filePaths.length).toBeGreaterThan(20);
  });

  it('name no file outside the repository: what a user reads, the user has', () => {
    expect(
      filePaths
        .filter(({ path }) => path.startsWith('../') || !existsSync(join(ROOT, path)))
        .map(({ page, path }) => `${page}: ${path}`),
    ).toEqual([]);
    for (const { path, text } of pages) expect(text, path).not.toMatch(/API\.md|shared folder/);
  });
});
