import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createDriver } from '@agentlane/adapter-acp';
import type { AuditableCall } from '@agentlane/contract';
import {
  type FakeModelServer,
  slowStream,
  toolThenAnswer,
  writeFileTool,
} from '@agentlane/fake-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, ThreadStream } from './opencode-stack';
import { installedAcpEngines, presets } from './support/acp-engines';
import { answerApproval, cancelMidMessage, done, readAudit, requestedApproval } from './support/api';
import { type Fixture, startAuditedStack, startFixture } from './support/fixture';

// External engines are audited too, over ACP: real Claude Code, Codex and Gemini CLI against the fake model
// server, an approved write and a cancelled turn, the ledger read back through GET /sessions/:id/audit.

const { entries, engines: ENGINES } = installedAcpEngines('audit end-to-end');

describe.each(ENGINES)('%s audit rows through the HTTP API', { timeout: 300_000 }, (name) => {
  let fixture: Fixture;
  let fake: FakeModelServer;
  let dir: string;
  let work: string;
  let stack: Awaited<ReturnType<typeof startAuditedStack>>;
  let threadId: string;

  const audit = async (): Promise<AuditableCall[]> => (await readAudit(stack.api, threadId)).calls;
  const startRun = async (prompt: string) => {
    const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt });
    expect(created.status).toBe(201);
    return (created.json as { run: { runId: string } }).run.runId;
  };

  beforeAll(async () => {
    fixture = await startFixture(`agentlane-acp-audit-${name}`);
    ({ fake, dir, work } = fixture);
    const entry = entries[name];
    if (!entry) throw new Error(`${name} is not installed`);
    const driver = createDriver(
      presets[name]({ entry, modelBaseUrl: fake.url, homeRoot: join(dir, 'homes') }),
    );
    stack = await startAuditedStack(dir, work, driver);
    const session = await post(`${stack.api}/sessions`, { engine: name, title: 'audit', workDir: work });
    expect(session.status).toBe(201);
    threadId = (session.json as { session: { id: string } }).session.id;
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
    await fixture?.close();
  });

  it('an approved write: one tool row with the decision, one model row for the turn', async () => {
    const target = join(work, 'audited.txt');
    fake.setScenario(toolThenAnswer({ tool: writeFileTool(target, 'Audited!\n'), answer: 'Done: audited.' }));
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const runId = await startRun('Create audited.txt');
    await stream.waitFor((events) => events.some((e) => e.type === 'approval.requested'));
    const { payload, allowOnce: option } = requestedApproval(stream);
    await answerApproval(stack.api, runId, payload?.approvalId, option?.optionId);
    await stream.waitFor(done(runId));
    stream.close();
    expect(await readFile(target, 'utf8')).toBe('Audited!\n');

    const calls = (await audit()).filter((c) => c.turn_id === runId);
    // The approved tool may be preceded by tools the engine runs on its own (none with the fake model).
    const tool = calls.find((c) => c.payload.kind === 'tool_call' && c.payload.approval);
    expect(tool).toMatchObject({ call_class: 'tool', status: 'ok', transport: 'acp', provider: 'acp' });
    expect(tool?.payload).toMatchObject({
      toolCallId: payload?.toolCallId,
      approval: { decision: 'allow_once' },
    });
    const models = calls.filter((c) => c.call_class === 'model');
    expect(models).toHaveLength(1);
    expect(models[0]).toMatchObject({
      session_id: threadId,
      stage_id: 'engine-turn',
      status: 'ok',
      finish_reason: 'end_turn',
      session_auth_method: 'engine_managed',
    });
    expect(models[0]?.payload).toMatchObject({
      request: { messageCount: 1, promptPreview: 'Create audited.txt' },
      response: { textPreview: 'Done: audited.' },
    });
    // Claude Code sends the turn's usage, Gemini CLI its `_meta.quota`; Codex only context-window usage.
    if (name !== 'codex') {
      expect(models[0]?.payload).toMatchObject({ usage: { inputTokens: expect.any(Number) } });
    }
    console.info(
      `[${name} audit] ${calls.map((c) => `${c.call_class} ${c.status} ${c.latency_ms} ms ${JSON.stringify(c.payload.kind === 'model_call' ? (c.payload.usage ?? {}) : {})}`).join('; ')}`,
    );
    // The model row comes last: every call of the turn ended before the turn did.
    expect(calls.at(-1)?.call_class).toBe('model');
    expect(calls.map((c) => c.seq_within_turn)).toEqual(calls.map((_, i) => i + 1));
  });

  it('a cancelled turn: its model row says cancelled', async () => {
    fake.setScenario(slowStream({ chunks: 400, delayMs: 50 }));
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const runId = await startRun('Talk slowly');
    await cancelMidMessage(stack.api, stream, runId);
    const calls = (await audit()).filter((c) => c.turn_id === runId);
    expect(calls.map((c) => [c.call_class, c.status, c.finish_reason])).toEqual([
      ['model', 'cancelled', 'cancelled'],
    ]);
  });
});
