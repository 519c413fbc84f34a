import type { JsonValue } from '@agentlane/contract';
import { MAX_HEADER_HELD, REDACTED } from './redacted.js';
import { ANY_BEARER, BEARER, HEADER_HINT, HEADER_VALUE, type SecretRedactor } from './secret-redactor.js';

/** How much of a field's text is kept to read its next values against: a name, its separator, a held value. */
const WINDOW = MAX_HEADER_HELD + 64;
/** An open credential longer than WINDOW is kept as its start, up to this much of its value, and its end. */
const VALUE_HEAD = 8;
const VALUE_END = 64;
/**
 * How many later values of a field one end of it is read against: streams that interleave their frames in one
 * field (two sub-agents' message chunks) each continue their own text, not the frame just before.
 */
const TAIL_VALUES = 3;
/** The most ends kept of one field (the youngest). */
const MAX_TAILS = 4;
/** The most fields with ends kept (the one kept longest is dropped first). */
const MAX_FIELDS = 1024;

/** The words a header-shaped credential starts with (HEADER_VALUE's names, BEARER's `Bearer`), lower case. */
const WORDS = [
  'proxy-authorization',
  'authorization',
  'x-goog-api-key',
  'x-api-key',
  'api-key',
  'api_key',
  'apikey',
  'bearer',
];
/** The proper starts of WORDS (`a`, `au`, …, `x-api-ke`, `beare`). */
const WORD_STARTS = new Set(WORDS.flatMap((w) => [...w].map((_, k) => w.slice(0, k)).slice(1)));
const LONGEST_START = 18;

/**
 * `Bearer` and a token at the very end of a text (BEARER takes one of 8 characters or more, with a mark): a
 * token when the word is written as a scheme is (`Bearer`, `BEARER`) or the token has a mark so far; not prose
 * (`the bearer of`).
 */
const OPEN_BEARER = /(?<![A-Za-z0-9_])(?:Bearer|BEARER)\s+[A-Za-z0-9\-._~+/]+$/;
const OPEN_MARKED = /(?<![A-Za-z0-9_])bearer\s+(?=[A-Za-z~+/]*[0-9\-._])[A-Za-z0-9\-._~+/]+$/i;

/**
 * One credential in a text: where its match starts, where the part replaced starts, where it ends; `eager`:
 * a `Bearer` token at the text's end that BEARER does not take (yet).
 */
interface Span {
  start: number;
  from: number;
  end: number;
  eager?: boolean;
}

/** The end of a field's text, and how many of the field's values came after it. */
interface Tail {
  text: string;
  age: number;
}

/** A value as it came and as it is stored, where the field's earlier values changed its redaction. */
export type ContinuedValue = [original: string, stored: string];

/**
 * Keeps a header-shaped credential that an engine's frames split out of the stored frames: `Authorization:
 * Bear` ending one frame's text and `er sk-…` starting the next frame's same field, or the name itself split
 * (`Author` | `ization: Bearer …`). Each frame is redacted on its own (SecretRedactor.json) and stored at once,
 * never held back; besides, each string value is read after the ends of the same field's values in the
 * earlier frames (the same keys and indexes, one instance a run): a credential one of them started and this
 * value continues loses what of it is in this value, and a `Bearer` token a value ends in is replaced however
 * short it is yet. Redacting a little more is the safe side: the end of a field is kept for TAIL_VALUES more
 * values of it (streams may interleave in one field), so a value starting like the rest of a credential
 * after one of them is cut too. Known secret values split across frames are left to the translation (each
 * frame keeps a part, no frame the whole).
 */
export class SplitFieldRedactor {
  private readonly fields = new Map<string, Tail[]>();
  /** The last key or index of the fields kept (a cheap test before a field's path is joined). */
  private readonly leaves = new Set<string | number>();
  private readonly bearer: RegExp;
  private readonly errorText: boolean;
  private readonly headers: boolean;
  private continued: ContinuedValue[] = [];

  constructor(private readonly redactor: SecretRedactor) {
    const { headers, errorText } = redactor.options;
    this.headers = headers;
    this.errorText = errorText;
    this.bearer = errorText ? ANY_BEARER : BEARER;
  }

  /**
   * A frame redacted as SecretRedactor.json redacts it, each string value also after the ends of the same
   * field in the earlier frames; `continued`: the values that reading changed (a raw copy of the frame holds
   * them as they came).
   */
  json(frame: JsonValue): { frame: JsonValue; continued: ContinuedValue[] } {
    if (!this.headers) return { frame: this.redactor.json(frame), continued: [] };
    this.continued = [];
    const safe = this.redactor.jsonFields(frame, (s, path) => this.field(s, path));
    return { frame: safe, continued: this.continued };
  }

  private field(value: string, path: readonly (string | number)[]): string {
    const tails = this.leaves.has(path[path.length - 1] ?? '')
      ? this.fields.get(path.join('\u0000'))
      : undefined;
    if (!tails && !HEADER_HINT.test(value) && !endsInWord(value)) return this.redactor.text(value);
    const next: Tail[] = [];
    const spans = this.spans(value);
    const own = this.tailOf(value, spans);
    if (own !== null) next.push({ text: own, age: 0 });
    const ranges = tails ? this.continuing(tails, value, next) : [];
    this.keep(path.join('\u0000'), path[path.length - 1] ?? '', next);
    // A token the value ends in, too short yet for BEARER: the rest of it may start the next frame.
    const open = spans.find((span) => span.eager);
    if (open) ranges.push([open.from, value.length]);
    const text = this.redactor.text(value);
    if (ranges.length === 0) return text;
    let stored = '';
    let at = -1;
    for (const [from, to] of ranges.sort((a, b) => a[0] - b[0])) {
      // Ranges that overlap or touch are replaced as one.
      if (from > at) stored += `${this.redactor.text(value.slice(Math.max(at, 0), from))}${REDACTED}`;
      at = Math.max(at, to);
    }
    stored += this.redactor.text(value.slice(at));
    if (stored !== text) this.continued.push([value, stored]);
    return stored;
  }

