import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { openCodeTranslator } from '../src';
import type { OpenCodeState } from '../src/translate/state';
import { CTX, records } from './trace';

const S = 'ses_root';
const M = 'msg_1';
const P = 'prt_1';
const N = 4000;
const delta = (i: number) => `${i} ${'z'.repeat(200)} `.padEnd(210, ' ');

function frames(): JsonValue[] {
  const out: JsonValue[] = [
    { harness: 'turn.started', prompt: 'x' },
    { type: 'session.status', properties: { sessionID: S, status: { type: 'busy' } } },
    {
      type: 'message.updated',
      properties: { sessionID: S, info: { id: M, sessionID: S, role: 'assistant', time: { created: 1 } } },
    },
  ];
  for (let i = 0; i < N; i++) {
    out.push({
      type: 'message.part.delta',
      properties: { sessionID: S, messageID: M, partID: P, field: 'text', delta: delta(i) },
    });
  }
  out.push({ type: 'session.status', properties: { sessionID: S, status: { type: 'idle' } } });
  return out;
}

describe('one long message streamed as many deltas', () => {
  it('costs O(delta) per delta: each delta event carries its fragment, states share the text', () => {
    const ctx = { ...CTX, nativeSessionId: S };
    let state = openCodeTranslator.initialState(ctx);
    const kept: OpenCodeState[] = [];
    const deltaBytes: number[] = [];
    let completed = '';
    const steps = records(frames()).map((record) => {
      const step = openCodeTranslator.translate(record, state, ctx);
      state = step.state;
      kept.push(state);
      return step;
    });
    steps.push(openCodeTranslator.finish(state, ctx));
    for (const step of steps) {
      for (const e of step.events) {
        const payload = e.draft.payload as { delta?: string; text?: string };
        if (e.draft.kind === 'message.delta') deltaBytes.push(JSON.stringify(e.draft).length);
        if (e.draft.kind === 'message.completed') completed = payload.text ?? '';
      }
    }
    const text = Array.from({ length: N }, (_, i) => delta(i)).join('');
    expect(deltaBytes).toHaveLength(N);
    // every delta event is its own fragment plus an envelope, never the text so far
    expect(Math.max(...deltaBytes)).toBeLessThan(400);
    expect(deltaBytes.reduce((a, b) => a + b, 0)).toBeLessThan(2 * text.length);
    expect(completed.length).toBe(text.length);
    expect(completed === text).toBe(true);
    // Every state of the run kept alive at once: before, each held its own flattened copy of the text so far
    // (N²/2 characters: 1.7 GB of heap at N=4000); now they share one rope.
    const heap = process.memoryUsage().heapUsed;
    expect(kept).toHaveLength(N + 4);
    expect(heap).toBeLessThan(400 * 1024 * 1024);
  });
});
