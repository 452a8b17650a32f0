/**
 * The README is the front door and the docs pages hold the rest: every relative link of the README and
 * of docs/*.md lands on a file of the repository, and every `#anchor` on a heading of the page it names
 * (GitHub's slugs); the README stays short and links every page of docs/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
/** About 200 lines, the issue says (#42 step 5): the walk-through and where to go next, no more. */
const README_MAX_LINES = 250;

const docsPages = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const pages = ['README.md', ...docsPages];
const textOf = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The text without fenced code blocks: a `# comment` in a shell block is no heading, a `[x](y)` no link. */
const withoutFences = (text: string) => text.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped (not `-` or `_`), each space a `-`. */
const slugOf = (heading: string) =>
  heading
    .trim()
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

/** The anchors a page's headings make; a repeated heading gets `-1`, `-2`, ... as on GitHub. */
const anchorsOf = (text: string): Set<string> => {
  const anchors = new Set<string>();
  for (const [, heading] of withoutFences(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = slugOf(heading as string);
    let anchor = slug;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
};

/** A page's links outside code: inline `[text](target)` and reference definitions `[label]: target`. */
const linksOf = (page: string) => {
  const prose = withoutFences(textOf(page)).replace(/`[^`\n]*`/g, '');
  return [
    ...[...prose.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map(([, target]) => target as string),
    ...[...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/gm)].map(([, target]) => target as string),
  ].map((target) => ({ page, target }));
};

const links = pages.flatMap(linksOf);
/** Links within the repository: no scheme (`https:`, `mailto:`). */
const relativeLinks = links.filter(({ target }) => !/^[a-z][a-z\d+.-]*:/i.test(target));

/** The file a link names, from the repository's root ('' when outside it), and its anchor. */
const resolveLink = ({ page, target }: { page: string; target: string }) => {
  const hash = target.indexOf('#');
  const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = path === '' ? page : relative(ROOT, resolve(ROOT, dirname(page), path));
  return { file: file.startsWith('..') ? '' : file, anchor };
};

describe('the README and the docs pages', () => {
  it('link to one another (the checks below would pass vacuously otherwise)', () => {
    expect(docsPages.length).toBeGreaterThan(5);
    expect(relativeLinks.length).toBeGreaterThan(20);
    expect(relativeLinks.filter(({ target }) => target.includes('#')).length).toBeGreaterThan(2);
  });

  it('link only to files of the repository', () => {
    const broken = relativeLinks.filter((link) => {
      const { file } = resolveLink(link);
      return file === '' || !existsSync(join(ROOT, file));
    });
    expect(broken.map(({ page, target }) => `${page}: ${target}`)).toEqual([]);
  });

  it('link to an #anchor only where the page it names has that heading', () => {
    const broken = relativeLinks.filter((link) => {
      const { file, anchor } = resolveLink(link);
      if (anchor === undefined || file === '' || !existsSync(join(ROOT, file))) return false;
      if (statSync(join(ROOT, file)).isDirectory() || !file.endsWith('.md')) return true;
      return !anchorsOf(textOf(file)).has(anchor);
    });
    expect(broken.map(({ page, target }) => `${page}: ${target}`)).toEqual([]);
  });
});

describe('the README', () => {
  const readme = textOf('README.md');

  it(`stays the front door: at most ${README_MAX_LINES} lines`, () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('links every page of docs/', () => {
    const linked = new Set(
      relativeLinks
        .filter(({ page }) => page === 'README.md')
        .map(resolveLink)
        .map(({ file }) => file),
    );
    expect(docsPages.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe("GitHub's heading anchors", () => {
  it.each([
    ['Retrying writes: `Idempotency-Key`', 'retrying-writes-idempotency-key'],
    ['Requester binding: who may write as whom', 'requester-binding-who-may-write-as-whom'],
    ["DynamoDB Local's durability with `--data`", 'dynamodb-locals-durability-with---data'],
    ['One handler, one event', 'one-handler-one-event'],
    ['Façade & co.', 'façade--co'],
  ])('%s → #%s', (heading, anchor) => {
    expect(slugOf(heading)).toBe(anchor);
  });
});
