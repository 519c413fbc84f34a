/**
 * SSE frame formatting (the WHATWG event-stream format). Every line of `data` gets its own `data:` prefix so
 * a payload with newlines survives; `id` and `event` must be single-line, so a newline there is refused
 * rather than silently splitting the frame.
 */
export interface SseFrame {
  id?: string | number;
  event?: string;
  data: string;
  retryMs?: number;
}

function assertSingleLine(field: string, value: string): void {
  if (/[\r\n]/.test(value)) throw new Error(`SSE ${field} must not contain a newline`);
}

export function formatSseFrame(frame: SseFrame): string {
  let out = '';
  if (frame.id !== undefined) {
    const id = String(frame.id);
    assertSingleLine('id', id);
    out += `id: ${id}\n`;
  }
  if (frame.event !== undefined) {
    assertSingleLine('event', frame.event);
    out += `event: ${frame.event}\n`;
  }
  if (frame.retryMs !== undefined) out += `retry: ${Math.max(0, Math.floor(frame.retryMs))}\n`;
  for (const line of frame.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** A comment line: ignored by parsers, keeps proxies and idle timers from closing the connection. */
export function formatSseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}
