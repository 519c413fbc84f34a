import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import type { JsonValue } from '@agentlane/contract';

export type WireDirection = 'agent->client' | 'client->agent';

/** Called for every message in wire order, with the line that carried it (without its newline). */
export type RecordWire = (dir: WireDirection, msg: JsonValue, raw: string) => void;

/** The SDK's limit for one incoming message; a longer line fails the connection instead of growing forever. */
const MAX_LINE_CHARS = 32 * 1024 * 1024;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Newline-delimited JSON-RPC over an engine's stdio, as the SDK's `ndJsonStream` does it, except that each
 * message is recorded together with the exact line it travelled in (incoming before the SDK dispatches it,
 * outgoing before it is written), so the store's raw sidecar holds the native bytes and not a re-encoding.
 * A line that is not a JSON object is answered as the SDK would (-32700 / -32600, id null) and not recorded.
 */
export function recordedNdJsonStream(
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
  record: RecordWire,
): Stream {
  const encoder = new TextEncoder();
  const writer = output.getWriter();
  const send = (line: string) => writer.write(encoder.encode(`${line}\n`));
  const refuse = (code: number, message: string) =>
    send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } })).catch(() => undefined);

  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const readable = new ReadableStream<AnyMessage>({
    async start(controller) {
      const decoder = new TextDecoder();
      reader = input.getReader();
      let pending = '';
      // How much of `pending` is known to hold no newline, so a long line is scanned once, not per chunk.
      let scanned = 0;
      const take = (line: string) => {
        const raw = line.endsWith('\r') ? line.slice(0, -1) : line;
        if (raw.trim().length === 0) return;
        let msg: unknown;
        try {
          msg = JSON.parse(raw);
        } catch {
          void refuse(-32700, 'Parse error');
          return;
        }
        if (!isRecord(msg)) {
          void refuse(-32600, 'Invalid Request');
          return;
        }
        record('agent->client', msg as JsonValue, raw);
        controller.enqueue(msg as unknown as AnyMessage);
      };
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          pending += decoder.decode(value, { stream: true });
          let start = 0;
          let newline = pending.indexOf('\n', scanned);
          while (newline >= 0) {
            take(pending.slice(start, newline));
            start = newline + 1;
            newline = pending.indexOf('\n', start);
          }
          pending = pending.slice(start);
          scanned = pending.length;
          if (pending.length > MAX_LINE_CHARS) {
            throw new Error(`the agent sent a line longer than ${MAX_LINE_CHARS} characters`);
          }
        }
        take(pending + decoder.decode());
        controller.close();
      } catch (error) {
        controller.error(error);
      } finally {
        reader.releaseLock();
      }
    },
    cancel(reason) {
      return reader?.cancel(reason);
    },
  });

  const writable = new WritableStream<AnyMessage>({
    write(message) {
      const line = JSON.stringify(message);
      record('client->agent', message as unknown as JsonValue, line);
      return send(line);
    },
    // Like the SDK's stream, closing the connection leaves the engine's stdin to the process's own end.
  });
  return { readable, writable };
}
