const LONE_SURROGATES = /\p{Surrogate}/gu; // in `u` mode a valid pair is one code point, not a surrogate

/**
 * Text a model or an engine made (a run's error, a canonicalization error naming a frame's content), as both
 * stores hold it in a TEXT column. Such text may hold U+0000, which a PostgreSQL text column refuses (the
 * write fails: a run's error then never settled, an outbox entry's lease was never released), or a lone
 * UTF-16 surrogate (no UTF-8 form: PostgreSQL stored one U+FFFD, SQLite bytes read back as three). Each
 * becomes U+FFFD, the Unicode replacement character, on both stores alike, so the two read the same; as the
 * audit ledger's text columns do (packages/ledger/src/columns.ts). The rest of the text is kept as it is.
 */
export function storableText(text: string): string {
  return text.replaceAll('\u0000', '\ufffd').replace(LONE_SURROGATES, '\ufffd');
}
