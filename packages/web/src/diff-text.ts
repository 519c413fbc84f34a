/**
 * The part of a unified diff react-diff-view's parser reads: from the first `diff --git` or `--- ` line on.
 * jsdiff's createTwoFilesPatch (the built-in engine's diffs) starts with an `Index:` and a `=====` line,
 * which the parser does not know and fails on; so did every approval card, which showed the raw text.
 */
export function parsableDiff(text: string): string {
  const git = text.search(/^diff --git /m);
  if (git >= 0) return text.slice(git);
  const plain = text.search(/^--- /m);
  return plain >= 0 ? text.slice(plain) : text;
}