  /**
   * Where the credentials that the ends `tails` started run into `value`: [keep, cut) of it is replaced
   * (none: none do). Adds the ends to read the next value after to `next`: the ends, older by one, and
   * each end with `value` after it when a credential may still go on there.
   */
  private continuing(tails: Tail[], value: string, next: Tail[]): [number, number][] {
    let keep = value.length;
    let cut = 0;
    for (const t of tails) {
      const b = t.text.length;
      const joined = t.text + value;
      const spans = this.spans(joined);
      for (const span of spans) {
        const from = Math.max(span.from, b);
        if (span.start >= b || from >= span.end) continue;
        keep = Math.min(keep, from - b);
        cut = Math.max(cut, span.end - b);
      }
      const end = this.tailOf(joined, spans);
      if (end !== null) next.push({ text: end, age: 0 });
      if (t.age + 1 < TAIL_VALUES) next.push({ text: t.text, age: t.age + 1 });
    }
    return cut === 0 ? [] : [[keep, cut]];
  }

  /** Stores a field's ends, the youngest first, without repeats (none: the field is forgotten). */
  private keep(key: string, leaf: string | number, tails: Tail[]): void {
    const seen = new Set<string>();
    const kept: Tail[] = [];
    for (const t of tails.sort((a, b) => a.age - b.age)) {
      if (seen.has(t.text) || kept.length === MAX_TAILS) continue;
      seen.add(t.text);
      kept.push(t);
    }
    this.fields.delete(key);
    if (this.fields.size === 0) this.leaves.clear();
    if (kept.length === 0) return;
    this.fields.set(key, kept);
    this.leaves.add(leaf);
    if (this.fields.size > MAX_FIELDS) this.fields.delete(this.fields.keys().next().value as string);
  }

  /**
   * The end of a text that the next value may continue into a credential (null: none may): its last WINDOW
   * characters when a credential's word is in them, the start of one that ends it; a credential still open at the end
   * and longer than that is kept as its start and the end of its value (a `0` between, a value character and
   * a token's mark, so the shortened text reads as the whole did).
   */
  private tailOf(text: string, spans: Span[]): string | null {
    let open: Span | undefined;
    for (const span of spans) if (span.end === text.length && (!open || span.start < open.start)) open = span;
    if (open && open.start < text.length - WINDOW) {
      const head = open.from + VALUE_HEAD;
      const end = text.length - VALUE_END;
      return head < end ? `${text.slice(open.start, head)}0${text.slice(end)}` : text.slice(open.start);
    }
    const window = text.slice(-WINDOW);
    if (open || HEADER_HINT.test(window)) return window;
    // Only a word's start: a credential can start there alone (and the character before it tells a word start).
    return endsInWord(window) ? text.slice(-LONGEST_START - 1) : null;
  }

  /** The header-shaped credentials in a text, as SecretRedactor.text() finds them (HEADER_VALUE, BEARER). */
  private spans(text: string): Span[] {
    if (!HEADER_HINT.test(text)) return [];
    const out: Span[] = [];
    for (const m of text.matchAll(HEADER_VALUE)) {
      const value = m[3] as string;
      if (value.endsWith(REDACTED)) continue;
      const end = m.index + m[0].length;
      const quote = /^\\*["']/.exec(value)?.[0] ?? '';
      const scheme = this.errorText ? '' : (/^(?:bearer|basic)\s+/i.exec(value)?.[0] ?? '');
      out.push({ start: m.index, from: end - value.length + quote.length + scheme.length, end });
    }
    for (const m of text.matchAll(this.bearer)) {
      const word = /^bearer\s+/i.exec(m[0])?.[0] ?? '';
      out.push({ start: m.index, from: m.index + word.length, end: m.index + m[0].length });
    }
    const at = Math.max(0, text.length - WINDOW);
    const end = text.slice(at);
    const m = OPEN_BEARER.exec(end) ?? OPEN_MARKED.exec(end);
    // Not when a credential text() replaces reaches the end already.
    if (m && !out.some((span) => span.end === text.length)) {
      const word = /^bearer\s+/i.exec(m[0])?.[0] ?? '';
      out.push({ start: at + m.index, from: at + m.index + word.length, end: text.length, eager: true });
    }
    return out;
  }
}

/** Whether a text ends with the start of a credential's word (`Author`, `x-api`, `Bea`), at a word start. */
function endsInWord(text: string): boolean {
  const end = text.slice(-LONGEST_START - 1).toLowerCase();
  for (let i = end.length - 1; i >= Math.max(0, end.length - LONGEST_START); i--) {
    if (!inWords(end.charCodeAt(i))) return false;
    if ((i === 0 || !wordChar(end.charCodeAt(i - 1))) && WORD_STARTS.has(end.slice(i))) return true;
  }
  return false;
}

/** A character of WORDS (lower case): a letter, `-` or `_`. */
function inWords(c: number): boolean {
  return (c >= 97 && c <= 122) || c === 45 || c === 95;
}

/** A character that continues a word (lower case): before a word start none may stand. */
function wordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
}
