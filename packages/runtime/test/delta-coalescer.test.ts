import { describe, expect, it } from 'vitest';
import { DeltaCoalescer, MAX_COALESCED_CHARS } from '../src/delta-coalescer';
import type { RuntimeFrame } from '../src/frames';

const tick = () => new Promise((r) => setImmediate(r));
const text = (id: string, t: string) => ({ type: 'text-delta', id, text: t });

type PartFrame = { part: { type: string; id: string; text?: string; delta?: string } };

function collect(enabled = true) {
  const frames: PartFrame[] = [];
  return {
    frames,
    c: new DeltaCoalescer((f: RuntimeFrame) => frames.push(f as unknown as PartFrame), enabled),
  };
}

describe('DeltaCoalescer', () => {
  it('joins the deltas of one block read in one turn of the loop, and keeps the order of other parts', () => {
    const { frames, c } = collect();
    c.part('tool-loop', 1, text('t', 'Hel'));
    c.part('tool-loop', 1, text('t', 'lo'));
    c.part('tool-loop', 1, { type: 'tool-input-delta', id: 'call_1', delta: '{"a"' });
    c.part('tool-loop', 1, { type: 'tool-input-delta', id: 'call_1', delta: ':1}' });
    c.part('tool-loop', 1, { type: 'tool-input-end', id: 'call_1' });
    expect(frames.map((f) => f.part)).toEqual([
      { type: 'text-delta', id: 't', text: 'Hello' },
      { type: 'tool-input-delta', id: 'call_1', delta: '{"a":1}' },
      { type: 'tool-input-end', id: 'call_1' },
    ]);
  });

  it('emits a held delta by the end of the turn of the loop: a slow stream is not delayed', async () => {
    const { frames, c } = collect();
    c.part('tool-loop', 1, text('t', 'a'));
    expect(frames).toHaveLength(0);
    await tick();
    c.part('tool-loop', 1, text('t', 'b'));
    await tick();
    expect(frames.map((f) => f.part.text)).toEqual(['a', 'b']);
  });

  it('never holds more than MAX_COALESCED_CHARS, other blocks and steps apart, or anything when disabled', () => {
    const { frames, c } = collect();
    const piece = 'x'.repeat(1000);
    const n = Math.ceil((MAX_COALESCED_CHARS * 2.5) / piece.length);
    for (let i = 0; i < n; i++) c.part('tool-loop', 1, text('t', piece));
    c.part('tool-loop', 1, text('u', 'other block'));
    c.part('tool-loop', 2, text('u', 'other step'));
    c.flush();
    const parts = frames.map((f) => f.part);
    expect(parts.slice(0, -2).every((p) => (p.text ?? '').length <= MAX_COALESCED_CHARS)).toBe(true);
    expect(parts.slice(0, -2).reduce((s, p) => s + (p.text ?? '').length, 0)).toBe(n * piece.length);
    expect(parts.slice(-2).map((p) => p.text)).toEqual(['other block', 'other step']);

    const off = collect(false);
    off.c.part('tool-loop', 1, text('t', 'a'));
    off.c.part('tool-loop', 1, text('t', 'b'));
    expect(off.frames).toHaveLength(2);
  });
});
