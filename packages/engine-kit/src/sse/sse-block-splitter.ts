/**
 * Splits a server-sent event stream into its events' text blocks in linear time, with a cap on one event.
 *
 * Why not a general SSE parser: the ones at hand append every read to a buffer and re-scan it, so a stream
 * that never sends a blank line costs quadratic time and unbounded memory (64 MB without one grew to ~1 GB).
 * Here each read is scanned once for a boundary, text held without one is kept in pieces and joined only when
 * the boundary comes, and an event longer than the cap stops the stream. Line ends are normalised as the SSE
 * specification says (CRLF and CR as LF); events are divided by a blank line.
 */
export class SseBlockSplitter {
  private readonly decoder = new TextDecoder();
  private pieces: string[] = [];
  private pendingChars = 0;
  private lastChar = '';
  /** The last read ended with '\r': a '\n' first in the next one is the rest of that line end. */
  private cr = false;

  /** Set once an event grew past the cap: the stream must stop (blocks returned before it still count). */
  overflow: Error | null = null;

  /** `tooLarge` builds the error `overflow` is set to, in the caller's words. */
  constructor(
    private readonly maxEventChars: number,
    private readonly tooLarge: (maxEventChars: number) => Error,
  ) {}

  /** The text of each event the bytes completed, without its blank line (none once `overflow` is set). */
  feed(bytes: Uint8Array): string[] {
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
    const straddles = this.lastChar === '\n' && text.startsWith('\n');
    if (!straddles && !text.includes('\n\n')) {
      this.pieces.push(text);
      this.hold(this.pendingChars + text.length, text);
      return [];
    }
    const all = this.pieces.join('') + text;
    const blocks: string[] = [];
    let start = 0;
    for (let end = all.indexOf('\n\n'); end >= 0; end = all.indexOf('\n\n', start)) {
      if (end - start > this.maxEventChars) {
        this.stop();
        return blocks;
      }
      blocks.push(all.slice(start, end));
      start = end + 2;
    }
    const rest = all.slice(start);
    this.pieces = rest === '' ? [] : [rest];
    this.hold(rest.length, rest);
    return blocks;
  }

  private hold(chars: number, last: string): void {
    this.pendingChars = chars;
    this.lastChar = last.at(-1) ?? '';
    if (chars > this.maxEventChars) this.stop();
  }

  private stop(): void {
    this.pieces = [];
    this.pendingChars = 0;
    this.overflow = this.tooLarge(this.maxEventChars);
  }
}
