import type { JsonValue } from '@agentlane/contract';
import type { ModelReply } from '@agentlane/fake-model-server';
import { describe, expect, it } from 'vitest';
import { chatDriver, fakeModelAndWorkspace, runTurn, translate } from './harness';

const env = fakeModelAndWorkspace('rt-cutoff-');

/** What the lane's crash recovery appends to the source of a run its dead process left running. */
const RECOVERY: JsonValue[] = [
  { harness: 'engine.error', message: 'engine process lost', fatal: true },
  { harness: 'turn.ended', outcome: 'failed', error: 'engine process lost' },
];

const TERMINAL = '"rt":"terminal"';
const MODEL_START = '"rt":"model.start"';

const command = (id: string): ModelReply => ({
  toolCalls: [{ name: 'run_command', arguments: { command: 'echo started; sleep 5' }, id }],
});

/**
 * The frames a process had stored when it died: everything up to the first frame whose JSON holds `marker`
 * (a running command's first output, a model call's start). The turn is then aborted, which ends the command.
 */
async function framesUntil(
  marker: string,
  prompt: string,
  over: Record<string, unknown>,
): Promise<JsonValue[]> {
  const abort = new AbortController();
  let stored: JsonValue[] = [];
  const frames: JsonValue[] = [];
  await runTurn(chatDriver(env.fake.url, over), {
    prompt,
    workDir: env.work,
    signal: abort.signal,
    onFrame: (f) => {
      frames.push(f);
      if (!abort.signal.aborted && JSON.stringify(f).includes(marker)) {
        stored = [...frames];
        abort.abort();
      }
    },
  });
  return stored;
}

