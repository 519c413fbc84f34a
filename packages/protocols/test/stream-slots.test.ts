import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from './support/stack';

// A protocol stream (AI SDK chat, AG-UI) is an open stream like a thread stream: it holds one of its client's
// stream slots. Before, it counted against nothing: a client could open any number of them.

let stack: Stack;
beforeAll(async () => {
  // A slow answer: 400 chunks 25 ms apart keep the chat's stream open for about 10 s.
  stack = await startStack([{ text: 'word '.repeat(400), chunkSize: 5, chunkDelayMs: 25 }], {
    limits: { maxStreamsPerToken: 1, maxLocalStreams: 1 },
  });
});
afterAll(async () => {
  await stack.stop();
});

const chat = (id: string, signal?: AbortSignal) =>
  fetch(`${stack.api}/protocols/ai-sdk/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id,
      engine: 'builtin',
      trigger: 'submit-message',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'talk slowly' }] }],
    }),
    ...(signal ? { signal } : {}),
  });

describe('protocol streams and the stream cap', () => {
  it('a chat stream holds a slot while open; a chat over the cap is a 429 that starts no run', async () => {
    const open = new AbortController();
    const first = await chat('slots-chat', open.signal);
    expect(first.status).toBe(200);
    const threads = await fetch(`${stack.api}/threads/slots-chat/events`);
    expect(threads.status).toBe(429);
    await threads.body?.cancel();
    const runsBefore = (await stack.store.listRuns('slots-chat')).length;
    const refused = await chat('slots-chat-2');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(await stack.store.getThread('slots-chat-2')).toBeNull();
    expect((await stack.store.listRuns('slots-chat')).length).toBe(runsBefore);
    open.abort();
    await first.body?.cancel().catch(() => {});
    // Once the chat's stream is gone its slot is free again.
    for (let i = 0; ; i++) {
      const again = await fetch(`${stack.api}/threads/slots-chat/events`, {
        signal: AbortSignal.timeout(2000),
      });
      if (again.status === 200) {
        await again.body?.cancel().catch(() => {});
        break;
      }
      await again.body?.cancel().catch(() => {});
      if (i > 100) throw new Error(`the slot was never released (${again.status})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it('concurrent chats over the cap start no run: each holds its slot from the start', async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `race-${i}`);
    const controllers = ids.map(() => new AbortController());
    const answers = await Promise.all(ids.map((id, i) => chat(id, controllers[i]?.signal)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    for (const [i, id] of ids.entries()) {
      if (statuses[i] === 200) continue;
      expect(await stack.store.getThread(id)).toBeNull();
    }
    for (const c of controllers) c.abort();
    for (const a of answers) await a.body?.cancel().catch(() => {});
  });
});
