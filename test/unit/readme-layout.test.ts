/** The README's Layout table names every folder and module a newcomer meets, and nothing that is gone. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const layout = readme.slice(
  readme.indexOf('## Layout'),
  readme.indexOf('\n## ', readme.indexOf('## Layout') + 1),
);

/** The table's rows: the path in the first column, the text of the second. */
const rows = [...layout.matchAll(/^\| `([^`]+)` \| (.+) \|$/gm)].map(([, path, text]) => ({
  path: path as string,
  text: text as string,
}));

const entriesOf = (folder: string) =>
  readdirSync(join(ROOT, folder), { withFileTypes: true }).map((entry) =>
    entry.isDirectory() ? `${folder}/${entry.name}/` : `${folder}/${entry.name}`,
  );

describe("the README's Layout table", () => {
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

  it('says what each folder of test/ holds', () => {
    const testRow = rows.find(({ path }) => path === 'test/')?.text ?? '';
    const folders = entriesOf('test').filter((path) => path.endsWith('/'));
    expect(folders.filter((path) => !testRow.includes(`\`${path.slice('test/'.length)}\``))).toEqual([]);
  });
});

describe('the README', () => {
  /** Code spans that name a file of the repository (`lib/db/table/keys.ts`, `test/support/`) or outside. */
  const filePaths = [
    ...readme.matchAll(/`((?:\.\.\/|(?:lib|test|functions|infra|events|docs|\.ci)\/)[^`\s]*)`/g),
  ]
    .map(([, path]) => path as string)
    .filter((path) => !path.includes('*'));

  it('names file paths (the check below would pass vacuously otherwise)', () => {
    expect(filePaths.length).toBeGreaterThan(20);
  });

  it('names no file outside the repository: what a user reads, the user has', () => {
    expect(filePaths.filter((path) => path.startsWith('../') || !existsSync(join(ROOT, path)))).toEqual([]);
    expect(readme).not.toMatch(/API\.md|shared folder/);
  });
});
