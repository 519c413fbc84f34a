import type { AnyMessage } from '@agentclientprotocol/sdk';
import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it, vi } from 'vitest';
import { recordedNdJsonStream, type WireDirection } from '../src/internal';

const bytes = (text: string) => new TextEncoder().encode(text);

/** An agent's stdout given as chunks, and the client's stdin collected as text. */
function wire(chunks: string[]) {
  const written: string[] = [];
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(bytes(c));
      controller.close();
    },
  });
  const decoder = new TextDecoder();
  const output = new WritableStream<Uint8Array>({ write: (c) => void written.push(decoder.decode(c)) });
  const recorded: { dir: WireDirection; msg: JsonValue; raw: string }[] = [];
  const stream = recordedNdJsonStream(output, input, (dir, msg, raw) => recorded.push({ dir, msg, raw }));
  return { stream, written, recorded };
}

async function readAll(stream: ReadableStream<AnyMessage>): Promise<AnyMessage[]> {
  const out: AnyMessage[] = [];
  for await (const m of stream as unknown as AsyncIterable<AnyMessage>) out.push(m);
  return out;
}

describe('recorded ndjson stream', () => {
  it('records each incoming message with its line exactly as sent, across chunks and CRLF', async () => {
    const first = '{"jsonrpc": "2.0", "method": "session/update",  "params": {"x": "é"}}';
    const second = '{"jsonrpc":"2.0","id":7,"result":{}}';
    const { stream, recorded } = wire([first.slice(0, 20), `${first.slice(20)}\r\n\n`, second]);
    const messages = await readAll(stream.readable);
    expect(messages).toEqual([JSON.parse(first), JSON.parse(second)]);
    expect(recorded.map((r) => r.raw)).toEqual([first, second]);
    expect(recorded.every((r) => r.dir === 'agent->client')).toBe(true);
  });

  it('answers a line that is no JSON object as the SDK does, and records nothing for it', async () => {
    const { stream, recorded, written } = wire(['not json\n[1,2]\n{"jsonrpc":"2.0","method":"ok"}\n']);
    expect(await readAll(stream.readable)).toEqual([{ jsonrpc: '2.0', method: 'ok' }]);
    expect(recorded.map((r) => r.raw)).toEqual(['{"jsonrpc":"2.0","method":"ok"}']);
    await new Promise((r) => setTimeout(r, 0));
    expect(written.map((w) => JSON.parse(w).error.code)).toEqual([-32700, -32600]);
  });

  it('records an outgoing message with the line it writes', async () => {
    const { stream, recorded, written } = wire([]);
    const writer = stream.writable.getWriter();
    await writer.write({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} } as AnyMessage);
    expect(recorded).toEqual([
      {
        dir: 'client->agent',
        msg: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
        raw: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
      },
    ]);
    expect(written).toEqual([`${recorded[0]?.raw}\n`]);
  });

  it('a long line costs linear work: its chunks are decoded once, when the line ends', async () => {
    const size = 20 * 1024 * 1024;
    const chunkSize = 64 * 1024;
    const head = '{"jsonrpc":"2.0","method":"session/update","params":{"text":"';
    const tail = '"}}\n{"jsonrpc":"2.0","method":"after"}\n';
    const body = new Uint8Array(chunkSize).fill(0x41);
    let sent = 0;
    let chunks = 0;
    const input = new ReadableStream<Uint8Array>({
      pull(controller) {
        chunks += 1;
        if (sent === 0) controller.enqueue(bytes(head));
        else if (sent < size) controller.enqueue(body);
        else {
          // The second line's first bytes share a chunk with the end of the first.
          controller.enqueue(bytes(tail));
          controller.close();
        }
        sent += sent === 0 ? 1 : chunkSize;
      },
    });
    const decode = vi.spyOn(TextDecoder.prototype, 'decode');
    try {
      const recorded: string[] = [];
      const stream = recordedNdJsonStream(new WritableStream(), input, (_d, _m, raw) => recorded.push(raw));
      const messages = await readAll(stream.readable);
      expect(messages).toHaveLength(2);
      expect(recorded[0]?.length).toBeGreaterThan(size);
      expect(chunks).toBeGreaterThan(300);
      // One decode per line, not one per chunk (a growing string searched per chunk was flattened each time).
      expect(decode.mock.calls.length).toBe(2);
    } finally {
      decode.mockRestore();
    }
  });

  it('fails a line over 32 MiB as soon as it crosses the limit, counted in bytes', async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(0x41);
    let pulled = 0;
    const input = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        if (pulled > 100) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const stream = recordedNdJsonStream(new WritableStream(), input, () => undefined);
    await expect(readAll(stream.readable)).rejects.toThrow(/longer than 33554432 bytes/);
    expect(pulled).toBeLessThanOrEqual(34);
  });

  it('splits lines on bytes: a character cut between chunks and a line ending in CRLF arrive whole', async () => {
    const line = '{"jsonrpc":"2.0","method":"m","params":{"t":"é€😀"}}';
    const encoded = bytes(`${line}\r\n`);
    const cut = encoded.indexOf(0xe2) + 1;
    const input = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoded.subarray(0, cut));
        controller.enqueue(encoded.subarray(cut));
        controller.close();
      },
    });
    const recorded: string[] = [];
    const stream = recordedNdJsonStream(new WritableStream(), input, (_d, _m, raw) => recorded.push(raw));
    expect(await readAll(stream.readable)).toEqual([JSON.parse(line)]);
    expect(recorded).toEqual([line]);
  });

  it('hands each line that is no JSON object to the invalid hook, and tells the end of the input', async () => {
    const invalid: string[] = [];
    let ended: unknown = 'not yet';
    const input = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes('{garbage\n"str"\nnull\n[1,2,3]\n{"jsonrpc":"2.0","method":"ok"}\n'));
        controller.close();
      },
    });
    const stream = recordedNdJsonStream(new WritableStream(), input, () => undefined, {
      invalid: (reason, raw) => invalid.push(`${reason} ${raw}`),
      ended: (error) => {
        ended = error;
      },
    });
    expect(await readAll(stream.readable)).toEqual([{ jsonrpc: '2.0', method: 'ok' }]);
    expect(invalid).toEqual([
      'parse_error {garbage',
      'not_an_object "str"',
      'not_an_object null',
      'not_an_object [1,2,3]',
    ]);
    expect(ended).toBeUndefined();
  });
});
