import type { JsonObject } from '@agentlane/contract';
import type { HarnessFrame } from '@agentlane/engine-kit';
import { MAX_EVENT_CHARS, SseSplitter } from './sse-tap.js';

/** One event of the stream, with the SSE `data:` text it came in. */
type Listener = (event: JsonObject, raw: string | undefined) => void;

/** The `reason` of the frame.dropped harness frame that stands in for an event over the size cap. */
export const EVENT_TOO_LARGE = 'frame.too_large';

export interface EventFeedOptions {
  baseUrl: string;
  directory: string;
  fetch?: typeof fetch;
  /** How long the first connection may take to deliver its first event (`server.connected`). */
  connectTimeoutMs?: number;
  /** The waits before each reconnect after the stream ended or broke; when used up, the feed fails. */
  reconnectDelaysMs?: number[];
  maxEventChars?: number;
}

const DEFAULT_RECONNECT_DELAYS = [250, 1_000, 3_000];

/**
 * One `/event` SSE subscription per session's project directory, opened before anything is prompted so no
 * frame is missed. Turns attach a listener for their duration. The stream is read here, not by the SDK: its
 * parser rescans the whole buffer per read (quadratic in an event's size), stops silently when the server
 * ends the stream, and retries forever when it breaks. A stream that ends or breaks is reconnected a bounded
 * number of times (a connection that delivered events resets the count); past that the feed fails:
 * `onFailure` listeners (the running turn) learn why. An event over the size cap is skipped to its end (held
 * nowhere) and the stream goes on; `onSkipped` listeners (the running turn) get a frame.dropped harness frame
 * in its place, which the translator turns into a harness.warning.
 */
export class EventFeed {
  private readonly listeners = new Set<Listener>();
  private readonly failureListeners = new Set<(error: Error) => void>();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly skipListeners = new Set<(frame: HarnessFrame) => void>();
  private readonly abort = new AbortController();
  /** Why the feed stopped for good (null while it runs or reconnects). */
  failure: Error | null = null;
  private lastEventId: string | undefined;

  private constructor(private readonly options: EventFeedOptions) {}

  static async open(options: EventFeedOptions): Promise<EventFeed> {
    const feed = new EventFeed(options);
    const timeoutMs = options.connectTimeoutMs ?? 15_000;
    let timer: NodeJS.Timeout | undefined;
    let firstRun: Promise<number> = Promise.resolve(0);
    const first = new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error('the OpenCode event stream did not connect')), timeoutMs);
      firstRun = feed.connect(resolve);
      firstRun.then(
        () => reject(new Error('the OpenCode event stream ended before it connected')),
        (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))),
      );
    });
    try {
      await first;
    } catch (error) {
      feed.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    void feed.keepReading(firstRun);
    return feed;
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called once when the feed fails for good (at once if it already has). */
  onFailure(listener: (error: Error) => void): () => void {
    if (this.failure) listener(this.failure);
    else this.failureListeners.add(listener);
    return () => this.failureListeners.delete(listener);
  }

  /** Called after each reconnect (events of the gap are lost: the listener may resynchronise). */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /**
   * Called with a frame.dropped harness frame where an event over the size cap was skipped. Which session it
   * was about cannot be read from it: it goes to whoever listens (the running turn of the feed's session).
   */
  onSkipped(listener: (frame: HarnessFrame) => void): () => void {
    this.skipListeners.add(listener);
    return () => this.skipListeners.delete(listener);
  }

  close(): void {
    this.listeners.clear();
    this.failureListeners.clear();
    this.reconnectListeners.clear();
    this.skipListeners.clear();
    this.abort.abort();
  }

  /**
   * Reads one connection to its end. `connected` is called at its first event. Resolves when the server
   * ends the stream, rejects when it cannot be opened or breaks.
   */
  private async connect(connected: () => void): Promise<number> {
    const { baseUrl, directory } = this.options;
    const url = eventUrl(baseUrl, directory);
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.lastEventId !== undefined) headers['last-event-id'] = this.lastEventId;
    const response = await (this.options.fetch ?? fetch)(url, { headers, signal: this.abort.signal });
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the OpenCode event stream failed: HTTP ${response.status}`);
    }
    const splitter = new SseSplitter(this.options.maxEventChars ?? MAX_EVENT_CHARS);
    const reader = response.body.getReader();
    let count = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return count;
        for (const event of splitter.feed(value)) {
          if (event.tooLarge !== undefined) this.skipped(event.tooLarge, splitter.maxEventChars);
          if (event.id !== undefined) this.lastEventId = event.id;
          if (event.data === undefined) continue;
          if (count++ === 0) connected();
          this.deliver(event.data);
        }
      }
    } finally {
      reader.releaseLock();
      if (!this.abort.signal.aborted) void response.body.cancel().catch(() => undefined);
    }
  }

  private skipped(chars: number, max: number): void {
    const frame: HarnessFrame = {
      harness: 'frame.dropped',
      reason: EVENT_TOO_LARGE,
      message: `an OpenCode event larger than ${max} characters was skipped; the event stream goes on`,
      detail: { maxEventChars: max, charsSeen: chars },
    };
    for (const listener of this.skipListeners) listener(frame);
  }

  private deliver(data: string): void {
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return; // not JSON: the SDK would yield the string, which no listener reads
    }
    if (typeof event !== 'object' || event === null || Array.isArray(event)) return;
    for (const listener of this.listeners) listener(event as JsonObject, data);
  }

  /** Reads on after the first connection: reconnects when the stream ends or breaks, a bounded number of times. */
  private async keepReading(current: Promise<number>): Promise<void> {
    const delays = this.options.reconnectDelaysMs ?? DEFAULT_RECONNECT_DELAYS;
    let attempt = 0;
    for (;;) {
      let reason = 'the server ended it';
      try {
        // A connection that carried more than its greeting worked: the count starts over.
        if ((await current) > 1) attempt = 0;
      } catch (error) {
        if (this.abort.signal.aborted) return;
        reason = error instanceof Error ? error.message : String(error);
      }
      if (this.abort.signal.aborted) return;
      if (attempt >= delays.length) {
        const tries = `${delays.length} attempt${delays.length === 1 ? '' : 's'}`;
        return this.fail(
          new Error(
            `the OpenCode event stream ended (${reason}) and could not be re-established after ${tries}`,
          ),
        );
      }
      await sleep(delays[attempt] ?? 0, this.abort.signal);
      attempt++;
      if (this.abort.signal.aborted) return;
      current = this.connect(() => {
        for (const listener of this.reconnectListeners) listener();
      });
    }
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const listener of this.failureListeners) listener(error);
    this.failureListeners.clear();
    this.abort.abort();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** `/event` under the server's base URL, keeping its path (a server behind a proxy's path prefix), as the SDK does. */
export function eventUrl(baseUrl: string, directory: string): URL {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/event`);
  url.searchParams.set('directory', directory);
  return url;
}
