import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatSseComment, formatSseFrame } from '../src';

const parse = (text: string) => {
  const out: { id?: string; event?: string; data: string }[] = [];
  const parser = createParser({ onEvent: (e) => out.push({ id: e.id, event: e.event, data: e.data }) });
  parser.feed(text);
  return out;
};

describe('SSE framing', () => {
  it('splits multi-line data into data: lines that a parser joins back', () => {
    const frame = formatSseFrame({ id: 7, event: 'message.delta', data: 'a\nb\r\nc' });
    expect(frame).toBe('id: 7\nevent: message.delta\ndata: a\ndata: b\ndata: c\n\n');
    expect(parse(frame)).toEqual([{ id: '7', event: 'message.delta', data: 'a\nb\nc' }]);
  });

  it('refuses a newline in id or event instead of splitting the frame', () => {
    expect(() => formatSseFrame({ id: '1\n2', data: 'x' })).toThrow(/id/);
    expect(() => formatSseFrame({ event: 'a\rb', data: 'x' })).toThrow(/event/);
  });

  it('writes comments that parsers ignore', () => {
    expect(parse(formatSseComment('heartbeat\nx') + formatSseFrame({ data: 'y' }))).toEqual([
      { data: 'y', id: undefined, event: undefined },
    ]);
  });

  it('round-trips any JSON payload through a real parser', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, id) => {
        const data = JSON.stringify(value, null, 2) ?? 'null';
        const [got] = parse(formatSseFrame({ id, event: 'x', data }));
        expect(got?.data).toBe(data.replace(/\r\n|\r/g, '\n'));
        expect(got?.id).toBe(String(id));
      }),
      { numRuns: 200 },
    );
  });
});
