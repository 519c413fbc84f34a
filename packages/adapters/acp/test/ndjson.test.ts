import type { AnyMessage } from '@agentclientprotocol/sdk';
import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
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
});
