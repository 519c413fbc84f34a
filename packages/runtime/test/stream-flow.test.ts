import { streamText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { AHEAD_DELTAS, StreamFlow } from '../src/turn/stream-flow';

type ProviderPart = { type: string; id?: string; delta?: string; toolName?: string };

/** A model whose stream is made by `pull` (one call per chunk the SDK asks for). */
function model(pull: (n: number) => ProviderPart[] | null) {
  let n = 0;
  return new MockLanguageModelV3({
    doStream: async () => ({
      stream: new ReadableStream({
        pull(controller) {
          const parts = pull(n++);
          if (parts === null) controller.close();
          else for (const p of parts) controller.enqueue(p as never);
        },
      }) as never,
    }),
  });
}

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('StreamFlow', () => {
  it('holds the provider’s stream to the pace of the reader (the SDK alone reads it all at once)', async () => {
    let pulled = 0;
    const m = model((n) => {
      if (n === 0) return [{ type: 'text-start', id: 't' }];
      if (n > 50_000) return null;
      pulled++;
      return [{ type: 'text-delta', id: 't', delta: 'ten chars.' }];
    });
    const flow = new StreamFlow(false);
    const result = streamText({ model: flow.model(m), prompt: 'go' });
    let taken = 0;
    let most = 0;
    for await (const part of result.fullStream) {
      flow.took(part);
      if (part.type !== 'text-delta') continue;
      taken++;
      await tick();
      most = Math.max(most, pulled - taken);
      if (taken === 300) break;
    }
    flow.release();
    expect(taken).toBe(300);
    // What the SDK's queues hold besides the counted allowance: a few parts.
    expect(most).toBeLessThanOrEqual(AHEAD_DELTAS + 16);
    expect(pulled).toBeLessThan(300 + AHEAD_DELTAS + 16);
  });

  it('holds a streamed tool input to the same pace: its deltas count toward the read-ahead like text', async () => {
    let pulled = 0;
    const m = model((n) => {
      if (n === 0) return [{ type: 'tool-input-start', id: 'c', toolName: 'write' }];
      if (n > 50_000) return null;
      pulled++;
      return [{ type: 'tool-input-delta', id: 'c', delta: 'ten chars.' }];
    });
    const flow = new StreamFlow(false);
    const result = streamText({ model: flow.model(m), prompt: 'go' });
    let taken = 0;
    let most = 0;
    for await (const part of result.fullStream) {
      flow.took(part);
      if (part.type !== 'tool-input-delta') continue;
      taken++;
      await tick();
      most = Math.max(most, pulled - taken);
      if (taken === 300) break;
    }
    flow.release();
    expect(taken).toBe(300);
    // Before, the SDK read all 50,000 pieces while the reader took 300.
    expect(most).toBeLessThanOrEqual(AHEAD_DELTAS + 16);
    expect(pulled).toBeLessThan(300 + AHEAD_DELTAS + 16);
  });

  it('joins the deltas of one block that arrive together, and keeps the order of the other parts', async () => {
    const parts: ProviderPart[] = [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'a' },
      { type: 'text-delta', id: 't', delta: 'b' },
      { type: 'text-delta', id: 't', delta: 'c' },
      { type: 'text-end', id: 't' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'x' },
      { type: 'reasoning-delta', id: 'r', delta: 'y' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'tool-input-start', id: 'c', toolName: 'write' },
      { type: 'tool-input-delta', id: 'c', delta: '{"a"' },
      { type: 'tool-input-delta', id: 'c', delta: ':1}' },
      { type: 'tool-input-end', id: 'c' },
    ];
    const seen = async (merge: boolean) => {
      const flow = new StreamFlow(merge);
      const result = streamText({ model: flow.model(model((n) => (n === 0 ? parts : null))), prompt: 'go' });
      const out: string[] = [];
      for await (const part of result.fullStream) {
        flow.took(part);
        if (part.type === 'text-delta' || part.type === 'reasoning-delta')
          out.push(`${part.type}:${part.text}`);
        else if (part.type === 'tool-input-delta') out.push(`${part.type}:${part.delta}`);
        else if (/^(text|reasoning|tool-input)-(start|end)$/.test(part.type)) out.push(part.type);
      }
      return out;
    };
    expect(await seen(true)).toEqual([
      'text-start',
      'text-delta:abc',
      'text-end',
      'reasoning-start',
      'reasoning-delta:xy',
      'reasoning-end',
      'tool-input-start',
      'tool-input-delta:{"a":1}',
      'tool-input-end',
    ]);
    // Off (the recorded-turn corpus): every delta as the provider sent it.
    expect(await seen(false)).toEqual([
      'text-start',
      'text-delta:a',
      'text-delta:b',
      'text-delta:c',
      'text-end',
      'reasoning-start',
      'reasoning-delta:x',
      'reasoning-delta:y',
      'reasoning-end',
      'tool-input-start',
      'tool-input-delta:{"a"',
      'tool-input-delta::1}',
      'tool-input-end',
    ]);
  });
});