describe('a tool call cut off by a crash gets its ledger row when recovery settles the run', () => {
  it('one failed row per started call without a row, numbered after the last, the same on every pass', async () => {
    env.fake.setScenario([command('call_c')]);
    const frames = await framesUntil(TERMINAL, 'build', {});
    const before = translate(frames).audit;
    expect(before.map((a) => [a.seq_within_turn, a.call_class])).toEqual([[1, 'model']]);

    const settled = translate([...frames, ...RECOVERY]);
    const cut = settled.audit.slice(before.length);
    expect(cut).toEqual([
      expect.objectContaining({
        session_id: 'thr_test',
        turn_id: 'run_test',
        stage_id: 'tool-loop',
        seq_within_turn: 2,
        call_class: 'tool',
        provider: 'builtin',
        transport: 'in-process',
        status: 'error',
        // From the tool's start (then its approval card, the answer, the output) to the last frame its
        // process stored: a lower bound.
        latency_ms: 3000,
        payload: {
          kind: 'tool_call',
          toolCallId: 'call_c',
          toolName: 'run_command',
          input: { command: 'echo started; sleep 5' },
          error: 'engine process lost',
          approval: { decision: 'allow_once' },
        },
      }),
    ]);
    expect(cut[0]?.record_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    // A second translation (the lane's final pass after a live one) rebuilds the row byte for byte.
    expect(translate([...frames, ...RECOVERY]).audit).toEqual(settled.audit);
    expect(settled.events.find((e) => e.draft.kind === 'tool.completed')?.draft.payload).toMatchObject({
      toolCallId: 'call_c',
      status: 'failed',
    });
  });

  it("inside a sub-agent: the child's command and the parent's task call each get a row in their own session", async () => {
    env.fake.setScenario([
      { toolCalls: [{ name: 'task', arguments: { description: 'd', prompt: 'build it' }, id: 'call_t' }] },
      command('call_cc'),
    ]);
    const frames = await framesUntil(TERMINAL, 'build', { subagents: true });
    const { audit } = translate([...frames, ...RECOVERY]);
    const child = 'thr_test:task:call_t';
    expect(audit.map((a) => [a.session_id, a.seq_within_turn, a.call_class, a.status])).toEqual([
      ['thr_test', 1, 'model', 'ok'],
      [child, 1, 'model', 'ok'],
      [child, 2, 'tool', 'error'],
      ['thr_test', 2, 'tool', 'error'],
    ]);
    expect(audit[2]).toMatchObject({ turn_id: 'run_test:task:call_t', payload: { toolCallId: 'call_cc' } });
    expect(audit[3]).toMatchObject({ turn_id: 'run_test', payload: { toolName: 'task' } });
  });

  it('a call cut off while its approval waits: the row says the approval was cancelled by the system', async () => {
    env.fake.setScenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'w.txt', content: 'x' }, id: 'call_w' }] },
    ]);
    const frames: JsonValue[] = [];
    const abort = new AbortController();
    await runTurn(chatDriver(env.fake.url), {
      prompt: 'write',
      workDir: env.work,
      signal: abort.signal,
      onFrame: (f) => frames.push(f),
      approve: () => {
        abort.abort();
        return { outcome: 'cancelled' };
      },
    });
    // The process died while the card was up: nothing after the approval frame was stored.
    const upTo = frames.findIndex((f) => JSON.stringify(f).includes('"rt":"approval"'));
    const { audit } = translate([...frames.slice(0, upTo + 1), ...RECOVERY]);
    expect(audit.at(-1)).toMatchObject({
      seq_within_turn: 2,
      status: 'error',
      payload: { toolCallId: 'call_w', approval: { decision: 'cancelled', answeredBy: 'system' } },
    });
  });

  it('a model call cut off mid-stream gets its row too, in its own stage (also anchor-plan, which streams no parts)', async () => {
    for (const [plan, stage, seq] of [
      [true, 'anchor-plan', 1],
      [false, 'tool-loop', 1],
    ] as const) {
      env.fake.setScenario([{ text: 'a long and slow answer '.repeat(20), chunkSize: 4, chunkDelayMs: 20 }]);
      const stored = await framesUntil(MODEL_START, 'talk', { plan });
      const { audit } = translate([...stored, ...RECOVERY]);
      expect(audit).toEqual([
        expect.objectContaining({
          stage_id: stage,
          seq_within_turn: seq,
          call_class: 'model',
          provider: 'openai-chat',
          model: 'fake-model',
          transport: 'openai-chat',
          session_auth_method: 'api_key',
          status: 'error',
          payload: {
            kind: 'model_call',
            request: expect.objectContaining({ messageCount: 1, promptPreview: 'talk' }),
            response: { toolCalls: [] },
            error: 'engine process lost',
          },
        }),
      ]);
    }
  });

  it("a sub-agent's first model call cut off: its row goes to the child's session, the task call's to the parent's", async () => {
    env.fake.setScenario([
      { toolCalls: [{ name: 'task', arguments: { description: 'd', prompt: 'talk' }, id: 'call_m' }] },
      { text: 'a long and slow answer '.repeat(20), chunkSize: 4, chunkDelayMs: 20 },
    ]);
    const frames = await framesUntil(`"frame":{${MODEL_START}`, 'delegate', { subagents: true });
    const { audit } = translate([...frames, ...RECOVERY]);
    expect(audit.map((a) => [a.session_id, a.turn_id, a.seq_within_turn, a.call_class, a.status])).toEqual([
      ['thr_test', 'run_test', 1, 'model', 'ok'],
      ['thr_test:task:call_m', 'run_test:task:call_m', 1, 'model', 'error'],
      ['thr_test', 'run_test', 2, 'tool', 'error'],
    ]);
  });

  it('a turn that ends well, or a cancelled one whose rows the runtime wrote, gets no extra row', async () => {
    env.fake.setScenario([command('call_ok'), { text: 'done' }]);
    const abort = new AbortController();
    const r = await runTurn(chatDriver(env.fake.url), {
      prompt: 'build',
      workDir: env.work,
      signal: abort.signal,
      onFrame: (f) => {
        if (JSON.stringify(f).includes('"rt":"terminal"')) abort.abort();
      },
    });
    expect(r.outcome.outcome).toBe('cancelled');
    expect(r.audit.map((a) => [a.seq_within_turn, a.call_class, a.status])).toEqual([
      [1, 'model', 'ok'],
      [2, 'tool', 'cancelled'],
    ]);
  });
});
