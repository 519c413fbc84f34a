import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { chatDriver, fakeModelAndWorkspace, runTurn } from './harness';

const env = fakeModelAndWorkspace('rt-cancel-');

const driver = (over: Record<string, unknown> = {}) => chatDriver(env.fake.url, over);

type Frame = { rt?: string; part?: { type?: string }; frame?: Frame };
const isTextDelta = (f: JsonValue) => {
  let x = f as Frame;
  while (x?.rt === 'child' && x.frame) x = x.frame;
  return x?.rt === 'part' && x.part?.type === 'text-delta';
};
const LONG = 'A slow answer that streams one small piece at a time, long enough to be cut off. '.repeat(4);

describe('run.cancel writes cancelled ledger rows', () => {
  it('an aborted model stream: its model row says cancelled, the open message is closed, the turn is cancelled', async () => {
    env.fake.setScenario([{ text: LONG, chunkSize: 4, chunkDelayMs: 20 }]);
    const abort = new AbortController();
    const r = await runTurn(driver(), {
      prompt: 'talk slowly',
      workDir: env.work,
      signal: abort.signal,
      onFrame: (f) => {
        if (isTextDelta(f) && !abort.signal.aborted) abort.abort();
      },
    });
    expect(r.outcome.outcome).toBe('cancelled');
    expect(r.audit).toHaveLength(1);
    expect(r.audit[0]).toMatchObject({
      call_class: 'model',
      status: 'cancelled',
      finish_reason: 'cancelled',
    });
    const done = r.events.find((e) => e.draft.kind === 'message.completed')?.draft.payload as {
      text: string;
    };
    expect(done.text.length).toBeLessThan(LONG.length);
    expect(r.events.at(-1)?.draft).toMatchObject({
      kind: 'turn.completed',
      payload: { stopReason: 'cancelled' },
    });
  });

  it('cancelled while an approval is pending: the tool row says cancelled and nothing is written', async () => {
    env.fake.setScenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'never.txt', content: 'x' }, id: 'call_p' }] },
    ]);
    const abort = new AbortController();
    const r = await runTurn(driver(), {
      prompt: 'write',
      workDir: env.work,
      signal: abort.signal,
      // What the lane answers for a pending approval when the run is cancelled.
      approve: () => {
        abort.abort();
        return { outcome: 'cancelled' };
      },
    });
    expect(r.outcome.outcome).toBe('cancelled');
    expect(r.audit.map((a) => [a.call_class, a.status])).toEqual([
      ['model', 'ok'],
      ['tool', 'cancelled'],
    ]);
    expect(r.audit[1]?.payload).toMatchObject({ approval: { decision: 'cancelled' } });
    await expect(readFile(join(env.work, 'never.txt'), 'utf8')).rejects.toThrow();
  });

  it('cancelled inside a sub-agent: the child model row, the parent task row and child.completed say cancelled', async () => {
    env.fake.setScenario([
      {
        toolCalls: [
          { name: 'task', arguments: { description: 'slow', prompt: 'talk slowly' }, id: 'call_t' },
        ],
      },
      { text: LONG, chunkSize: 4, chunkDelayMs: 20 },
    ]);
    const abort = new AbortController();
    const r = await runTurn(driver({ subagents: true }), {
      prompt: 'delegate',
      workDir: env.work,
      signal: abort.signal,
      onFrame: (f) => {
        if (isTextDelta(f) && !abort.signal.aborted) abort.abort();
      },
    });
    expect(r.outcome.outcome).toBe('cancelled');
    expect(r.audit.map((a) => [a.session_id, a.call_class, a.status])).toEqual([
      ['thr_test', 'model', 'ok'],
      ['thr_test:task:call_t', 'model', 'cancelled'],
      ['thr_test', 'tool', 'cancelled'],
    ]);
    expect(r.events.find((e) => e.draft.kind === 'child.completed')?.draft.payload).toMatchObject({
      status: 'cancelled',
      stopReason: 'cancelled',
    });
    // The child's open message is closed in its namespace when the turn ends.
    const childDone = r.events.find((e) => e.draft.kind === 'message.completed');
    expect(childDone?.namespace).toEqual(['thr_test:task:call_t']);
  });
});
