import type { StreamEvent } from '@agentlane/contract';
import { createParser } from 'eventsource-parser';

export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: StreamEvent;
}

/**
 * Reads an SSE response in a test: collects parsed frames, lets a test wait for a condition, and reports how
 * the stream ended. Uses a maintained SSE parser, so the server's framing is checked by a real one.
 */
export class SseReader {
  readonly messages: SseMessage[] = [];
  comments = 0;
  ended = false;
  readonly done: Promise<void>;
  readonly #abort = new AbortController();
  #waiters: (() => void)[] = [];
  status = 0;
  headers: Headers | undefined;

  constructor(url: string, init: { headers?: Record<string, string>; method?: string; body?: string } = {}) {
    this.done = this.#run(url, init);
  }

  async #run(
    url: string,
    init: { headers?: Record<string, string>; method?: string; body?: string },
  ): Promise<void> {
    try {
      const res = await fetch(url, { ...init, signal: this.#abort.signal });
      this.status = res.status;
      this.headers = res.headers;
      const parser = createParser({
        onEvent: (e) => {
          this.messages.push({ id: e.id, event: e.event, data: JSON.parse(e.data) as StreamEvent });
          this.#wake();
        },
        onComment: () => {
          this.comments++;
          this.#wake();
        },
      });
      if (!res.body) return;
      const decoder = new TextDecoder();
      for await (const chunk of res.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    } finally {
      this.ended = true;
      this.#wake();
    }
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  get events(): StreamEvent[] {
    return this.messages.map((m) => m.data);
  }

  /** Rows (canonical events) received, as deliverySeq numbers. */
  get seqs(): number[] {
    return this.events.flatMap((e) => ('event' in e ? [e.deliverySeq] : []));
  }

  async waitFor(predicate: (r: SseReader) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (this.ended)
        throw new Error(
          `stream ended before condition; got ${JSON.stringify(this.events.map((e) => e.type))}`,
        );
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timeout; got ${JSON.stringify(this.events.map((e) => e.type))}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.#abort.abort();
  }
}
