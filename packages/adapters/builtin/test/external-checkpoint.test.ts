import { createMemorySaver, newCheckpointId, sessionStateOf } from '@agentlane/checkpoints';
import type { ConversationMessage, JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { allowingIO, chatDriver, fakeModelAndWorkspace } from './harness';

const env = fakeModelAndWorkspace('agentlane-ext-ckpt-');

/**
 * Another runtime (the Python one, another process) may run a turn on the thread between two turns of an
 * open engine session; the next turn must start from the thread's newest checkpoint, not from memory.
 */
describe('a checkpoint written by another runtime between two turns', () => {
  it('is where the next turn of the open engine session starts', async () => {
    const saver = createMemorySaver();
    const driver = chatDriver(env.fake.url, { checkpoints: saver });
    const frames: JsonValue[] = [];
    const emit = (f: JsonValue) => void frames.push(f);
    const session = await driver.openSession({ threadId: 'thr_ext', workDir: env.work, generation: 1, emit });
    const io = allowingIO(emit);
    const turn = (id: string, prompt: string) =>
      session.runTurn({ threadId: 'thr_ext', runId: id, turnId: id, prompt }, io);
    await turn('run_1', 'first');

    const latest = await saver.getLatest('thr_ext');
    if (!latest) throw new Error('the first turn wrote no checkpoint');
    const conversation = latest.channels.conversation;
    const plan = latest.channels.plan;
    if (!conversation || !plan) throw new Error('no conversation channel');
    const before = sessionStateOf(latest).conversation;
    const elsewhere: ConversationMessage[] = [
      { id: 'run_x:user', role: 'user', parts: [{ type: 'text', text: 'asked in another runtime' }] },
      { id: 'run_x:a1', role: 'assistant', parts: [{ type: 'text', text: 'answered there' }] },
    ];
    await saver.put({
      id: newCheckpointId(),
      sessionId: 'thr_ext',
      stageId: 'post-turn',
      createdAt: new Date().toISOString(),
      schemaVersion: 1,
      parentCheckpointId: latest.id,
      channels: {
        ...latest.channels,
        // The conversation as a `last_value` channel, the form checkpoints had before it became a topic
        // (older agentlane versions wrote it so): it must still load.
        conversation: {
          kind: 'last_value',
          version: conversation.version + 1,
          value: { value: [...before, ...elsewhere] as unknown as JsonValue },
        },
        plan: { ...plan, version: plan.version + 1 },
      },
    });

    const sent = env.fake.modelRequests().length;
    await turn('run_2', 'third');
    const body = env.fake.modelRequests()[sent]?.body as { messages: { role: string; content: unknown }[] };
    expect(body.messages.slice(1).map((m) => [m.role, m.content])).toEqual([
      ['user', 'first'],
      ['assistant', 'ok'],
      ['user', 'asked in another runtime'],
      ['assistant', 'answered there'],
      ['user', 'third'],
    ]);
    await session.close?.();
  });
});
