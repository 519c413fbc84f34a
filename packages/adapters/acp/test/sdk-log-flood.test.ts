import type { JsonValue } from '@agentlane/contract';
import type { TurnIO } from '@agentlane/engine-kit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hostileDriver } from './hostile-driver';

// A real ACP process (__fixtures__/hostile-agent.mjs) sending frames the SDK cannot use, many of them.
const { openSession, translate } = hostileDriver('thr_sdk_log', 'agentlane-acp-sdk-log-');

const io = (frames: JsonValue[]): TurnIO => ({
  emit: (frame) => frames.push(frame),
  signal: new AbortController().signal,
  awaitApproval: async () => ({ outcome: 'cancelled' }),
  awaitQuestion: async () => ({ outcome: 'cancelled' }),
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('ACP driver: malformed frames do not flood the process log', () => {
  it('the SDK logs nothing per bad frame; every frame is still recorded and translated', async () => {
    const logged: unknown[][] = [];
    for (const level of ['error', 'warn', 'log', 'info'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args));
    const session = await openSession();
    const frames: JsonValue[] = [];
    const rounds = 200;
    const turn = { threadId: 'thr_sdk_log', runId: 'run_1', turnId: 'run_1', prompt: `malformed ${rounds}` };
    expect(await session.runTurn(turn, io(frames))).toEqual({ outcome: 'completed' });
    expect(logged).toEqual([]);
    // The agent's messages are all in the source lane, the stray responses each after their warning.
    const fromAgent = frames.filter((f) => (f as { dir?: string }).dir === 'agent->client') as {
      msg: { method?: string; id?: number; result?: unknown };
    }[];
    expect(fromAgent.filter((f) => f.msg.method === 'session/update')).toHaveLength(rounds + 1);
    expect(fromAgent.filter((f) => f.msg.method === undefined && f.msg.result !== undefined)).toHaveLength(
      2 * rounds + 1,
    );
    const codes = translate(frames)
      .filter((e) => e.draft.kind === 'harness.warning')
      .map((e) => (e.draft.payload as { code: string }).code);
    expect(codes.filter((c) => c === 'acp.stray_response')).toHaveLength(rounds);
    expect(session.isAlive?.()).toBe(true);
  });
});
