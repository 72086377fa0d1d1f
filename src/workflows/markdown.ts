// Text a tenant wrote (a pause note, a trigger reason, a sink's failure text) shown in the Temporal Web UI,
// which renders a workflow's details as markdown: there it must stay text, never a link, an image (a
// tracking pixel), HTML or a heading of the operator's page.

/**
 * `text` as one inline code span, in which markdown interprets nothing: no emphasis, link, image, autolink
 * or HTML. Backslash escapes would not do: GFM renderers turn a bare `www.…` or `https://…` into a link
 * whatever is escaped around it. The fence is one backtick longer than the longest run inside, line breaks
 * (which could end the paragraph, and the span with it) and other control characters become spaces, and a
 * space pads text that starts or ends with a backtick, as CommonMark asks.
 */
export function markdownLiteral(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced.
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
  const longestRun = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat.trim() === '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}
