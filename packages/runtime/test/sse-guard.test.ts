import { describe, expect, it } from 'vitest';
import { carriesAnswer, EmptyDataLines, ModelStreamUnbounded, SseProgress } from '../src/sse-guard';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('SseProgress', () => {
  it('finds events whose boundary straddles two reads, also with CRLF split between them', () => {
    const p = new SseProgress('message_stop');
    expect(p.feed(bytes('event: content_block_delta\ndata: {"a":1}\n'))).toBe(false);
    expect(p.feed(bytes('\nevent: message_stop\r'))).toBe(true);
    expect(p.finished).toBe(false);
    // A read ending in '\r' ends its line (CR alone is a line end); the '\n' that follows is its rest.
    expect(p.feed(bytes('\ndata: {"type":"message_stop"}\r\n\r'))).toBe(true);
    expect(p.finished).toBe(true);
    expect(p.feed(bytes('\n'))).toBe(false);
    expect(p.feed(bytes('data: {"a":2}\n\n'))).toBe(true);
  });

  it('fails once more than its bound is held without an event boundary', () => {
    const p = new SseProgress(undefined, 1000);
    p.feed(bytes(`data: {"x":"${'y'.repeat(500)}`));
    expect(() => p.feed(bytes('y'.repeat(600)))).toThrow(ModelStreamUnbounded);
    // An event that ends in time resets what is held.
    const q = new SseProgress(undefined, 1000);
    for (let i = 0; i < 20; i++)
      q.feed(bytes(`data: {"choices":[{"delta":{"content":"${'z'.repeat(400)}"}}]}\n\n`));
  });

  it('holds 16 MiB without a boundary in 16 KB reads, and fails at the read past it', () => {
    // Its cost (one scan of each read, not of everything held) is the runtime bench's to measure.
    const p = new SseProgress(undefined);
    const piece = bytes('y'.repeat(16 * 1024));
    for (let i = 0; i < 1024; i++) p.feed(piece);
    expect(() => p.feed(piece)).toThrow(ModelStreamUnbounded);
  });
});

describe('carriesAnswer', () => {
  it('empty Chat Completions chunks and keep-alive types are not progress', () => {
    expect(carriesAnswer('', '{"id":"x","choices":[]}')).toBe(false);
    expect(carriesAnswer('', '{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}')).toBe(
      false,
    );
    expect(carriesAnswer('', '{"choices":[{"index":0,"delta":{},"finish_reason":null}]}')).toBe(false);
    expect(carriesAnswer('ping', '{"type":"ping"}')).toBe(false);
    expect(carriesAnswer('response.in_progress', '{"type":"response.in_progress"}')).toBe(false);
    expect(carriesAnswer('', '{"candidates":[{"content":{"parts":[]}}],"usageMetadata":{}}')).toBe(false);
    const emptyText = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}';
    expect(carriesAnswer('content_block_delta', emptyText)).toBe(false);
    expect(carriesAnswer('', '{"type":"response.output_text.delta","delta":""}')).toBe(false);
  });

  it('text, reasoning, tool calls, a finish, usage and anything unknown are', () => {
    expect(carriesAnswer('', '{"choices":[{"delta":{"content":"a"}}]}')).toBe(true);
    expect(carriesAnswer('', '{"choices":[{"delta":{"reasoning_content":"a"}}]}')).toBe(true);
    expect(carriesAnswer('', '{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}')).toBe(true);
    expect(carriesAnswer('', '{"choices":[{"delta":{},"finish_reason":"stop"}]}')).toBe(true);
    expect(carriesAnswer('', '{"choices":[],"usage":{"prompt_tokens":1}}')).toBe(true);
    expect(carriesAnswer('', '[DONE]')).toBe(true);
    expect(carriesAnswer('message_start', '{"type":"message_start","message":{}}')).toBe(true);
    const text = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}';
    expect(carriesAnswer('content_block_delta', text)).toBe(true);
    expect(carriesAnswer('', '{"type":"response.output_text.delta","delta":"a"}')).toBe(true);
    expect(carriesAnswer('', '{"type":"message_delta","delta":{"stop_reason":"end_turn"}}')).toBe(true);
    expect(carriesAnswer('', '{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}')).toBe(true);
    expect(carriesAnswer('', '{"candidates":[{"finishReason":"STOP"}]}')).toBe(true);
  });
});

describe('EmptyDataLines', () => {
  const run = (reads: string[]) => {
    const lines = new EmptyDataLines();
    let out = '';
    for (const r of reads) out += text(lines.clean(bytes(r)));
    return out + text(lines.flush() ?? new Uint8Array());
  };

  it('turns empty data lines into comments of the same length, and nothing else', () => {
    expect(run(['data:\n\ndata: {"a":1}\n\n'])).toBe(':ata:\n\ndata: {"a":1}\n\n');
    expect(run(['data: \r\n\r\ndata\n\n'])).toBe(':ata: \r\n\r\n:ata\n\n');
    expect(run(['x: data:\n', 'metadata:\n'])).toBe('x: data:\n' + 'metadata:\n');
  });

  it('holds back a line start that may still become an empty data line', () => {
    expect(run(['\nda', 'ta', ':', ' ', '\n'])).toBe('\n:ata: \n');
    expect(run(['\nda', 'ta: {"a":1}\n'])).toBe('\ndata: {"a":1}\n');
    expect(run(['data: {"a":', '1}\n'])).toBe('data: {"a":1}\n');
    expect(run(['\ndat'])).toBe('\ndat');
  });
});
