import { describe, expect, it } from 'vitest';
import { MAX_EVENT_CHARS, SseSplitter } from '../src/driver/sse-tap';

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

  it('skips an event that never ends once it passes the cap, holding nothing of it, and goes on after it', () => {
    const splitter = new SseSplitter();
    const chunk = bytes('E'.repeat(256 * 1024));
    const events = [...splitter.feed(bytes('data: {"type":"message.part.delta","delta":"'))];
    let held = 0;
    // 50 MB of one event: past the cap (16 MiB) nothing more of it is held.
    for (let i = 0; i < 200; i++) {
      events.push(...splitter.feed(chunk));
      held = Math.max(held, splitter.heldChars);
    }
    expect(held).toBeLessThanOrEqual(MAX_EVENT_CHARS);
    expect(splitter.heldChars).toBe(0);
    expect(events).toHaveLength(1);
    expect(events[0]?.tooLarge).toBeGreaterThan(MAX_EVENT_CHARS);
    expect(events[0]?.data).toBeUndefined();
    // Its end, then the next event: read as usual.
    expect(splitter.feed(bytes('"}\n\ndata: {"type":"next"}\n\n'))).toEqual([
      { data: '{"type":"next"}', id: undefined },
    ]);
  });

  it('skips one complete event above the cap where it was, and keeps the events around it', () => {
    const splitter = new SseSplitter(1000);
    expect(splitter.feed(bytes(`data: ${'a'.repeat(900)}\n\n`))).toHaveLength(1);
    expect(splitter.feed(bytes(`data: ${'b'.repeat(500)}`))).toEqual([]);
    expect(splitter.feed(bytes(`${'b'.repeat(600)}\n\ndata: c\n\n`))).toEqual([
      { data: undefined, id: undefined, tooLarge: 1106 },
      { data: 'c', id: undefined },
    ]);
  });
});
