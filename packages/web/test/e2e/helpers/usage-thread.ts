import { type CanonicalStreamEvent, noCapabilities, type StreamEvent } from '@agentlane/contract';
import { DIFF, FrameWriter } from './frames';

const diff = (id: string, text: string) => ({
  artifact: { id, bytes: text.length, sha256: '0'.repeat(64), contentType: 'text/x-diff' },
  preview: text,
  truncated: false,
});

const SECOND_DIFF = DIFF.replace('-  return a - b;\n+  return a + b;', '-  return a + b;\n+  return b + a;');

/**
 * Two turns of an engine that reports usage per step with two models, a turn total with cost and
 * context-window use, edits src/add.ts in both turns, and names its native message id in the identity of
 * the message events (as ACP and OpenCode translators do).
 */
export function usageThread(threadId: string): StreamEvent[] {
  const w = new FrameWriter(threadId);
  const withIdentity = (frame: CanonicalStreamEvent, ids: Record<string, string>) => {
    Object.assign(frame.event.identity, ids);
  };
  w.emit({
    kind: 'session.started',
    payload: {
      provider: 'recorded',
      origin: 'new',
      generation: 1,
      capabilities: { ...noCapabilities(), usage: true, fileDiffs: true },
    },
  });
  const turns = [
    {
      prompt: 'fix add',
      steps: [
        ['big-model', 1800, 220],
        ['small-model', 600, 80],
      ],
      cost: 0.021,
      ctx: 24_000,
    },
    { prompt: 'and flip it', steps: [['big-model', 2600, 310]], cost: 0.018, ctx: 52_000 },
  ] as const;
  turns.forEach((turn, t) => {
    w.runId = `run-${t + 1}`;
    w.turnId = `turn-${t + 1}`;
    w.emit({ kind: 'turn.started', payload: { prompt: turn.prompt } });
    const started = w.emit({ kind: 'message.started', payload: { messageId: `m${t}`, role: 'assistant' } });
    withIdentity(started, { nativeMessageId: `msg_native_${t}`, nativeSessionId: 'ses_native' });
    const text = t === 0 ? 'Fixed the sign.' : 'Flipped the operands.';
    const done = w.emit({
      kind: 'message.completed',
      payload: { messageId: `m${t}`, role: 'assistant', text },
    });
    withIdentity(done, { nativeMessageId: `msg_native_${t}`, nativeSessionId: 'ses_native' });
    w.emit({
      kind: 'file.changed',
      payload: {
        path: 'src/add.ts',
        change: 'modified',
        diff: diff(`diff-${t}`, t === 0 ? DIFF : SECOND_DIFF),
        additions: 1,
        deletions: 1,
      },
    });
    for (const [model, input, output] of turn.steps)
      w.emit({
        kind: 'usage.updated',
        payload: { scope: 'step', model, inputTokens: input, outputTokens: output },
      });
    const input = turn.steps.reduce((s, x) => s + x[1], 0);
    const output = turn.steps.reduce((s, x) => s + x[2], 0);
    w.emit({
      kind: 'usage.updated',
      payload: {
        scope: 'turn',
        inputTokens: input,
        outputTokens: output,
        cost: { amount: turn.cost, currency: 'USD' },
        contextUsedTokens: turn.ctx,
        contextWindowTokens: 200_000,
      },
    });
    w.emit({ kind: 'turn.completed', payload: { stopReason: 'end_turn' } });
    w.canonicalized();
  });
  return w.frames;
}

/** The native frames of run-1 as the frames route returns them: ACP session/update lines and their raw bytes. */
export function usageThreadFrames() {
  const lines = [
    {
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 'ses_native',
        update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'fix add' } },
      },
    },
    {
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 'ses_native',
        update: {
          sessionUpdate: 'agent_message_chunk',
          messageId: 'msg_native_0',
          content: { type: 'text', text: 'Fixed the sign.' },
        },
      },
    },
    {
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 'ses_native',
        update: { sessionUpdate: 'usage_update', used: 24000, size: 200000 },
      },
    },
  ];
  return {
    frames: lines.map((frame, i) => ({
      nativeSeq: i + 1,
      receivedAt: new Date(Date.UTC(2026, 0, 1, 9, 0, i)).toISOString(),
      frame,
      raw: {
        bytes: JSON.stringify(frame).length,
        sha256: 'a'.repeat(64),
        storage: 'inline',
        text: JSON.stringify(frame),
      },
    })),
    nextAfter: null,
  };
}
