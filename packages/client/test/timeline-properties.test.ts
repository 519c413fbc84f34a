import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTimelineState, reduceTimeline, reduceTimelineBatch, rootTimeline } from '../src';
import { ThreadBuilder } from './helpers/events';

/** A small thread: messages streamed in chunks, some events re-emitted as later revisions. */
function thread(texts: string[], revise: boolean[]) {
  const b = new ThreadBuilder();
  b.emit({ kind: 'turn.started', payload: { prompt: 'go' } });
  texts.forEach((text, i) => {
    const messageId = `m${i}`;
    b.emit({ kind: 'message.started', payload: { messageId, role: 'assistant' } });
    for (const ch of text.match(/.{1,3}/gsu) ?? []) {
      b.emit({ kind: 'message.delta', payload: { messageId, partId: 'p', delta: ch } });
    }
    const plan = b.emit({
      kind: 'plan.updated',
      payload: { entries: [{ content: text, status: 'pending' }] },
    });
    if (revise[i]) {
      b.emit(
        { kind: 'plan.updated', payload: { entries: [{ content: text, status: 'completed' }] } },
        { eventId: plan.event.eventId, revision: 2 },
      );
    }
  });
  return b.frames;
}

function shuffled<T>(values: T[], keys: number[]): T[] {
  return values
    .map((value, i) => ({ value, key: keys[i % keys.length] ?? 0, i }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map((x) => x.value);
}

describe('timeline reducer properties', () => {
  it('duplicates and reordered deliveries give the same state', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 20 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        fc.array(fc.nat(1000), { minLength: 1, maxLength: 50 }),
        fc.array(fc.nat(60), { maxLength: 20 }),
        (texts, revise, keys, duplicates) => {
          const frames = thread(texts, revise);
          const inOrder = reduceTimelineBatch(initialTimelineState(), frames);
          const noisy = shuffled(
            [...frames, ...duplicates.map((d) => frames[d % frames.length]!)],
            keys,
          ).reduce(reduceTimeline, initialTimelineState());
          expect(noisy.timelines).toEqual(inOrder.timelines);
          expect(noisy.lastDeliverySeq).toBe(inOrder.lastDeliverySeq);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('splitting the same text into different chunks assembles the same message', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.array(fc.nat(10), { maxLength: 40 }), (text, cuts) => {
        const b = new ThreadBuilder();
        let rest = text;
        for (const cut of cuts) {
          if (!rest) break;
          b.emit({
            kind: 'message.delta',
            payload: { messageId: 'm', partId: 'p', delta: rest.slice(0, cut + 1) },
          });
          rest = rest.slice(cut + 1);
        }
        if (rest) b.emit({ kind: 'message.delta', payload: { messageId: 'm', partId: 'p', delta: rest } });
        const state = reduceTimelineBatch(initialTimelineState(), b.frames);
        const message = rootTimeline(state)?.items.find((i) => i.type === 'message');
        expect(message?.type === 'message' ? message.text : '').toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  it('applying in one batch or one event at a time gives the same state', () => {
    const frames = thread(['alpha', 'beta gamma'], [true, false]);
    const batched = reduceTimelineBatch(initialTimelineState(), frames);
    const stepwise = frames.reduce(reduceTimeline, initialTimelineState());
    expect(stepwise).toEqual(batched);
  });
});
