import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseReadHandlers {
  /** Any bytes arrived (frames or heartbeat comments): the connection is alive. */
  onActivity?(): void;
  /** The server's `retry:` field. */
  onRetry?(ms: number): void;
}

/**
 * Yields the SSE messages of a streaming response body as they arrive, parsed by eventsource-parser.
 * Reading is pulled by the consumer (natural backpressure); leaving the loop early cancels the body.
 */
export async function* sseMessages(
  body: ReadableStream<Uint8Array>,
  handlers: SseReadHandlers = {},
): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (message) => pending.push(message),
    onRetry: (ms) => handlers.onRetry?.(ms),
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      handlers.onActivity?.();
      parser.feed(decoder.decode(value, { stream: true }));
      while (pending.length > 0) yield pending.shift()!;
    }
    parser.feed(decoder.decode());
    while (pending.length > 0) yield pending.shift()!;
  } finally {
    await reader.cancel().catch(() => {});
  }
}
