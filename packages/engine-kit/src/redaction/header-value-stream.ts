import { MAX_HEADER_HELD, REDACTED } from './redacted.js';

/**
 * A credential header's name at a word start, as SecretRedactor's HEADER_VALUE begins (`\b` + the names): the
 * two must list the same names. A name is never held back: it comes out as it is whether a value follows or not.
 */
const NAME = /(?<![A-Za-z0-9_])(?:(?:proxy-)?authorization|x-goog-api-key|x-api-key|api[-_]?key)/gi;
/** The longest name (`proxy-authorization`): a name ending in new text starts at most this far back. */
const LONGEST_NAME = 19;
/** A character of an unquoted value (HEADER_VALUE's `[^\s"'\\,;&}]`). */
const VALUE_CHAR = /[^\s"'\\,;&}]/;
/** What ends a quoted value (HEADER_VALUE's `[^"'\\]*` stops at it). */
const QUOTED_END = /["'\\]/;
const QUOTE = /["']/;
const WS = /\s/;
const SCHEME_WORD = /^(?:bearer|basic)$/i;
const SCHEME = /^(?:bearer|basic)\s+/i;

/**
 * Where the stream is in a header: scanning for a name; in the separator after one (0: its backslashes, 1: after
 * its quote, 2: spaces before `:`/`=`, 3: spaces after it); in a value's backslashes (a quote must come); in a
 * quoted or unquoted value (held); or dropping the rest of a value already replaced.
 */
type Mode =
  | { at: 'scan' }
  | { at: 'sep'; step: 0 | 1 | 2 | 3 }
  | { at: 'quote' }
  | { at: 'quoted' }
  | { at: 'plain' }
  | { at: 'drop'; what: 'quoted' | 'plain' | 'scheme' };

const SCAN: Mode = { at: 'scan' };

/** The next separator step after `ch` (`value`: the value starts with `ch`; `fail`: no header here). */
function sepStep(step: 0 | 1 | 2 | 3, ch: string): 0 | 1 | 2 | 3 | 'value' | 'fail' {
  if (step === 3) return WS.test(ch) ? 3 : 'value';
  if (ch === ':' || ch === '=') return 3;
  if (WS.test(ch)) return 2;
  if (step === 0 && ch === '\\') return 0;
  if (step === 0 && QUOTE.test(ch)) return 1;
  return 'fail';
}

/**
 * The mode after `ch`, which it takes, in a separator or a quoted value's backslashes; `value`: a value starts
 * with `ch`; `fail`: no header here (`ch` is read again as ordinary text).
 */
function stepAfter(
  mode: { at: 'sep'; step: 0 | 1 | 2 | 3 } | { at: 'quote' },
  ch: string,
): Mode | 'value' | 'fail' {
  if (mode.at === 'quote') return QUOTE.test(ch) ? { at: 'quoted' } : ch === '\\' ? mode : 'fail';
  const step = sepStep(mode.step, ch);
  return typeof step === 'number' ? { at: 'sep', step } : step;
}

/** How an unquoted value from `s` on reads: decided (`end`, `value`), or not yet (and in which part). */
type Plain = { end: number; value: string } | { open: 'word' | 'scheme' | 'token'; scheme: string };

/**
 * An unquoted value as HEADER_VALUE reads it: `bearer`/`basic`, spaces and a token, else one run of value
 * characters. Not `final`: open while a run reaches the end of the text (more of it may come).
 */
function plainValue(full: string, s: number, final: boolean): Plain {
  const n = full.length;
  let r = s;
  while (r < n && VALUE_CHAR.test(full[r] as string)) r++;
  if (r === n) return final ? { end: n, value: full.slice(s) } : { open: 'word', scheme: '' };
  const word = { end: r, value: full.slice(s, r) };
  if (!SCHEME_WORD.test(word.value) || !WS.test(full[r] as string)) return word;
  let w = r;
  while (w < n && WS.test(full[w] as string)) w++;
  if (w === n) return final ? word : { open: 'scheme', scheme: '' };
  if (!VALUE_CHAR.test(full[w] as string)) return word;
  let k = w;
  while (k < n && VALUE_CHAR.test(full[k] as string)) k++;
  if (k === n && !final) return { open: 'token', scheme: full.slice(s, w) };
  return { end: k, value: full.slice(s, k) };
}

/**
 * The values of header-shaped credentials (`authorization: Bearer …`, `"x-api-key":"…"`, `api_key=…`) replaced
 * in a text that arrives in pieces, as SecretRedactor's HEADER_VALUE pass replaces them in the whole text: the
 * joined output is that pass over the joined input. Names and separators go out as they come (they are kept
 * either way); only a value is held, from its first character to its end, which decides what it becomes (a
 * value already ending in [REDACTED] stays). A value held past MAX_HEADER_HELD is replaced then, and the rest
 * of it dropped as it comes.
 */
export class HeaderValueStream {
  /** The last characters of the text decided (names ending in new text start in them). */
  private ctx = '';
  /** The value being read, from its first character (quoted: from after its quote). */
  private held = '';
  private mode: Mode = SCAN;

  /** `errorText`: a value loses its scheme too (`authorization: [REDACTED]`), as SecretRedactor's errorText. */
  constructor(private readonly errorText: boolean) {}

  push(text: string): string {
    return this.run(text, false);
  }

  /** The end of the text: `text`, then what is held, decided. */
  end(text = ''): string {
    const out = this.run(text, true);
    this.ctx = '';
    this.mode = SCAN;
    return out;
  }

  get heldChars(): number {
    return this.held.length;
  }

  private run(text: string, final: boolean): string {
    const full = this.ctx + this.held + text;
    const n = full.length;
    let i = this.ctx.length;
    let out = '';
    this.held = '';
    // At the end, a quote that opened a value is a value, empty (`api_key='` → `api_key='[REDACTED]`).
    while (i < n || (final && this.mode.at === 'quoted')) {
      const mode = this.mode;
      if (mode.at === 'scan') {
        const end = nameEnd(full, i);
        out += full.slice(i, end < 0 ? n : end);
        i = end < 0 ? n : end;
        if (end >= 0) this.mode = { at: 'sep', step: 0 };
      } else if (mode.at === 'sep' || mode.at === 'quote') {
        const ch = full[i] as string;
        const next = stepAfter(mode, ch);
        if (next === 'fail') this.mode = SCAN;
        else if (next === 'value') this.mode = valueStart(ch);
        else {
          // A separator's characters, and a quoted value's backslashes and quote, are kept either way.
          out += ch;
          i++;
          this.mode = next;
        }
      } else if (mode.at === 'drop') {
        i = this.drop(full, i, mode.what);
      } else {
        const decided = mode.at === 'quoted' ? this.quoted(full, i, final) : this.plain(full, i, final);
        if (decided === null) {
          this.held = full.slice(i);
          this.ctx = full.slice(Math.max(0, i - LONGEST_NAME - 1), i);
          return out;
        }
        out += decided.out;
        i = decided.i;
      }
    }
    this.ctx = full.slice(Math.max(0, n - LONGEST_NAME - 1));
    return out;
  }

  /** A quoted value from `i` (after its quote): decided at its closing quote or backslash, or held (null). */
  private quoted(full: string, i: number, final: boolean): { out: string; i: number } | null {
    let t = i;
    while (t < full.length && !QUOTED_END.test(full[t] as string)) t++;
    if (t < full.length || final) {
      this.mode = SCAN;
      return { out: this.replaced(full.slice(i, t), ''), i: t };
    }
    if (t - i <= MAX_HEADER_HELD) return null;
    this.mode = { at: 'drop', what: 'quoted' };
    return { out: REDACTED, i: t };
  }

  /** An unquoted value from `i`: decided at its end, or held (null); past the bound, replaced and dropped. */
  private plain(full: string, i: number, final: boolean): { out: string; i: number } | null {
    const read = plainValue(full, i, final);
    if ('end' in read) {
      this.mode = SCAN;
      return { out: this.replaced(read.value, SCHEME.exec(read.value)?.[0] ?? ''), i: read.end };
    }
    if (full.length - i <= MAX_HEADER_HELD) return null;
    // Too long to wait for: taken as the credential it looks like; the rest of it is dropped as it comes.
    const scheme = read.open === 'scheme' ? full.slice(i) : read.scheme;
    this.mode = { at: 'drop', what: read.open === 'scheme' ? 'scheme' : 'plain' };
    return { out: (this.errorText ? '' : scheme) + REDACTED, i: full.length };
  }

  /** What a whole value becomes (HEADER_VALUE's replacement, less the name, separator and quote gone out). */
  private replaced(value: string, scheme: string): string {
    if (value.endsWith(REDACTED)) return value;
    return (this.errorText ? '' : scheme) + REDACTED;
  }

  /** Drops the rest of a replaced value from `i`; returns where it ends (the text's end: it may go on). */
  private drop(full: string, i: number, what: 'quoted' | 'plain' | 'scheme'): number {
    let at = what;
    let j = i;
    for (; j < full.length; j++) {
      const ch = full[j] as string;
      if (at === 'scheme' && WS.test(ch)) continue;
      if (at === 'scheme') at = 'plain';
      if (at === 'quoted' ? QUOTED_END.test(ch) : !VALUE_CHAR.test(ch)) {
        this.mode = SCAN;
        return j;
      }
    }
    this.mode = { at: 'drop', what: at };
    return j;
  }
}

/** The mode a value starting with `ch` is read in (backslashes, then a quote; a value character; else none). */
function valueStart(ch: string): Mode {
  if (ch === '\\' || QUOTE.test(ch)) return { at: 'quote' };
  return VALUE_CHAR.test(ch) ? { at: 'plain' } : SCAN;
}

/** The end of the first credential header name that ends after `i` (-1: none). */
function nameEnd(full: string, i: number): number {
  NAME.lastIndex = Math.max(0, i - LONGEST_NAME + 1);
  for (let m = NAME.exec(full); m; m = NAME.exec(full)) {
    const end = m.index + m[0].length;
    if (end > i) return end;
    NAME.lastIndex = m.index + 1;
  }
  return -1;
}
