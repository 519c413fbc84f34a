import { join } from 'node:path';
import type { JsonObject, JsonValue } from '@agentlane/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openCodeTranslator } from '../src';
import { readJsonl, records, translateAll } from './trace';

const FRAMES = readJsonl(join(import.meta.dirname, '__fixtures__', 'opencode.jsonl'));

type Delta = { type: string; properties: { partID: string; delta: string } & JsonObject };
const isDelta = (f: JsonValue): f is Delta & JsonObject =>
  typeof f === 'object' && f !== null && !Array.isArray(f) && f.type === 'message.part.delta';

/** Replaces each run of deltas of one part by the same text cut at the given boundaries. */
function resplit(frames: JsonValue[], cuts: number[]): JsonValue[] {
  const out: JsonValue[] = [];
  let i = 0;
  let cutIndex = 0;
  while (i < frames.length) {
    const frame = frames[i] as JsonValue;
    if (!isDelta(frame)) {
      out.push(frame);
      i += 1;
      continue;
    }
    const partId = frame.properties.partID;
    let text = '';
    while (i < frames.length) {
      const next = frames[i] as JsonValue;
      if (!isDelta(next) || next.properties.partID !== partId) break;
      text += next.properties.delta;
      i += 1;
    }
    let at = 0;
    let n = 0;
    while (at < text.length) {
      const size = 1 + ((cuts[cutIndex++ % Math.max(cuts.length, 1)] ?? 3) % 9);
      const piece = text.slice(at, at + size);
      out.push({
        ...frame,
        id: `${String(frame.id)}_${n++}`,
        properties: { ...frame.properties, delta: piece },
      });
      at += size;
    }
  }
  return out;
}

function streamedText(frames: JsonValue[]) {
  const { events } = translateAll(openCodeTranslator, records(frames));
  const byPart = new Map<string, string>();
  const completed = new Map<string, string>();
  for (const e of events) {
    const d = e.draft;
    if (d.kind === 'message.delta')
      byPart.set(d.payload.partId, (byPart.get(d.payload.partId) ?? '') + d.payload.delta);
    if (d.kind === 'reasoning.delta') {
      byPart.set(d.payload.reasoningId, (byPart.get(d.payload.reasoningId) ?? '') + d.payload.delta);
    }
    if (d.kind === 'message.completed') completed.set(d.payload.messageId, d.payload.text);
    if (d.kind === 'reasoning.completed') completed.set(d.payload.reasoningId, d.payload.text);
  }
  return { byPart, completed, events };
}

describe('re-split text deltas', () => {
  const reference = streamedText(FRAMES);

  it('reassembles the same text at any delta boundaries, with nothing duplicated', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(50), { minLength: 1, maxLength: 40 }), (cuts) => {
        const result = streamedText(resplit(FRAMES, cuts));
        expect(result.byPart).toEqual(reference.byPart);
        expect(result.completed).toEqual(reference.completed);
        const keys = result.events.map((e) => e.key);
        expect(new Set(keys).size).toBe(keys.length);
      }),
      { numRuns: 60 },
    );
  });

  it('streams the same text from snapshots alone when the live deltas were missed', () => {
    const result = streamedText(FRAMES.filter((f) => !isDelta(f)));
    expect(result.byPart).toEqual(reference.byPart);
    expect(result.completed).toEqual(reference.completed);
  });

  it('when the final snapshot disagrees with the deltas, message.completed carries the snapshot', () => {
    const frames = FRAMES.map((f) => {
      const text = (
        f as { properties?: { part?: { type?: string; text?: string; time?: { end?: number } } } }
      ).properties?.part;
      if (text?.type === 'text' && text.text?.startsWith('Done:') && text.time?.end) {
        return JSON.parse(JSON.stringify(f).replace('Done: hello.txt', 'Finished: hello.txt')) as JsonValue;
      }
      return f;
    });
    const result = streamedText(frames);
    const texts = [...result.completed.values()];
    expect(texts).toContain('Finished: hello.txt was written. (final answer from fake model)');
    // The deltas stay as streamed; no extra delta re-sends text.
    expect(result.byPart).toEqual(reference.byPart);
  });
});
