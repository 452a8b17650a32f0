/**
 * Every key prefix is spelled in lib/db/table/keys.ts and nowhere else (STYLE.md: key strings are built
 * by small pure functions in one file): a string or template literal of lib/, functions/ or infra/ that
 * holds `WORD#`, where WORD is a word keys.ts builds keys of (`GRAM`, `PERSON`, `AUDIT`, ...), is a key
 * spelled a second time, and drifts the day keys.ts changes. Comments may name keys; code may not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from '../../../support/source-files';

const KEYS = 'lib/db/table/keys.ts';

/** The text of every string literal and every literal part of a template in a source, comments left out. */
const literalsOf = (text: string, file = 'source.ts'): string[] => {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    )
      found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
  return found;
};

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The words keys.ts builds keys of: every run of capitals in its literals (`PERSON#`, `'NAMEPREFIX'`). */
const KEY_WORDS = [
  ...new Set(literalsOf(read(KEYS)).flatMap((literal) => literal.match(/[A-Z]{2,}/g) ?? [])),
];

/** `WORD#` for a key word, not inside a longer word (`#value` and `x-Amz-Date#` are not keys). */
const prefixPattern = (words: readonly string[]) => new RegExp(`(?<![A-Za-z0-9_])(?:${words.join('|')})#`);

/** Each literal of `text` that spells a key prefix. */
const spelledPrefixes = (text: string, file?: string) => {
  const pattern = prefixPattern(KEY_WORDS);
  return literalsOf(text, file).filter((literal) => pattern.test(literal));
};

describe(`key prefixes (${KEYS})`, () => {
  it('are read from keys.ts (the check below would pass vacuously otherwise)', () => {
    expect(KEY_WORDS).toEqual(
      expect.arrayContaining(['PERSON', 'GRAM', 'AUDIT', 'LOCALREF', 'FEEDEVENT', 'COUNTER', 'VOCABULARY']),
    );
    expect(spelledPrefixes(read(KEYS), KEYS)).toEqual(
      expect.arrayContaining(['GRAM#', 'PERSON#', 'AUDIT#', 'FEEDEVENT#', 'LOCALREF#', 'COUNTER#ids']),
    );
  });

  it('are found in string and template literals, not in comments or expression names', () => {
    const source = [
      '// `GRAM#ab#3` in a comment',
      '/** `PERSON#12` in TSDoc */',
      "const a = 'GRAM#';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
      'const b = `PERSON#${id}`;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
      'const c = `${kind}#x${n}AUDIT#${v}`;',
      "const d = { '#value': 'value', x: 'GRAMMAR#', y: 'HEAD' };",
    ].join('\n');
    expect(spelledPrefixes(source)).toEqual(['GRAM#', 'PERSON#', 'AUDIT#']);
  });

  it('are spelled in keys.ts only: lib/, functions/ and infra/ take them from there', () => {
    const files = [...sourceFiles('lib'), ...sourceFiles('functions'), ...sourceFiles('infra')].filter(
      (file) => file !== KEYS,
    );
    expect(files.length).toBeGreaterThan(100);
    expect(
      files.flatMap((file) => spelledPrefixes(read(file), file).map((literal) => `${file}: ${literal}`)),
    ).toEqual([]);
  });
});
