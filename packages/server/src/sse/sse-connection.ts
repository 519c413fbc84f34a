import type { ServerResponse } from 'node:http';
import type { StreamEvent } from '@agentlane/contract';
import type { SubscriptionFlow } from '@agentlane/lane';
import { ReplayPacer } from './replay-pacer.js';
import { formatSseComment, formatSseFrame } from './sse-format.js';

export interface SseConnectionOptions {
  /** Interval of `: heartbeat` comments. */
  heartbeatMs: number;
  /**
   * Unsent bytes a connection may hold. Above it for longer than slowConsumerMs without draining, or above
   * maxBurstBytes at any moment, the connection is dropped as a slow consumer: memory per connection stays
   * bounded while a healthy reader may still absorb a burst (a replay page, a batch of rows).
   */
  maxBufferBytes: number;
  slowConsumerMs: number;
  maxBurstBytes: number;
  /** Reconnect hint sent with `stream.closing`. */
  retryMs: number;
  /** Told each time a connection is dropped as a slow consumer (the metrics count it). */
  onSlowConsumer?: () => void;
}

/**
 * One serialization per committed row, shared by every connection of one server. Live fan-out hands every
 * subscription the same stored event object (WeakMap hit); replays read their own copies from the store, so
 * a bounded LRU keyed by what identifies a row's frame shares those too.
 */
export class FrameCache {
  readonly #byObject = new WeakMap<object, { key: string; frame: string }>();
  readonly #lru = new Map<string, string>();
  #lruChars = 0;

  /**
   * Bounded by count and by size: 20,000 frames of a thread of 60 KB rows were 1.2 GB, held for as long as
   * the server ran.
   */
  constructor(
    private readonly maxEntries = 20_000,
    private readonly maxChars = 32 * 1024 * 1024,
  ) {}

  frame(event: StreamEvent): string {
    if (!('event' in event)) return formatSseFrame({ event: event.type, data: JSON.stringify(event) });
    const e = event.event;
    const key = `${e.threadId}|${event.deliverySeq}|${e.eventId}|${event.revision}|${event.provisional ? 1 : 0}`;
    const cached = this.#byObject.get(e);
    if (cached?.key === key) return cached.frame;
    let frame = this.#lru.get(key);
    if (frame === undefined) {
      frame = formatSseFrame({ id: event.deliverySeq, event: event.type, data: JSON.stringify(event) });
      this.#lru.set(key, frame);
      this.#lruChars += frame.length;
      while (this.#lru.size > this.maxEntries || (this.#lruChars > this.maxChars && this.#lru.size > 1)) {
        const [oldest, dropped] = this.#lru.entries().next().value as [string, string];
        this.#lru.delete(oldest);
        this.#lruChars -= dropped.length;
      }
    }
    this.#byObject.set(e, { key, frame });
    return frame;
  }
}

/**
 * One SSE response. Writes are bounded: when more than maxBufferBytes sit unsent (the client stopped
 * reading), the stream is ended with `stream.closing` (slow_consumer) instead of growing server memory;
 * the client reconnects with Last-Event-ID and resumes from the store. A replay is paced (ReplayPacer).
 */
export class SseConnection implements SubscriptionFlow {
  #closed = false;
  readonly #pacer = new ReplayPacer();
  /** Set by ready() at the last row of a full page: the next read waits for the socket to drain. */
  #pageDone = false;
  #writableWait: Promise<void> | undefined;
  /** Ends the current writable() wait (the socket drained, or the stream closed). */
  #wake: (() => void) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #slowTimer: NodeJS.Timeout | undefined;
  readonly #closeListeners: (() => void)[] = [];

  constructor(
    readonly res: ServerResponse,
    readonly options: SseConnectionOptions,
    private readonly frames: FrameCache = new FrameCache(0),
  ) {}

  /** The thread this connection streams, when it streams one (its deletion ends the stream). */
  threadId: string | undefined;

  get closed(): boolean {
    return this.#closed;
  }

