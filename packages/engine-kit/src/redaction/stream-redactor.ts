/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** What one scan of a text gave: the text that is decided, and the tail that is not yet. */
export interface ScanResult {
  /** The text up to the undecided tail, every whole secret in it replaced by REDACTED. */
  out: string;
  /** The undecided tail (`''` when `final`): it starts a secret that more text could complete. */
  rest: string;
}

/**
 * Replaces the known secret values in `s` by one left-to-right scan: at each position the longest secret that
 * starts there is replaced, and the scan goes on after it (leftmost, then longest). One scan, not one
 * replaceAll per secret, so that the result is the same however the text is cut into pieces: a decision at a
 * position depends only on the text from there on (see StreamRedactor).
 *
 * `final` false: the scan stops at the first position it reaches whose remaining text is a proper prefix of
 * some secret (text still to come could complete it there) and returns that tail as `rest`. `secrets` is
 * sorted longest first.
 */
export function scanSecrets(s: string, secrets: readonly string[], final: boolean): ScanResult {
  if (secrets.length === 0) return { out: s, rest: '' };
  // The next occurrence of each secret at or after the scan position (-1: none left).
  const next = secrets.map((secret) => s.indexOf(secret));
  let out = '';
  let i = 0;
  for (;;) {
    let at = -1;
    let len = 0;
    for (const [k, secret] of secrets.entries()) {
      let j = next[k] as number;
      if (j >= 0 && j < i) {
        j = s.indexOf(secret, i);
        next[k] = j;
      }
      // Longest first: at equal positions the first found is the longest.
      if (j >= 0 && (at < 0 || j < at)) {
        at = j;
        len = secret.length;
      }
    }
    const held = final ? s.length : partialFrom(s, i, secrets);
    if (at >= 0 && at < held) {
      out += s.slice(i, at) + REDACTED;
      i = at + len;
      continue;
    }
    return { out: out + s.slice(i, held), rest: s.slice(held) };
  }
}

/**
 * The first position at or after `from` whose remaining text is a proper prefix of some secret (the text
 * ends before the secret would); `s.length` when there is none. Only the last (longest secret − 1)
 * positions can be one.
 */
function partialFrom(s: string, from: number, secrets: readonly string[]): number {
  const longest = secrets[0]?.length ?? 0;
  for (let p = Math.max(from, s.length - longest + 1); p < s.length; p++) {
    const c = s.charCodeAt(p);
    const tail = s.length - p;
    for (const secret of secrets) {
      if (secret.length <= tail) break;
      if (secret.charCodeAt(0) === c && secret.startsWith(s.slice(p))) return p;
    }
  }
  return s.length;
}

/**
 * Redacts the known secret values from a text that arrives in pieces (a model's streamed answer, an engine's
 * message chunks), so that a secret split across two pieces is still replaced whole. push() returns the text
 * that is safe to emit now; it holds back only a tail that starts a secret (at most the longest secret's length
 * − 1 characters), so ordinary text is not delayed. flush() returns what is held: a start of a secret that
 * never completed is not a secret. The pieces' outputs and flush() together are exactly what the one-shot
 * SecretRedactor's values (`headers: false`) give for the whole text. Header-shaped credentials are not looked
 * for across pieces.
 */
export class StreamRedactor {
  private held = '';

  /** `secrets`: the values, longest first (SecretRedactor.stream() makes one with its own). */
  constructor(private readonly secrets: readonly string[]) {}

  /** The next piece; returns the text to emit now (possibly `''`). */
  push(text: string): string {
    if (this.secrets.length === 0) return text;
    const { out, rest } = scanSecrets(this.held + text, this.secrets, false);
    this.held = rest;
    return out;
  }

  /** The end of the text: what is held, redacted (a partial secret stays as it is). */
  flush(): string {
    const { out } = scanSecrets(this.held, this.secrets, true);
    this.held = '';
    return out;
  }

  /** How many characters are held back (fewer than the longest secret has). */
  get heldChars(): number {
    return this.held.length;
  }
}
