// Every relative link in the documentation reaches a file of this checkout, and every `#fragment` a
// heading of its target: README.md, CHANGELOG.md, BENCHMARKS.md, RELIABILITY.md and docs/**/*.md.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/toolchain.mjs';

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const pages = [
  ...['README.md', 'CHANGELOG.md', 'BENCHMARKS.md', 'RELIABILITY.md']
    .map((name) => join(repoRoot, name))
    .filter((path) => existsSync(path)),
  ...markdownUnder(join(repoRoot, 'docs')),
];

/** Markdown without its fenced code blocks, where a heading or a link is only text. */
const unfenced = (text: string) => text.replace(/^(```|~~~)[\s\S]*?^\1/gm, '');
/** ... and without its inline code spans. */
const prose = (text: string) => unfenced(text).replace(/`[^`\n]*`/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of unfenced(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative link targets of a page (inline links and images; not URLs, not mail). */
function links(text: string): string[] {
  return [...prose(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('relative links in the documentation', () => {
  it('finds the pages', () => {
    expect(pages.length).toBeGreaterThan(5);
  });

  it.each(pages.map((page) => [relative(repoRoot, page), page]))(
    '%s: every relative link resolves',
    (_, page) => {
      const text = readFileSync(page, 'utf8');
      const broken: string[] = [];
      for (const target of links(text)) {
        const [path, fragment] = target.split('#', 2) as [string, string | undefined];
        const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
        // Outside the checkout (../shared/SPEC.md, the product's specification beside it): not ours to check,
        // and absent where CI clones the repository alone.
        if (relative(repoRoot, file).startsWith('..')) continue;
        if (!existsSync(file)) {
          broken.push(`${target}: no such file`);
          continue;
        }
        if (fragment && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(fragment))
          broken.push(`${target}: no heading #${fragment}`);
      }
      expect(broken).toEqual([]);
    },
  );
});
