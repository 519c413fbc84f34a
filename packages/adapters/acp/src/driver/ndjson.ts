import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import type { JsonValue } from '@agentlane/contract';

export type WireDirection = 'agent->client' | 'client->agent';

/**
 * Called for every message in wire order, with the line that carried it (without its newline). For an
 * incoming message, `false`: recorded, but not handed to the SDK (which could only log it).
 */
export type RecordWire = (dir: WireDirection, msg: JsonValue, raw: string) => unknown;

export interface NdJsonHooks {
  /** An incoming line that is not a JSON object (answered -32700 / -32600 and not dispatched). */
  invalid?(reason: 'parse_error' | 'not_an_object', raw: string): void;
  /** The agent's output ended (`error` undefined) or could not be read (a line over the limit, a read error). */
  ended?(error: unknown): void;
}

/**
 * The limit for one incoming line, in bytes (the SDK's 32 Mi, counted on the wire so the check needs no
 * decoding): a longer line fails the connection instead of growing forever.
 */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Splits incoming bytes into lines in linear time: the chunks of an unfinished line are kept in a list, only
 * each new chunk is searched for a newline, and a line is joined and decoded once, when it ends. (A string
 * that grows by `+=` and is searched on every chunk is flattened each time: quadratic in a long line.)
 * A newline byte never occurs inside a multi-byte UTF-8 sequence, so each line decodes on its own.
 */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private bytes = 0;
  private readonly decoder = new TextDecoder();

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    while (newline >= 0) {
      this.append(chunk.subarray(start, newline));
      this.flush();
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
  }

  /** The input ended: a last line without its newline still counts. */
  end(): void {
    this.flush();
  }

  /** Bytes of the unfinished line held so far. */
  get pendingBytes(): number {
    return this.bytes;
  }

  private append(part: Uint8Array): void {
    if (part.length === 0) return;
    this.bytes += part.length;
    if (this.bytes > MAX_LINE_BYTES) {
      this.parts = [];
      throw new Error(`the agent sent a line longer than ${MAX_LINE_BYTES} bytes`);
    }
    this.parts.push(part);
  }

  private flush(): void {
    const parts = this.parts;
    const total = this.bytes;
    this.parts = [];
    this.bytes = 0;
    if (parts.length === 0) {
      this.onLine('');
      return;
    }
    let line = this.decoder.decode(
      parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts, total),
    );
    if (line.endsWith('\r')) line = line.slice(0, -1);
    this.onLine(line);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Newline-delimited JSON-RPC over an engine's stdio, as the SDK's `ndJsonStream` does it, except that each
 * message is recorded together with the exact line it travelled in (incoming before the SDK dispatches it,
 * outgoing before it is written), so the store's raw sidecar holds the native bytes and not a re-encoding.
 * A line that is not a JSON object is answered as the SDK would (-32700 / -32600, id null), not dispatched,
 * and handed to `onInvalid` (the session records it as a warning).
 */
export function recordedNdJsonStream(
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
  record: RecordWire,
  hooks: NdJsonHooks = {},
): Stream {
  const onInvalid = hooks.invalid;
  const encoder = new TextEncoder();
  const writer = output.getWriter();
  const send = (line: string) => writer.write(encoder.encode(`${line}\n`));
  const refuse = (code: number, message: string) =>
    send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } })).catch(() => undefined);

  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const readable = new ReadableStream<AnyMessage>({
    async start(controller) {
      reader = input.getReader();
      const take = (raw: string) => {
        if (raw.trim().length === 0) return;
        let msg: unknown;
        try {
          msg = JSON.parse(raw);
        } catch {
          onInvalid?.('parse_error', raw);
          void refuse(-32700, 'Parse error');
          return;
        }
        if (!isRecord(msg)) {
          onInvalid?.('not_an_object', raw);
          void refuse(-32600, 'Invalid Request');
          return;
        }
        if (record('agent->client', msg as JsonValue, raw) === false) return;
        controller.enqueue(msg as unknown as AnyMessage);
      };
      const lines = new LineSplitter(take);
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          lines.push(value);
        }
        lines.end();
        hooks.ended?.(undefined);
        controller.close();
      } catch (error) {
        hooks.ended?.(error);
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
