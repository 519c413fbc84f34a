/** In skip mode, what an event longer than the cap becomes: its place in the stream, without its text. */
export interface SkippedSseBlock {
  skipped: true;
  /** Characters of it seen when it was given up: more than the cap (the rest is read past, not counted). */
  chars: number;
}

export type SseBlock = string | SkippedSseBlock;

export interface SseBlockSplitterOptions {
  /**
   * An event longer than the cap is skipped to its end (a SkippedSseBlock in its place, from `blocks()`) and
   * the stream goes on, instead of stopping it: for a long-lived stream of independent events, where one
   * bad event must not end every later one. Nothing of it is held meanwhile.
   */
  skipOversized?: boolean;
}

/**
 * Splits a server-sent event stream into its events' text blocks in linear time, with a cap on one event.
 *
 * Why not a general SSE parser: the ones at hand append every read to a buffer and re-scan it, so a stream
 * that never sends a blank line costs quadratic time and unbounded memory (64 MB without one grew to ~1 GB).
 * Here each read is scanned once for a boundary, text held without one is kept in pieces and joined only when
 * the boundary comes, and an event longer than the cap stops the stream (or, with `skipOversized`, is read
 * past to its end). Line ends are normalised as the SSE specification says (CRLF and CR as LF); events are
 * divided by a blank line.
 */
export class SseBlockSplitter {
  private readonly decoder = new TextDecoder();
  private pieces: string[] = [];
  private pendingChars = 0;
  private lastChar = '';
  /** The last read ended with '\r': a '\n' first in the next one is the rest of that line end. */
  private cr = false;
  /** Reading past an event longer than the cap, to its end (skip mode). */
  private skipping = false;
  private readonly skip: boolean;

  /** Set once an event grew past the cap: the stream must stop (blocks returned before it still count). */
  overflow: Error | null = null;

  /** `tooLarge` builds the error `overflow` is set to, in the caller's words. */
  constructor(
    private readonly maxEventChars: number,
    private readonly tooLarge: (maxEventChars: number) => Error,
    options: SseBlockSplitterOptions = {},
  ) {
    this.skip = options.skipOversized === true;
  }

  /** Characters of an unfinished event held now (never more than the cap), a held line end aside. */
  get heldChars(): number {
    return this.pendingChars - (this.lastChar === '\n' ? 1 : 0);
  }

  /** The text of each event the bytes completed, without its blank line (none once `overflow` is set). */
  feed(bytes: Uint8Array): string[] {
    return this.blocks(bytes).filter((b): b is string => typeof b === 'string');
  }

  /** feed(), with a SkippedSseBlock where an event longer than the cap was (skip mode). */
  blocks(bytes: Uint8Array): SseBlock[] {
    if (this.overflow) return [];
    let text = this.decoder.decode(bytes, { stream: true });
    if (this.cr && text !== '') {
      // Only the very next character can complete that CRLF (a read of just '\n' must not leave it pending).
      if (text.startsWith('\n')) text = text.slice(1);
      this.cr = false;
    }
    if (text === '') return [];
    this.cr = text.endsWith('\r');
    text = text.replace(/\r\n?/g, '\n');
    const out: SseBlock[] = [];
    if (this.skipping) {
      const end = this.skippedTo(text);
      if (end < 0) {
        this.lastChar = text.at(-1) ?? '';
        return out;
      }
      this.skipping = false;
      this.lastChar = '';
      text = text.slice(end);
      if (text === '') return out;
    }
    this.split(text, out);
    return out;
  }

  /** Where in `text` the event being skipped ends (just past its blank line); -1 when it goes on. */
  private skippedTo(text: string): number {
    if (this.lastChar === '\n' && text.startsWith('\n')) return 1;
    const blank = text.indexOf('\n\n');
    return blank < 0 ? -1 : blank + 2;
  }

  private split(text: string, out: SseBlock[]): void {
    const straddles = this.lastChar === '\n' && text.startsWith('\n');
    if (!straddles && !text.includes('\n\n')) {
      this.pieces.push(text);
      this.hold(this.pendingChars + text.length, text, out);
      return;
    }
    const all = this.pieces.join('') + text;
    let start = 0;
    for (let end = all.indexOf('\n\n'); end >= 0; end = all.indexOf('\n\n', start)) {
      if (end - start <= this.maxEventChars) out.push(all.slice(start, end));
      else if (this.skip) out.push({ skipped: true, chars: end - start });
      else {
        this.stop();
        return;
      }
      start = end + 2;
    }
    const rest = all.slice(start);
    this.pieces = rest === '' ? [] : [rest];
    this.hold(rest.length, rest, out);
  }

  private hold(chars: number, last: string, out: SseBlock[]): void {
    this.pendingChars = chars;
    this.lastChar = last.at(-1) ?? '';
    // A held last '\n' may be the first half of the event's blank line, not its text: an event of exactly
    // the cap, cut just after that '\n', was taken for one past it.
    if (chars - (this.lastChar === '\n' ? 1 : 0) <= this.maxEventChars) return;
    if (!this.skip) {
      this.stop();
      return;
    }
    // Said where the event starts to be skipped: an event that never ends still leaves its mark.
    out.push({ skipped: true, chars });
    this.pieces = [];
    this.pendingChars = 0;
    this.skipping = true;
  }

  private stop(): void {
    this.pieces = [];
    this.pendingChars = 0;
    this.overflow = this.tooLarge(this.maxEventChars);
  }
}
