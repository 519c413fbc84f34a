/**
 * Explicit bidi embeddings and overrides (LRE, RLE, PDF, LRO, RLO): an override reverses the characters
 * after it ("\u202Eevil" reads "live"), so a title could pose as another. The isolates (LRI, RLI, FSI, PDI)
 * cannot reach outside the isolated element and stay.
 */
const BIDI_OVERRIDES = /[\u202A-\u202E]/g;

/** Text of a user's or an engine's choosing with its bidi overrides shown as escapes (`\u202E`), as the server's messages do. */
export function neutralizeBidi(text: string): string {
  return text.replace(BIDI_OVERRIDES, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * A title or name someone else chose (a thread's, a sub-agent's), isolated from the text around it (its
 * direction is its own, `dir="auto"`, and cannot reorder the row it sits in) and without overrides.
 */
export function UserText({ text, className }: { text: string; className?: string }) {
  return (
    <bdi dir="auto" {...(className ? { className } : {})}>
      {neutralizeBidi(text)}
    </bdi>
  );
}
