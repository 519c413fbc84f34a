import { describe, expect, it } from 'vitest';
import { MAX_EVENT_CHARS, SseEventTooLarge, SseSplitter } from '../src/driver/sse-tap';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('SSE splitter', () => {
  it('splits events like the SDK (CRLF/CR, data lines joined, comments and unfinished events not yielded)', () => {
    const first = '{"type":"session.status", "properties":{"sessionID":"s"}}';
    const body = [
      `id: 1\r\ndata: ${first}\r\n\r\n`,
      ': a comment, no data\n\n',
      'event: message\ndata: {"type":"message.part.delta",\ndata: "properties":{}}\r\r',
      'data: {"type":"partial"',
    ].join('');
    const splitter = new SseSplitter();
    // one byte at a time: boundaries and CRLF pairs straddle reads
    const events = [...bytes(body)].flatMap((b) => splitter.feed(new Uint8Array([b])));
    expect(events).toEqual([
      { data: first, id: '1' },
      { data: undefined, id: undefined },
      { data: '{"type":"message.part.delta",\n"properties":{}}', id: undefined },
    ]);
  });

  it('fails an event that never ends once it passes the cap, instead of buffering it', () => {
    const splitter = new SseSplitter();
    const chunk = bytes('E'.repeat(256 * 1024));
    splitter.feed(bytes('data: {"type":"message.part.delta","delta":"'));
    let fed = 0;
    for (let i = 0; i < 200 && !splitter.overflow; i++) {
      splitter.feed(chunk);
      fed += chunk.length;
    }
    expect(splitter.overflow).toBeInstanceOf(SseEventTooLarge);
    expect(String(splitter.overflow)).toMatch(/larger than 16777216 characters/);
    // stopped at the cap (16 MiB), not after all 50 MB
    expect(fed).toBeLessThanOrEqual(MAX_EVENT_CHARS);
  });

  it('fails one complete event above the cap, and keeps events below it', () => {
    const splitter = new SseSplitter(1000);
    expect(splitter.feed(bytes(`data: ${'a'.repeat(900)}\n\n`))).toHaveLength(1);
    splitter.feed(bytes(`data: ${'b'.repeat(500)}`));
    expect(splitter.overflow).toBeNull();
    expect(splitter.feed(bytes(`${'b'.repeat(600)}\n\n`))).toEqual([]);
    expect(splitter.overflow).toBeInstanceOf(SseEventTooLarge);
  });
});
