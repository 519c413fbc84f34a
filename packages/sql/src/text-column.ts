const LONE_SURROGATES = /\p{Surrogate}/gu; // in `u` mode a valid pair is one code point, not a surrogate
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Text a model, a tool or an engine made, as a TEXT column holds it on both stores. Such text may hold U+0000,
 * which a PostgreSQL text column refuses (`invalid byte sequence for encoding "UTF8": 0x00`: the whole write
 * fails), or a lone UTF-16 surrogate (no UTF-8 form: node-postgres sends U+FFFD, better-sqlite3 stores bytes
 * that read back as three U+FFFD). Each becomes U+FFFD, the Unicode replacement character, on both stores
 * alike, so the two read the same: clearly marked, not reversible. Chosen over spelling out `\u0000`, which
 * would read as the six characters a model may well have sent itself, and over escaping backslashes too
 * (reversible, but it would change every ordinary text with a backslash). The rest of the text is kept.
 * Used by the store (run and outbox errors) and the audit ledger (its text columns but JSON `payload`).
 */
export function storableText(text: string): string {
  return text.replaceAll('\u0000', '\ufffd').replace(LONE_SURROGATES, '\ufffd');
}

/** Whether the text is stored as it is (storableText would not change it): a key column must be. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}
