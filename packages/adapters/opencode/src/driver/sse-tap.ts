import { SseBlockSplitter } from '@agentlane/engine-kit';

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
 * Splits OpenCode's `/event` stream into events the way its SDK does (data lines joined by LF after `data:`
 * and spaces), but in linear time and with a cap on one event (engine-kit's SseBlockSplitter; the SDK
 * rewrote and re-split its whole buffer on every read: 15 s per 20 MB event).
 */
export class SseSplitter {
  private readonly blocks: SseBlockSplitter;

  constructor(maxEventChars = MAX_EVENT_CHARS) {
    this.blocks = new SseBlockSplitter(
      maxEventChars,
      (max) =>
        new SseEventTooLarge(
          `an OpenCode event was larger than ${max} characters (or never ended): the event stream was stopped`,
        ),
    );
  }

  /** Set once an event grew past the cap: the stream must stop (events completed before it still count). */
  get overflow(): SseEventTooLarge | null {
    return this.blocks.overflow as SseEventTooLarge | null;
  }

  /** The events the bytes completed (none once `overflow` is set). */
  feed(bytes: Uint8Array): SseEvent[] {
    return this.blocks.feed(bytes).map(parseBlock);
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
