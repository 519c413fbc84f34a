import { describe, expect, it } from 'vitest';
import { SseTap } from '../src/driver/sse-tap';

describe('SSE tap', () => {
  it('keeps the data text of every event the SDK yields, in order, and passes the bytes through', async () => {
    const first = '{"type":"session.status", "properties":{"sessionID":"s"}}';
    const body = [
      `id: 1\r\ndata: ${first}\r\n\r\n`,
      ': a comment, no data: nothing is yielded\n\n',
      'event: message\ndata: {"type":"message.part.delta",\ndata: "properties":{}}\n\n',
      'data: {"type":"partial"',
    ].join('');
    const tap = new SseTap();
    const response = await tap.fetch(`data:text/event-stream,${encodeURIComponent(body)}`);
    expect(await response.text()).toBe(body);
    expect(tap.next('session.status')).toBe(first);
    expect(tap.next('message.part.delta')).toBe('{"type":"message.part.delta",\n"properties":{}}');
    // The unfinished last event is not yielded by the SDK either.
    expect(tap.next('partial')).toBeUndefined();
  });

  it('gives no text for an event whose text does not name its type (never another event’s bytes)', async () => {
    const tap = new SseTap();
    await (await tap.fetch('data:text/event-stream,data: {"type":"a"}%0A%0A')).text();
    expect(tap.next('b')).toBeUndefined();
  });
});
