/**
 * Keeps the `data:` text of every SSE event the OpenCode SDK will yield, in order, so each parsed event can
 * be stored with the exact text it came in (the store's raw sidecar). The SDK parses the stream itself and
 * hands out only parsed objects, so the tap is a `fetch` for its subscription that passes the bytes through
 * unchanged and splits events the way the SDK's `createSseClient` does (CRLF and CR as LF, events divided by
 * a blank line, an event yielded only when it has data lines, those joined by LF after `data:` and spaces).
 */
export class SseTap {
  private readonly texts: string[] = [];

  /** A fetch for the SDK's SSE client: every (re)connection starts a fresh split. */
  readonly fetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    // A reconnect starts a new stream: what the old one left unread is never yielded.
    this.texts.length = 0;
    if (!response.ok || !response.body) return response;
    const decoder = new TextDecoder();
    let buffer = '';
    const texts = this.texts;
    const split = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buffer += decoder.decode(chunk, { stream: true });
        buffer = buffer.replace(/\r\n/g, '\n').replace(/\r/g, '\n');
        const events = buffer.split('\n\n');
        buffer = events.pop() ?? '';
        for (const event of events) {
          const data = event
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.replace(/^data:\s*/, ''));
          if (data.length > 0) texts.push(data.join('\n'));
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(split), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

  /**
   * The text of the event the SDK yields next (call once per yielded event). Undefined when the text does not
   * name the event's type: better no raw bytes than another event's.
   */
  next(type: string | undefined): string | undefined {
    const text = this.texts.shift();
    if (text === undefined || type === undefined) return undefined;
    return text.includes(JSON.stringify(type)) ? text : undefined;
  }
}
