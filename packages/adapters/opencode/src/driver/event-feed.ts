import type { JsonObject } from '@agentlane/contract';
import type { OpencodeClient } from '@opencode-ai/sdk/v2/client';
import { SseTap } from './sse-tap.js';

/** One event of the stream, with the SSE `data:` text it came in when known. */
type Listener = (event: JsonObject, raw: string | undefined) => void;

/**
 * One `/event` SSE subscription per session's project directory, opened before anything is prompted so no
 * frame is missed. Turns attach a listener for their duration; the SDK reconnects a dropped stream (deltas
 * missed meanwhile are covered by the next whole-part snapshot).
 */
export class EventFeed {
  private readonly listeners = new Set<Listener>();
  private readonly abort = new AbortController();

  private constructor() {}

  static async open(client: OpencodeClient, directory: string, timeoutMs = 15_000): Promise<EventFeed> {
    const feed = new EventFeed();
    let connected: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      connected = resolve;
    });
    const tap = new SseTap();
    const { stream } = await client.event.subscribe(
      { directory },
      { signal: feed.abort.signal, fetch: tap.fetch },
    );
    void (async () => {
      try {
        for await (const event of stream) {
          connected();
          const type =
            typeof event === 'object' && event !== null ? (event as { type?: unknown }).type : undefined;
          const raw = tap.next(typeof type === 'string' ? type : undefined);
          if (typeof event !== 'object' || event === null) continue;
          for (const listener of feed.listeners) listener(event as unknown as JsonObject, raw);
        }
      } catch {
        // closed (abort) or the server went away; the session notices through its process or requests.
      }
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the OpenCode event stream did not connect')), timeoutMs);
    });
    try {
      await Promise.race([ready, timeout]);
    } catch (error) {
      feed.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return feed;
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.listeners.clear();
    this.abort.abort();
  }
}
