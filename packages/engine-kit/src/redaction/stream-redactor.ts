import { BearerStream } from './bearer-stream.js';
import { HeaderValueStream } from './header-value-stream.js';
import { REDACTED } from './redacted.js';

export { REDACTED };

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
 * The shortest start of a secret held back at the end of a piece. Shorter ones go out at once, so that text
 * that merely ends like a key begins ("s", "sk-") keeps its pieces as the engine cut them (the recorded
 * corpus replays compare them); if the key does follow, what is left of it is replaced in the next piece
 * (StreamRedactor's context), so at most MIN_HELD − 1 characters of a key's start are shown.
 */
export const MIN_HELD = 6;

/**
 * The first position at or after `from` whose remaining text (MIN_HELD characters or more) is a proper prefix
 * of some secret (the text
 * ends before the secret would); `s.length` when there is none. Only the last (longest secret − 1)
 * positions can be one.
 */
function partialFrom(s: string, from: number, secrets: readonly string[]): number {
  const longest = secrets[0]?.length ?? 0;
  for (let p = Math.max(from, s.length - longest + 1); p <= s.length - MIN_HELD; p++) {
    const c = s.charCodeAt(p);
    const tail = s.length - p;
    for (const secret of secrets) {
      if (secret.length <= tail) break;
      if (secret.charCodeAt(0) === c && secret.startsWith(s.slice(p))) return p;
    }
  }
  return s.length;
}

/** What a StreamRedactor looks for besides the values (SecretRedactor's options of the same names). */
export interface StreamRedactorOptions {
  /** Header-shaped credentials too (`Authorization: Bearer …`, `x-api-key: …`, `api_key=…`). */
  headers?: boolean;
  /** With `headers`: an error's text (every `Bearer <token>`, and a header's value loses its scheme). */
  errorText?: boolean;
}

/**
 * Redacts the known secret values from a text that arrives in pieces (a model's streamed answer, an engine's
 * message chunks, a command's output), so that a secret split across two pieces is still replaced whole.
 * push() returns the text that is safe to emit now; it holds back only a tail of MIN_HELD or more characters
 * that starts a secret (at most the longest secret's length − 1), so ordinary text is not delayed and keeps its
 * cuts; a shorter start goes out, and the rest of that key is replaced in the pieces after it. flush() returns
 * what is held: a start of a secret that never completed is not a secret. No secret gets out whole; a text
 * pushed as one piece comes out as the one-shot SecretRedactor with the same options gives it.
 *
 * With `headers`, the values' output goes through the header passes as the one-shot text() does (HEADER_VALUE,
 * then BEARER), each streaming (HeaderValueStream, BearerStream): a header split across pieces is replaced as
 * the whole would be. They hold back only an undecided header value or `Bearer` token, at most
 * MAX_HEADER_HELD characters each.
 */
export class StreamRedactor {
  private held = '';
  /** The end of the text already emitted (raw, fewer characters than the longest secret). */
  private context = '';
  private readonly headerValues: HeaderValueStream | null;
  private readonly bearers: BearerStream | null;

  /** `secrets`: the values, longest first (SecretRedactor.stream() makes one with its own and its options). */
  constructor(
    private readonly secrets: readonly string[],
    options: StreamRedactorOptions = {},
  ) {
    const errorText = options.errorText ?? false;
    this.headerValues = options.headers ? new HeaderValueStream(errorText) : null;
    this.bearers = options.headers ? new BearerStream(errorText) : null;
  }

  /** The next piece; returns the text to emit now (possibly `''`). */
  push(text: string): string {
    const values = this.pushValues(text);
    if (!this.headerValues || !this.bearers) return values;
    return this.bearers.push(this.headerValues.push(values));
  }

  /** The end of the text: what is held, redacted (a partial secret stays as it is). */
  flush(): string {
    const { out } = scanSecrets(this.held, this.secrets, true);
    this.held = '';
    this.context = '';
    if (!this.headerValues || !this.bearers) return out;
    return this.bearers.end(this.headerValues.end(out));
  }

  /** How many characters are held back (of the values: fewer than the longest secret has). */
  get heldChars(): number {
    return this.held.length + (this.headerValues?.heldChars ?? 0) + (this.bearers?.heldChars ?? 0);
  }

  private pushValues(text: string): string {
    if (this.secrets.length === 0) return text;
    let s = this.held + text;
    let lead = '';
    // A key whose start went out already (shorter than MIN_HELD): the rest of it is replaced here.
    const span = spanning(this.context, s, this.secrets);
    if (span === 'more') {
      this.held = s;
      return '';
    }
    if (span > 0) {
      lead = REDACTED;
      this.remember(s.slice(0, span));
      s = s.slice(span);
    }
    const { out, rest } = scanSecrets(s, this.secrets, false);
    this.held = rest;
    this.remember(s.slice(0, s.length - rest.length));
    return lead + out;
  }

  private remember(raw: string): void {
    const keep = (this.secrets[0]?.length ?? 1) - 1;
    this.context = keep > 0 ? (this.context + raw).slice(-keep) : '';
  }
}

/**
 * How much of `s` finishes a secret whose start ends `context` (the longest such start), 'more' when `s`
 * is all inside such a secret that goes on past it, 0 when none.
 */
function spanning(context: string, s: string, secrets: readonly string[]): number | 'more' {
  for (let k = Math.min(context.length, (secrets[0]?.length ?? 1) - 1); k > 0; k--) {
    const start = context.slice(context.length - k);
    for (const secret of secrets) {
      if (secret.length <= k || !secret.startsWith(start)) continue;
      const rest = secret.slice(k);
      if (s.startsWith(rest)) return rest.length;
      if (s.length > 0 && rest.startsWith(s)) return 'more';
    }
  }
  return 0;
}
