import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseBlockSplitter } from '../src/sse/sse-block-splitter';

const tooLarge = (max: number) => new Error(`over ${max}`);
const bytes = (s: string) => new TextEncoder().encode(s);

/** The blocks of a whole stream by the specification's rule, for comparison. */
const reference = (stream: string) => {
  const blocks = stream.replace(/\r\n?/g, '\n').split('\n\n');
  blocks.pop(); // text after the last blank line is not an event yet
  return blocks;
};

describe('SseBlockSplitter', () => {
  it('gives the same blocks however the bytes are cut (CR, CRLF and multi-byte characters across reads)', () => {
    const line = fc.constantFrom('data: a', 'data: ü€😀', 'id: 7', ': c', 'event: x', '');
    const end = fc.constantFrom('\n', '\r\n', '\r');
    const stream = fc
      .array(fc.tuple(line, end), { maxLength: 40 })
      .map((parts) => parts.map(([l, e]) => l + e).join(''));
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 10 }), (text, cutsRaw) => {
        // A lone CR at the very end may still become CRLF: end the stream on LF for a fixed answer.
        const whole = `${text}\n`;
        const data = bytes(whole);
        const cuts = [...new Set(cutsRaw.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
        const splitter = new SseBlockSplitter(1 << 20, tooLarge);
        const out: string[] = [];
        let from = 0;
        for (const cut of [...cuts, data.length]) {
          out.push(...splitter.feed(data.subarray(from, cut)));
          from = cut;
        }
        expect(out).toEqual(reference(whole));
        expect(splitter.overflow).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('stops at an event longer than the cap, keeping the events before it', () => {
    const s = new SseBlockSplitter(10, tooLarge);
    expect(s.feed(bytes('data: 1\n\n'))).toEqual(['data: 1']);
    expect(s.feed(bytes('data: 0123456789'))).toEqual([]);
    expect(s.overflow?.message).toBe('over 10');
    expect(s.feed(bytes('\n\ndata: 2\n\n'))).toEqual([]);
    const t = new SseBlockSplitter(10, tooLarge);
    expect(t.feed(bytes('data: 2\n\ndata: 0123456789\n\ndata: 3\n\n'))).toEqual(['data: 2']);
    expect(t.overflow).not.toBeNull();
  });

  it('holds a 20 MB event without a blank line in pieces and gives it back whole', () => {
    const s = new SseBlockSplitter(64 * 1024 * 1024, tooLarge);
    const chunk = bytes(`data: ${'x'.repeat(1000)}\n`);
    for (let i = 0; i < 20_000; i++) expect(s.feed(chunk)).toEqual([]);
    const [event] = s.feed(bytes('\n'));
    expect(event?.length).toBe(20_000 * 1007 - 1);
    expect(s.overflow).toBeNull();
  });
});
