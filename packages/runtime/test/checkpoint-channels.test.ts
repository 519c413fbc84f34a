import { createMemorySaver, newCheckpointId } from '@agentlane/checkpoints';
import type { Checkpoint, ConversationMessage, PlanEntry } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { memoryFrom, nextChannels, type SavedChannels } from '../src/turn/checkpoint-channels.js';

const msg = (id: string, text: string): ConversationMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});
const plan: PlanEntry[] = [{ id: 'p1', content: 'do it', status: 'pending' }];

/** Puts the channels as the session's next checkpoint; returns the stored row's delta (or full map). */
async function putAll(steps: { conversation: ConversationMessage[]; plan: PlanEntry[] }[]) {
  const saver = createMemorySaver();
  let saved: SavedChannels | undefined;
  let parent: string | undefined;
  const stored: unknown[] = [];
  for (const step of steps) {
    const next = nextChannels(saved, step.conversation, step.plan);
    const id = newCheckpointId();
    const result = await saver.put({
      id,
      sessionId: 's',
      stageId: 'tool-loop',
      createdAt: '2026-01-01T00:00:00.000Z',
      schemaVersion: 1,
      channels: next.channels,
      ...(parent ? { parentCheckpointId: parent } : {}),
    });
    stored.push(result);
    saved = next.saved;
    parent = id;
  }
  return { saver, saved: saved as SavedChannels, stored };
}

describe("the built-in engine's checkpoint channels", () => {
  it('raise a version only when the value changed, so an unchanged stage stores nothing', async () => {
    const a = msg('t:user', 'hi');
    const b = msg('t:a1', 'hello');
    const { saver } = await putAll([
      { conversation: [a], plan: [] },
      { conversation: [a, b], plan },
      { conversation: [a, b], plan },
      { conversation: [a, b], plan: [{ ...(plan[0] as PlanEntry), status: 'completed' }] },
    ]);
    const page = await saver.list({ sessionId: 's' });
    const [fourth, third, second] = page.items;
    expect(third?.bytes).toBe(2); // '{}': nothing changed
    expect(second?.storage).toBe('delta');
    expect(fourth?.bytes).toBeLessThan(200); // only the plan
    const latest = (await saver.getLatest('s')) as Checkpoint;
    expect(latest.channels.conversation).toMatchObject({ kind: 'topic', version: 2 });
    expect(latest.channels.plan?.version).toBe(3);
  });

  it('store only the new messages of a stage (an append), not the conversation again', async () => {
    const long = msg('t:a1', 'x'.repeat(100_000));
    const { stored } = await putAll([
      { conversation: [msg('t:user', 'hi'), long], plan: [] },
      { conversation: [msg('t:user', 'hi'), long, msg('t2:user', 'more')], plan: [] },
    ]);
    expect((stored[1] as { bytes: number }).bytes).toBeLessThan(300);
  });

  it('read a conversation written as a last_value channel (checkpoints written before the topic form)', () => {
    const old: Checkpoint = {
      id: newCheckpointId(),
      sessionId: 's',
      stageId: 'post-turn',
      createdAt: '2026-01-01T00:00:00.000Z',
      schemaVersion: 1,
      channels: {
        conversation: { kind: 'last_value', version: 4, value: { value: [msg('t:user', 'hi')] } },
        plan: { kind: 'last_value', version: 4, value: { value: plan } },
      },
    } as unknown as Checkpoint;
    const mem = memoryFrom(old);
    expect(mem.conversation).toEqual([msg('t:user', 'hi')]);
    expect(mem.plan).toEqual(plan);
    // The next checkpoint turns it into a topic under a higher version (a put); the plan stays as it was.
    const next = nextChannels(mem.saved, mem.conversation, mem.plan);
    expect(next.channels.conversation).toEqual({
      kind: 'topic',
      version: 5,
      value: { accumulate: true, items: [msg('t:user', 'hi')] },
    });
    expect(next.channels.plan?.version).toBe(4);
  });

  it('treat a replaced message (a closed-off turn) as a change', () => {
    const first = nextChannels(undefined, [msg('t:user', 'hi')], []);
    const next = nextChannels(first.saved, [msg('t:user', 'hi')], []);
    expect(next.channels.conversation?.version).toBe(2);
    const same = nextChannels(next.saved, next.saved.conversation.messages, []);
    expect(same.channels.conversation?.version).toBe(2);
  });
});
