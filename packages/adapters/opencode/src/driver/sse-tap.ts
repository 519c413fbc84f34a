/**
 * The most characters one SSE event of OpenCode's `/event` stream may hold (the built-in engine's
 * MAX_PENDING_EVENT_CHARS): far above any real event, far below what parsing it would cost. Past it the
 * stream is failed instead of buffered (64 MB without a blank line grew to ~1 GB).
 */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** An event of the stream grew past the cap without its end (a blank line). */
export class SseEventTooLarge extends Error {
  override name = 'SseEventTooLarge';
}

/** One SSE event: its `data:` lines joined by LF (undefined when it had none), and its `id:`. */
export interface SseEvent {
  data: string | undefined;
  id: string | undefined;
}

/**
 * Splits an SSE stream into events the way OpenCode's SDK does (CRLF and CR as LF, events divided by a blank
 * line, data lines joined by LF after `data:` and spaces), but in linear time: each read is scanned once for
 * a boundary and text held without one is kept in pieces, joined when the boundary comes. (The SDK appends
 * every read to its buffer, rewrites and re-splits the whole buffer: 15 s per 20 MB event.)
 */
export class SseSplitter {
  private readonly decoder = new TextDecoder();
  private pieces: string[] = [];
  private pendingChars = 0;
  private lastChar = '';
  /** The last read ended with '\r': a '\n' first in the next one is the rest of that line end. */
  private cr = false;

  constructor(private readonly maxEventChars = MAX_EVENT_CHARS) {}

  /** Set once an event grew past the cap: the stream must stop (events completed before it still count). */
  overflow: SseEventTooLarge | null = null;

  /** The events the bytes completed (none once `overflow` is set). */
  feed(bytes: Uint8Array): SseEvent[] {
    if (this.overflow) return [];
    let text = this.decoder.decode(bytes, { stream: true });
    if (this.cr && text.startsWith('\n')) text = text.slice(1);
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
    const events: SseEvent[] = [];
    let start = 0;
    for (let end = all.indexOf('\n\n'); end >= 0; end = all.indexOf('\n\n', start)) {
      if (end - start > this.maxEventChars) {
        this.tooLarge();
        return events;
      }
      events.push(parseBlock(all.slice(start, end)));
      start = end + 2;
    }
    const rest = all.slice(start);
    this.pieces = rest === '' ? [] : [rest];
    this.hold(rest.length, rest);
    return events;
  }

  private hold(chars: number, last: string): void {
    this.pendingChars = chars;
    this.lastChar = last.at(-1) ?? '';
    if (chars > this.maxEventChars) this.tooLarge();
  }

  private tooLarge(): void {
    this.pieces = [];
    this.pendingChars = 0;
    this.overflow = new SseEventTooLarge(
      `an OpenCode event was larger than ${this.maxEventChars} characters (or never ended): the event stream was stopped`,
    );
  }
}

function parseBlock(block: string): SseEvent {
  const data: string[] = [];
  let id: string | undefined;
  for (const line of block.split('\n')) {
    if (line.startsWith('data:')) data.push(line.replace(/^data:\s*/, ''));
    else if (line.startsWith('id:')) id = line.replace(/^id:\s*/, '');
  }
  return { data: data.length > 0 ? data.join('\n') : undefined, id };
}
