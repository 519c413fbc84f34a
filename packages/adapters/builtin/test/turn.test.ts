import { readFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insideWorkspace } from '@agentlane/runtime';
import { describe, expect, it } from 'vitest';
import { chatDriver, fakeModelAndWorkspace, runTurn, translate } from './harness';

const env = fakeModelAndWorkspace('rt-turn-');

const driver = (over: Record<string, unknown> = {}) => chatDriver(env.fake.url, over);

describe('workspace confinement', () => {
  it('refuses absolute paths, .. escapes and symlinks out', async () => {
    expect(insideWorkspace(env.work, 'a/b.txt')).toBe(join(env.work, 'a/b.txt'));
    expect(() => insideWorkspace(env.work, '/etc/passwd')).toThrow(/absolute/);
    expect(() => insideWorkspace(env.work, '../x')).toThrow(/leaves the workspace/);
    await symlink(tmpdir(), join(env.work, 'out'));
    expect(() => insideWorkspace(env.work, 'out/x.txt')).toThrow(/symlink/);
  });
});

describe('the staged turn', () => {
  it('a bad tool input goes back to the model as a tool error and is recorded, not thrown', async () => {
    env.fake.setScenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt' }, id: 'call_bad' }] },
      { text: 'Sorry.' },
    ]);
    const r = await runTurn(driver(), { prompt: 'write', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
    const done = r.events.find((e) => e.draft.kind === 'tool.completed');
    expect(done?.draft.payload).toMatchObject({ toolCallId: 'call_bad', status: 'failed' });
    const tool = r.audit.find((a) => a.call_class === 'tool');
    expect(tool).toMatchObject({ status: 'error', stage_id: 'tool-loop' });
    expect(JSON.stringify(tool?.payload)).toContain('content');
    const second = env.fake.modelRequests().at(-1);
    expect(JSON.stringify(second?.body)).toContain('invalid input for write_file');
  });

  it('a rejected approval does not write and tells the model', async () => {
    env.fake.setScenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'no.txt', content: 'x' }, id: 'call_no' }] },
      { text: 'Understood.' },
    ]);
    const r = await runTurn(driver(), {
      prompt: 'write',
      workDir: env.work,
      approve: () => ({ outcome: 'selected', optionId: 'reject' }),
    });
    await expect(readFile(join(env.work, 'no.txt'), 'utf8')).rejects.toThrow();
    expect(r.events.find((e) => e.draft.kind === 'approval.resolved')?.draft.payload).toMatchObject({
      decision: 'reject_once',
    });
    expect(r.audit.find((a) => a.call_class === 'tool')?.payload).toMatchObject({
      approval: { decision: 'reject_once' },
    });
    // The decision went through the AI SDK's approval flow: the SDK asked (tool-approval-request) and,
    // given the rejection as a tool-approval-response, wrote the denial itself (tool-output-denied).
    const partTypes = r.frames.flatMap((f) => {
      const part = (f as { rt?: string; part?: { type?: string } }).part;
      return (f as { rt?: string }).rt === 'part' && part ? [part.type] : [];
    });
    expect(partTypes).toContain('tool-approval-request');
    expect(partTypes).toContain('tool-output-denied');
    const second = env.fake.modelRequests().at(-1)?.body as {
      messages: { role: string; content: unknown }[];
    };
    expect(second.messages.find((m) => m.role === 'tool')?.content).toBe('The user rejected this tool call.');
  });

  it.each([
    ['openai-responses', '/v1'],
    ['anthropic', '/v1'],
    ['google', '/v1beta'],
  ])('a denial reaches the model through the SDK on %s too', async (api, path) => {
    env.fake.setScenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'no2.txt', content: 'x' }, id: 'call_no2' }] },
      { text: 'Understood.' },
    ]);
    const r = await runTurn(driver({ api, baseURL: `${env.fake.url}${path}` }), {
      prompt: 'write',
      workDir: env.work,
      approve: () => ({ outcome: 'selected', optionId: 'reject' }),
    });
    expect(r.outcome.outcome).toBe('completed');
    expect(JSON.stringify(env.fake.modelRequests().at(-1)?.body)).toContain(
      'The user rejected this tool call.',
    );
    await expect(readFile(join(env.work, 'no2.txt'), 'utf8')).rejects.toThrow();
  });

  it('an approved call runs, a denied one does not; a later turn replays the denial as the SDK wrote it', async () => {
    env.fake.setScenario([
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'yes.txt', content: 'y' }, id: 'call_yes' },
          { name: 'write_file', arguments: { path: 'nope.txt', content: 'n' }, id: 'call_nope' },
        ],
      },
      { text: 'One written.' },
      { text: 'Still here.' },
    ]);
    const d = driver();
    const session = await d.openSession({
      threadId: 'thr_two',
      workDir: env.work,
      generation: 1,
      emit: () => {},
    });
    const asked: string[] = [];
    const io = (signal = new AbortController().signal) => ({
      emit: () => {},
      signal,
      awaitApproval: async (approvalId: string) => {
        asked.push(approvalId);
        return approvalId.endsWith('call_yes')
          ? { outcome: 'selected' as const, optionId: 'allow' }
          : { outcome: 'selected' as const, optionId: 'reject' };
      },
      awaitQuestion: async () => ({ outcome: 'declined' as const }),
    });
    const first = await session.runTurn(
      { threadId: 'thr_two', runId: 'r1', turnId: 'r1', prompt: 'write both' },
      io(),
    );
    expect(first.outcome).toBe('completed');
    expect(asked).toEqual(['apr-call_yes', 'apr-call_nope']);
    expect(await readFile(join(env.work, 'yes.txt'), 'utf8')).toBe('y');
    await expect(readFile(join(env.work, 'nope.txt'), 'utf8')).rejects.toThrow();
    const second = await session.runTurn(
      { threadId: 'thr_two', runId: 'r2', turnId: 'r2', prompt: 'again' },
      io(),
    );
    expect(second.outcome).toBe('completed');
    // Both model calls after the decision see the approved result and the denial, in call order.
    for (const req of env.fake.modelRequests().slice(-2)) {
      const tool = (
        req.body as { messages: { role: string; content: string; tool_call_id: string }[] }
      ).messages
        .filter((m) => m.role === 'tool')
        .map((m) => [m.tool_call_id, m.content]);
      expect(tool).toHaveLength(2);
      expect(tool[0]?.[0]).toBe('call_yes');
      expect(tool[1]).toEqual(['call_nope', 'The user rejected this tool call.']);
    }
  });

  it('the step limit is a harness.warning and a synthesized answer, not a hang', async () => {
    env.fake.setScenario((req) =>
      req.toolNames.length > 0
        ? { toolCalls: [{ name: 'list_files', arguments: {}, id: `call_${req.index}` }] }
        : { text: 'Here is what I found.' },
    );
    const r = await runTurn(driver({ maxSteps: 2 }), { prompt: 'loop forever', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
    expect(r.events.find((e) => e.draft.kind === 'harness.warning')?.draft.payload).toMatchObject({
      code: 'step_limit',
    });
    expect(r.events.find((e) => e.draft.kind === 'turn.completed')?.draft.payload).toMatchObject({
      stopReason: 'max_turn_requests',
    });
    expect(r.audit.map((a) => `${a.stage_id}/${a.call_class}`)).toEqual([
      'tool-loop/model',
      'tool-loop/tool',
      'tool-loop/model',
      'tool-loop/tool',
      'synthesize/model',
    ]);
  });

  it('run.cancel mid-command aborts it; its ledger row says cancelled', async () => {
    env.fake.setScenario([
      { toolCalls: [{ name: 'run_command', arguments: { command: 'sleep 5' }, id: 'call_sleep' }] },
    ]);
    const abort = new AbortController();
    const r = await runTurn(driver(), {
      prompt: 'sleep',
      workDir: env.work,
      signal: abort.signal,
      onFrame: (f) => {
        if (typeof f === 'object' && f !== null && (f as { rt?: string }).rt === 'tool.start')
          setTimeout(() => abort.abort(), 100);
      },
    });
    expect(r.outcome.outcome).toBe('cancelled');
    expect(r.audit.find((a) => a.call_class === 'tool')).toMatchObject({ status: 'cancelled' });
    expect(r.events.find((e) => e.draft.kind === 'turn.completed')?.draft.payload).toMatchObject({
      stopReason: 'cancelled',
    });
  });

  it('the translator is pure: the same frames give the same events and rows', async () => {
    env.fake.setScenario([{ reasoning: 'thinking', text: 'Hello there, how are you?' }]);
    const r = await runTurn(driver(), { prompt: 'hi', workDir: env.work });
    const frozen = JSON.stringify(r.frames);
    const again = translate(JSON.parse(frozen));
    expect(again.events).toEqual(r.events);
    expect(again.audit).toEqual(r.audit);
    expect(JSON.stringify(r.frames)).toBe(frozen);
    const kinds = r.events.map((e) => e.draft.kind);
    for (const k of [
      'reasoning.delta',
      'reasoning.completed',
      'message.delta',
      'message.completed',
      'usage.updated',
    ])
      expect(kinds).toContain(k);
    const text = r.events.find((e) => e.draft.kind === 'message.completed')?.draft.payload;
    expect(text).toMatchObject({ text: 'Hello there, how are you?' });
  });
});
