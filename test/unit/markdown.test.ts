// Tenant text in the Temporal Web UI's markdown stays text (security review L5): markdownLiteral makes one
// inline code span of it, which CommonMark renders verbatim. Checked here against CommonMark's rule for
// where a code span ends (the next backtick run of exactly the opening length).
import { describe, expect, it } from 'vitest';
import { markdownLiteral } from '../../src/workflows/markdown.js';

/** The text a CommonMark renderer shows for `markdown` if it is exactly one code span, else null. */
function codeSpanText(markdown: string): string | null {
  const opening = /^`+/.exec(markdown)?.[0].length ?? 0;
  if (opening === 0 || /[\n\r]/.test(markdown)) return null;
  const runs = [...markdown.slice(opening).matchAll(/`+/g)];
  const closing = runs.find((run) => run[0].length === opening);
  if (!closing || closing.index + opening + opening !== markdown.length) return null;
  let inner = markdown.slice(opening, markdown.length - opening);
  if (inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '') inner = inner.slice(1, -1);
  return inner;
}

describe('markdownLiteral', () => {
  it.each([
    ['a plain note', 'quarter close'],
    ['a link', '[reset your password](https://evil.example/login)'],
    ['an image (a tracking pixel)', '![](https://tracker.example/p.png?op=1)'],
    ['raw HTML', '<img src=x onerror=alert(1)><a href="https://evil.example">x</a>'],
    ['a bare URL, which GFM links', 'see www.evil.example or https://evil.example'],
    ['emphasis and headings', '**urgent** _now_ # not a heading'],
    ['a backtick', 'use `rm -rf` here'],
    ['a fence of its own', 'a ``` b `` c'],
    ['backticks at both ends', '`start and end`'],
    ['entities', '&lt;script&gt; &amp;'],
  ])('%s is one code span showing the text as written', (_what, text) => {
    const rendered = markdownLiteral(text);
    expect(codeSpanText(rendered)).toBe(text);
  });

  it('line breaks become a space: a blank line would end the paragraph and the span with it', () => {
    const text = 'first\n\n# Heading\r\n[link](https://evil.example)\u2028end';
    const rendered = markdownLiteral(text);
    expect(rendered).not.toMatch(/[\n\r\u2028]/);
    expect(codeSpanText(rendered)).toBe('first # Heading [link](https://evil.example) end');
  });

  it('other control characters become spaces too', () => {
    expect(codeSpanText(markdownLiteral('a\u0000b\u001bc\u007fd'))).toBe('a b c d');
  });

  it('is pure: the same text, the same markdown (it runs in workflow code)', () => {
    expect(markdownLiteral('x `y`')).toBe(markdownLiteral('x `y`'));
    expect(markdownLiteral('weekday-sync')).toBe('`weekday-sync`');
  });
});
