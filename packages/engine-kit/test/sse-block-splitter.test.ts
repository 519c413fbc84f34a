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

/** Streams of up to 40 of `lines`, each ended by LF, CRLF or CR. */
const streamOf = (...lines: string[]) =>
  fc
    .array(fc.tuple(fc.constantFrom(...lines), fc.constantFrom('\n', '\r\n', '\r')), { maxLength: 40 })
    .map((parts) => parts.map(([l, e]) => l + e).join(''));

/** What `read` gives for `data` cut at the offsets `cutsRaw` (modulo its length), one read per piece. */
function readInPieces<T>(data: Uint8Array, cutsRaw: number[], read: (piece: Uint8Array) => T[]): T[] {
  const cuts = [...new Set(cutsRaw.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  const out: T[] = [];
  let from = 0;
  for (const cut of [...cuts, data.length]) {
    out.push(...read(data.subarray(from, cut)));
    from = cut;
  }
  return out;
}

describe('SseBlockSplitter', () => {
  it('gives the same blocks however the bytes are cut (CR, CRLF and multi-byte characters across reads)', () => {
    const stream = streamOf('data: a', 'data: ü€😀', 'id: 7', ': c', 'event: x', '');
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 10 }), (text, cutsRaw) => {
        // A lone CR at the very end may still become CRLF: end the stream on LF for a fixed answer.
        const whole = `${text}\n`;
        const splitter = new SseBlockSplitter(1 << 20, tooLarge);
        const out = readInPieces(bytes(whole), cutsRaw, (piece) => splitter.feed(piece));
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

describe('SseBlockSplitter with skipOversized', () => {
  const cap = 12;
  /** The reference blocks, an event over the cap as '<skipped>'. */
  const expected = (stream: string) => reference(stream).map((b) => (b.length > cap ? '<skipped>' : b));
  const shown = (blocks: ReturnType<SseBlockSplitter['blocks']>) =>
    blocks.map((b) => (typeof b === 'string' ? b : '<skipped>'));

  it('skips each event over the cap to its end and goes on, however the bytes are cut', () => {
    const stream = streamOf('data: a', 'data: ü€😀', `data: ${'x'.repeat(20)}`, 'id: 7', '');
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 10 }), (text, cutsRaw) => {
        const whole = `${text}\n`;
        const splitter = new SseBlockSplitter(cap, tooLarge, { skipOversized: true });
        const out = readInPieces(bytes(whole), cutsRaw, (piece) => {
          const blocks = shown(splitter.blocks(piece));
          expect(splitter.heldChars).toBeLessThanOrEqual(cap);
          return blocks;
        });
        // A skipped event is marked once; one that never ends is marked too (where skipping began).
        const want = expected(whole);
        const tail = reference(`${whole}\n\n`).slice(want.length);
        const unfinished = tail.length > 0 && (tail[0] ?? '').length > cap ? ['<skipped>'] : [];
        expect(out).toEqual([...want, ...unfinished]);
        expect(splitter.overflow).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('keeps an event of exactly the cap cut just after its last line end (found by the property above)', () => {
    const s = new SseBlockSplitter(12, tooLarge, { skipOversized: true });
    const data = bytes('\nid: 7\r\nid: 7\n\n');
    expect([...s.blocks(data.slice(0, 14)), ...s.blocks(data.slice(14))]).toEqual(['\nid: 7\nid: 7']);
  });

  it('marks an event where skipping began, holds none of it, and feed() leaves the mark out', () => {
    const s = new SseBlockSplitter(10, tooLarge, { skipOversized: true });
    expect(s.blocks(bytes('data: 1\n\ndata: 0123456789'))).toEqual(['data: 1', { skipped: true, chars: 16 }]);
    expect(s.heldChars).toBe(0);
    expect(s.blocks(bytes('x'.repeat(1000)))).toEqual([]);
    expect(s.heldChars).toBe(0);
    // The blank line straddles two reads.
    expect(s.blocks(bytes('\n'))).toEqual([]);
    expect(s.feed(bytes('\ndata: 2\n\n'))).toEqual(['data: 2']);
    expect(s.overflow).toBeNull();
  });
});
