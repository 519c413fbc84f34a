import { MAX_HEADER_HELD, REDACTED } from './redacted.js';

/** `Bearer` at a word start (SecretRedactor's BEARER and ANY_BEARER begin with `\bBearer`). */
const WORD = /(?<![A-Za-z0-9_])bearer/gi;
const WORD_CHARS = 6;
/** A token character (BEARER's `[A-Za-z0-9\-._~+/]`), and the ones BEARER needs one of in its token. */
const TOKEN_CHAR = /[A-Za-z0-9\-._~+/]/;
const TOKEN_MARK = /[0-9\-._]/;
const WS = /\s/;

/** What follows a `Bearer` that is replaced and dropped as it comes: spaces, the token, its `=` padding. */
type Drop = 'ws' | 'token' | 'pad';

/**
 * How a `Bearer` at `c` reads: no credential; a credential ending at `end`; one that reaches the end of the text
 * (`drop`: what of it may still come); or undecided (`open`: in its spaces or its token).
 */
type Candidate = { none: true } | { end: number } | { drop: Drop } | { open: 'ws' | 'token' };

const NONE: Candidate = { none: true };

/** BEARER (`anyToken`: ANY_BEARER) at `c`, as far as `full` shows it. */
function candidate(full: string, c: number, final: boolean, anyToken: boolean): Candidate {
  const n = full.length;
  let j = c + WORD_CHARS;
  if (j === n) return final ? NONE : { open: 'ws' };
  if (!WS.test(full[j] as string)) return NONE;
  while (j < n && WS.test(full[j] as string)) j++;
  if (j === n) return final ? NONE : { open: 'ws' };
  let k = j;
  let marked = false;
  for (; k < n && TOKEN_CHAR.test(full[k] as string); k++) marked ||= TOKEN_MARK.test(full[k] as string);
  const valid = anyToken ? k > j : k - j >= 8 && marked;
  if (k === n) {
    if (valid) return final ? { end: n } : { drop: 'token' };
    return final || k === j ? NONE : { open: 'token' };
  }
  if (!valid) return NONE;
  let e = k;
  while (e < n && full[e] === '=') e++;
  return e === n && !final ? { drop: 'pad' } : { end: e };
}

/**
 * Bearer tokens (`Bearer <token>`) replaced in a text that arrives in pieces, as SecretRedactor's BEARER pass
 * replaces them in the whole text. Held back: a whole `Bearer` word and what follows it until that decides
 * (its spaces, a token too short or without a digit yet), at most MAX_HEADER_HELD characters; past it the token
 * is taken as a credential and dropped as it comes. A cut inside the word lets its first (at most 5)
 * characters out, as a key's start goes out (MIN_HELD): the rest of the match is then written `Bearer`'s way,
 * so only the letter case of those characters can differ from the whole text's redaction.
 */
export class BearerStream {
  /** The last characters of the text decided (a `Bearer` cut in them is found across the pieces). */
  private ctx = '';
  /** The undecided text, from a `Bearer` (the part of it not gone out yet). */
  private held = '';
  private dropping: Drop | null = null;

  /** `anyToken`: any token is a credential however short (ANY_BEARER, for an error's text). */
  constructor(private readonly anyToken: boolean) {}

  push(text: string): string {
    return this.run(text, false);
  }

  /** The end of the text: `text`, then what is held, decided. */
  end(text = ''): string {
    const out = this.run(text, true);
    this.ctx = '';
    this.dropping = null;
    return out;
  }

  get heldChars(): number {
    return this.held.length;
  }

  private run(text: string, final: boolean): string {
    const full = this.ctx + this.held + this.drop(text);
    const n = full.length;
    let i = this.ctx.length;
    let out = '';
    this.held = '';
    if (this.dropping) {
      this.ctx = full.slice(-WORD_CHARS);
      return '';
    }
    WORD.lastIndex = Math.max(0, i - WORD_CHARS + 1);
    for (let m = WORD.exec(full); m; m = WORD.exec(full)) {
      const c = m.index;
      WORD.lastIndex = c + 1;
      // A word wholly in the decided text was decided with it.
      if (c + WORD_CHARS <= i) continue;
      const read = candidate(full, c, final, this.anyToken);
      if ('none' in read) continue;
      const from = Math.max(i, c);
      if ('open' in read && n - from <= MAX_HEADER_HELD) {
        this.held = full.slice(from);
        this.ctx = full.slice(Math.max(0, from - WORD_CHARS), from);
        return out + full.slice(i, from);
      }
      // The characters of the word that went out already are not written again.
      out += `${full.slice(i, from)}${'Bearer'.slice(from - c)} ${REDACTED}`;
      if ('end' in read) {
        i = read.end;
        WORD.lastIndex = i;
        continue;
      }
      // The token reaches the end of the text (or was held too long): what follows of it is dropped.
      this.dropping = 'drop' in read ? read.drop : read.open;
      i = n;
      break;
    }
    this.ctx = full.slice(Math.max(0, n - WORD_CHARS));
    return out + full.slice(i);
  }

  /** `text` without the start that continues a token being dropped (which ends when something else comes). */
  private drop(text: string): string {
    let at = this.dropping;
    if (at === null) return text;
    let j = 0;
    for (; j < text.length; j++) {
      const ch = text[j] as string;
      if (at === 'ws' && WS.test(ch)) continue;
      if (at === 'ws') at = 'token';
      if (at === 'token' && TOKEN_CHAR.test(ch)) continue;
      if (at === 'token') at = 'pad';
      if (ch !== '=') break;
    }
    this.dropping = j < text.length ? null : at;
    // What was dropped is decided text: its end is the context of what comes next.
    this.ctx = (this.ctx + text.slice(0, j)).slice(-WORD_CHARS);
    return text.slice(j);
  }
}