  /** Ends the stream with no reconnect hint: what it streamed is gone (a reconnect gets 404). */
  end(): void {
    if (!this.#closed) this.#end();
  }

  open(): void {
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    this.res.flushHeaders();
    this.res.socket?.setNoDelay(true);
    // The reconnect delay a standard EventSource uses when the connection drops (its own default is 3 s): a
    // field alone, no data, so no event is dispatched.
    this.res.write(`retry: ${Math.max(0, Math.floor(this.options.retryMs))}\n\n`);
    this.res.on('close', () => this.#markClosed());
    this.res.on('drain', () => {
      clearTimeout(this.#slowTimer);
      this.#slowTimer = undefined;
    });
    this.#heartbeat = setInterval(() => this.#write(formatSseComment('heartbeat')), this.options.heartbeatMs);
    this.#heartbeat.unref();
  }

  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#closeListeners.push(listener);
  }

  send(event: StreamEvent): boolean {
    const frame = this.frames.frame(event);
    this.#pacer.sent(frame.length);
    return this.#write(frame);
  }

  // SubscriptionFlow: the replay of a thread is written no faster than the client reads it. Within a page a
  // row waits once maxBufferBytes sit unsent; after a full page the next is read only once the socket has
  // taken what was written, so a replaying stream holds about one page and the socket's own buffer.

  ready(): boolean {
    this.#pageDone = this.#pacer.rowDelivered();
    return this.#canWrite();
  }

  writable(): Promise<void> {
    if (this.#canWrite()) return Promise.resolve();
    // One wait per drain, however often the replay asks: a listener per ask would pile up on a long replay.
    this.#writableWait ??= new Promise<void>((resolve) => {
      const wake = () => {
        this.res.off('drain', wake);
        this.#wake = undefined;
        this.#writableWait = undefined;
        resolve();
      };
      this.#wake = wake;
      this.res.on('drain', wake);
    });
    return this.#writableWait;
  }

  pageSize(): number {
    return this.#pacer.nextPage();
  }

  /** Pages of replay read for this stream so far. */
  get replayPages(): number {
    return this.#pacer.pages;
  }

  /**
   * Whether the replay may go on. 'drain' only comes after a write found the socket at its high-water mark,
   * so every wait is for an amount at or past it: below the mark counts as drained (a page end), and the
   * buffer allowance never counts below it (a smaller maxBufferBytes would wait for a drain that never comes).
   */
  #canWrite(): boolean {
    if (this.#closed) return true;
    const pending = this.res.writableLength;
    const mark = this.res.writableHighWaterMark;
    return this.#pageDone ? pending < mark : pending <= Math.max(this.options.maxBufferBytes, mark - 1);
  }

  /** Ends the stream on purpose, telling the client when to come back. */
  close(reason: 'shutdown' | 'slow_consumer' | 'run_settled', retryMs = this.options.retryMs): void {
    if (this.#closed) return;
    if (reason === 'slow_consumer') this.options.onSlowConsumer?.();
    const closing: StreamEvent = { type: 'stream.closing', reason, retryMs };
    this.res.write(formatSseFrame({ event: closing.type, data: JSON.stringify(closing), retryMs }));
    this.#end();
  }

  #write(chunk: string): boolean {
    if (this.#closed) return false;
    this.res.write(chunk);
    const pending = this.res.writableLength;
    // One frame larger than the burst (a row with a huge payload) is no sign of a slow reader by itself: the
    // burst closes a stream whose backlog before it was already past the buffer bound; the timer does the rest.
    if (pending > this.options.maxBurstBytes && pending - chunk.length > this.options.maxBufferBytes) {
      this.close('slow_consumer');
      return false;
    }
    if (pending > this.options.maxBufferBytes && this.#slowTimer === undefined) {
      this.#slowTimer = setTimeout(() => {
        if (this.res.writableLength > this.options.maxBufferBytes) this.close('slow_consumer');
        this.#slowTimer = undefined;
      }, this.options.slowConsumerMs);
      this.#slowTimer.unref();
    }
    return true;
  }

  #end(): void {
    this.#markClosed();
    this.res.end();
    // A client that is not reading never drains the final bytes; do not keep its socket (and buffer) around.
    const timer = setTimeout(() => this.res.destroy(), 2000);
    timer.unref();
    this.res.once('finish', () => clearTimeout(timer));
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#slowTimer);
    this.#wake?.();
    for (const listener of this.#closeListeners.splice(0)) listener();
  }
}
