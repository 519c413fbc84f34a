import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createDriver, type OpenCodeDriver } from '@agentlane/adapter-opencode';
import { type FakeModelServer, toolThenAnswer, writeFileTool } from '@agentlane/fake-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCodeBinaryOrReason } from './opencode-harness';
import { post, ThreadStream } from './opencode-stack';
import { answerApproval, done, readAudit } from './support/api';
import { type Fixture, startAuditedStack, startFixture } from './support/fixture';
import { openCodeConfig } from './support/opencode-config';

// External engines are audited too: a real OpenCode server against the fake model server, a prompt whose
// write tool needs an approval answered through the API, then the ledger read back through
// GET /sessions/:id/audit. One row per tool call, one model row for the turn, transport `opencode-http`.

const { binary, reason } = openCodeBinaryOrReason();
if (reason) console.warn(`[skip] OpenCode audit end-to-end test: ${reason}`);

describe.skipIf(!binary)('OpenCode audit rows through the HTTP API', () => {
  let fixture: Fixture;
  let fake: FakeModelServer;
  let dir: string;
  let work: string;
  let driver: OpenCodeDriver;
  let stack: Awaited<ReturnType<typeof startAuditedStack>>;

  beforeAll(async () => {
    fixture = await startFixture('agentlane-oc-audit');
    ({ fake, dir, work } = fixture);
    driver = createDriver({
      binary,
      home: join(dir, 'opencode-home'),
      config: openCodeConfig(fake),
      settleMs: 150,
    });
    stack = await startAuditedStack(dir, work, driver);
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
    await driver?.dispose();
    await fixture?.close();
  });

  it('an approved write tool and the turn become ledger rows, readable through the API', async () => {
    const target = join(work, 'audited.txt');
    fake.setScenario(toolThenAnswer({ tool: writeFileTool(target, 'Audited!\n'), answer: 'Done.' }));
    const session = await post(`${stack.api}/sessions`, {
      engine: 'opencode',
      title: 'audit',
      workDir: work,
    });
    expect(session.status).toBe(201);
    const threadId = (session.json as { session: { id: string } }).session.id;
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt: 'Create audited.txt' });
    expect(created.status).toBe(201);
    const runId = (created.json as { run: { runId: string } }).run.runId;
    await stream.waitFor((events) => events.some((e) => e.type === 'approval.requested'));
    const asked = stream.canonical(runId).find((e) => e.type === 'approval.requested');
    const approvalId = asked?.event.kind === 'approval.requested' ? asked.event.payload.approvalId : '';
    await answerApproval(stack.api, runId, approvalId, 'once');
    await stream.waitFor(done(runId));
    stream.close();
    expect(await readFile(target, 'utf8')).toBe('Audited!\n');

    const { calls, nextCursor } = await readAudit(stack.api, threadId);
    expect(nextCursor).toBeNull();
    // Written live, written again by the final pass: still one row per call.
    expect(calls.map((c) => [c.call_class, c.seq_within_turn, c.status])).toEqual([
      ['tool', 1, 'ok'],
      ['model', 2, 'ok'],
    ]);
    for (const call of calls) {
      expect(call).toMatchObject({
        session_id: threadId,
        turn_id: runId,
        stage_id: 'engine-turn',
        actor_kind: 'engine',
        provider: 'opencode',
        transport: 'opencode-http',
        http_status: null,
      });
    }
    const [tool, turn] = calls;
    const toolEvent = stream.canonical(runId).find((e) => e.type === 'tool.started');
    const toolCallId = toolEvent?.event.kind === 'tool.started' ? toolEvent.event.payload.toolCallId : '';
    expect(tool?.payload).toMatchObject({
      kind: 'tool_call',
      toolCallId,
      toolName: 'write',
      input: { filePath: target, content: 'Audited!\n' },
      approval: { decision: 'allow_once' },
    });
    // The model row carries the turn's usage: the sum of the steps OpenCode reported.
    const steps = stream
      .canonical(runId)
      .flatMap((e) =>
        e.event.kind === 'usage.updated' && e.event.payload.scope === 'step' ? [e.event.payload] : [],
      );
    expect(steps.length).toBeGreaterThanOrEqual(2);
    const sum = (k: 'inputTokens' | 'outputTokens') => steps.reduce((n, s) => n + (s[k] ?? 0), 0);
    expect(turn).toMatchObject({ model: 'fake/fake-model', finish_reason: 'end_turn' });
    expect(turn?.payload).toMatchObject({
      kind: 'model_call',
      request: { messageCount: 1, promptPreview: 'Create audited.txt' },
      response: { textPreview: 'Done.', toolCalls: [{ toolCallId, toolName: 'write' }] },
      usage: { inputTokens: sum('inputTokens'), outputTokens: sum('outputTokens') },
    });
  }, 300_000);
});
