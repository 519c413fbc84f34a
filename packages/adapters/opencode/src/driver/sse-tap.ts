import { SseBlockSplitter } from '@agentlane/engine-kit';

/**
 * The most characters one SSE event of OpenCode's `/event` stream may hold (the built-in engine's
 * MAX_PENDING_EVENT_CHARS): far above any real event, far below what parsing it would cost. Past it the
 * event is skipped to its end instead of buffered (64 MB without a blank line grew to ~1 GB), and the
 * stream goes on with the next event.
 */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * One SSE event: its `data:` lines joined by LF (undefined when it had none), and its `id:`. `tooLarge`: the
 * event passed the cap after that many characters and was skipped (no data, no id).
 */
export interface SseEvent {
  data: string | undefined;
  id: string | undefined;
  tooLarge?: number;
}

/**
 * Splits OpenCode's `/event` stream into events the way its SDK does (data lines joined by LF after `data:`
 * and spaces), but in linear time and with a cap on one event (engine-kit's SseBlockSplitter; the SDK
 * rewrote and re-split its whole buffer on every read: 15 s per 20 MB event). An event over the cap is
 * skipped, nothing of it held: one such event used to stop the stream, and every later turn on it failed.
 */
export class SseSplitter {
  private readonly blocks: SseBlockSplitter;

  constructor(readonly maxEventChars = MAX_EVENT_CHARS) {
    this.blocks = new SseBlockSplitter(
      maxEventChars,
      // Never built: oversized events are skipped, not fatal.
      (max) => new Error(`an OpenCode event was larger than ${max} characters`),
      { skipOversized: true },
    );
  }

  /** Characters of an unfinished event held now (never more than the cap). */
  get heldChars(): number {
    return this.blocks.heldChars;
  }

  /** The events the bytes completed, an oversized one as `{ tooLarge }` where it was. */
  feed(bytes: Uint8Array): SseEvent[] {
    return this.blocks
      .blocks(bytes)
      .map((b) =>
        typeof b === 'string' ? parseBlock(b) : { data: undefined, id: undefined, tooLarge: b.chars },
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
