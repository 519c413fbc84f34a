import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelApi } from '@agentlane/adapter-builtin';
import type { AuditableCall } from '@agentlane/contract';
import { type ModelReply, startFakeModelServer } from '@agentlane/fake-model-server';
import { afterEach, describe, expect, it } from 'vitest';
import { PLANTED_KEY, startBuiltinStack } from './builtin-stack';
import { post, ThreadStream } from './opencode-stack';
import { APPROVED_WRITE_KINDS, answerApproval, done, expectKinds } from './support/api';

const BASE: Record<ModelApi, (url: string) => string> = {
  'openai-chat': (u) => `${u}/v1`,
  'openai-responses': (u) => `${u}/v1`,
  anthropic: (u) => `${u}/v1`,
  google: (u) => `${u}/v1beta`,
};

describe.each(['openai-chat', 'openai-responses', 'anthropic', 'google'] as ModelApi[])(
  'built-in engine through the HTTP API (%s)',
  (api) => {
    let cleanup: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const c of cleanup.reverse()) await c();
      cleanup = [];
    });

    /** The fake model server on `script`, the stack around the built-in engine on it, fresh folders. */
    const start = async (prefix: string, script: ModelReply[], options: { subagents?: boolean } = {}) => {
      const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
      const work = await mkdtemp(join(tmpdir(), `${prefix}-work-`));
      const fake = await startFakeModelServer({ script });
      const stack = await startBuiltinStack({
        db: join(dir, 'a.db'),
        workDir: work,
        api,
        baseURL: BASE[api](fake.url),
        ...options,
      });
      cleanup.push(
        () => fake.close(),
        () => stack.stop(),
        () => rm(dir, { recursive: true, force: true }),
        () => rm(work, { recursive: true, force: true }),
      );
      return { dir, work, stack };
    };

    /** Answers the run's approval request with `allow` and waits until the run is canonicalized. */
    const approveAndFinish = async (stack: { api: string }, stream: ThreadStream, runId: string) => {
      const asked = stream.canonical(runId).find((e) => e.type === 'approval.requested');
      const approvalId = asked?.event.kind === 'approval.requested' ? asked.event.payload.approvalId : '';
      await answerApproval(stack.api, runId, approvalId, 'allow');
      await stream.waitFor(done(runId), 30_000);
      stream.close();
    };

    it('plans, asks approval for a write, writes the file, answers; ledger rows and checkpoints', async () => {
      const { dir, work, stack } = await start('builtin-e2e', [
        { text: '1. Write hello.txt\n2. Tell the user' },
        {
          text: 'Writing it.',
          toolCalls: [
            { name: 'write_file', arguments: { path: 'hello.txt', content: 'hi\n' }, id: 'call_w1' },
          ],
        },
        { text: 'Done: hello.txt holds hi.' },
      ]);

      const session = await post(`${stack.api}/sessions`, { engine: 'builtin', title: 'e2e', workDir: work });
      expect(session.status).toBe(201);
      const threadId = (session.json as { session: { id: string } }).session.id;
      const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
      const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt: 'Create hello.txt' });
      expect(created.status).toBe(201);
      const runId = (created.json as { run: { runId: string } }).run.runId;
      await stream.waitFor(
        (events) => events.some((e) => e.type === 'approval.requested' || e.type === 'run.canonicalized'),
        30_000,
      );
      expect(
        stream
          .canonical(runId)
          .filter((e) => e.type === 'harness.error')
          .map((e) => e.event.payload),
      ).toEqual([]);
      await approveAndFinish(stack, stream, runId);

      expect(await readFile(join(work, 'hello.txt'), 'utf8')).toBe('hi\n');
      const events = stream.canonical(runId);
      const kinds = events.map((e) => e.type);
      expectKinds(kinds, [
        'session.started',
        'turn.started',
        'plan.updated',
        'message.started',
        'message.delta',
        'message.completed',
        ...APPROVED_WRITE_KINDS,
        'turn.completed',
      ]);
      expect(events.find((e) => e.type === 'turn.completed')?.event.payload).toMatchObject({
        stopReason: 'end_turn',
      });
      const messages = events.filter((e) => e.type === 'message.completed').map((e) => e.event.payload);
      expect(messages.at(-1)).toMatchObject({ text: 'Done: hello.txt holds hi.' });

      // The ledger through the API: 3 model calls and 1 tool call, in order, with HTTP status from fetch.
      const audit = await fetch(`${stack.api}/sessions/${threadId}/audit`);
      expect(audit.status).toBe(200);
      const calls = ((await audit.json()) as { calls: AuditableCall[] }).calls;
      expect(calls.map((c) => [c.stage_id, c.call_class, c.status, c.seq_within_turn])).toEqual([
        ['anchor-plan', 'model', 'ok', 1],
        ['tool-loop', 'model', 'ok', 2],
        ['tool-loop', 'tool', 'ok', 3],
        ['tool-loop', 'model', 'ok', 4],
      ]);
      expect(calls.filter((c) => c.call_class === 'model').every((c) => c.http_status === 200)).toBe(true);
      expect(calls[2]?.payload).toMatchObject({
        kind: 'tool_call',
        toolName: 'write_file',
        approval: { decision: 'allow_once' },
      });
      const page = await fetch(`${stack.api}/sessions/${threadId}/audit?limit=2`);
      const first = (await page.json()) as { calls: AuditableCall[]; nextCursor: string };
      expect(first.calls).toHaveLength(2);
      const rest = await fetch(`${stack.api}/sessions/${threadId}/audit?limit=2&cursor=${first.nextCursor}`);
      expect(((await rest.json()) as { calls: AuditableCall[] }).calls.map((c) => c.seq_within_turn)).toEqual(
        [3, 4],
      );

      // One checkpoint per stage; the newest holds the whole conversation.
      const list = await fetch(`${stack.api}/sessions/${threadId}/checkpoints`);
      const cps = ((await list.json()) as { checkpoints: { stageId: string; checkpointId: string }[] })
        .checkpoints;
      expect(cps.map((c) => c.stageId).reverse()).toEqual([
        'anchor-plan',
        'tool-loop',
        'synthesize',
        'post-turn',
      ]);
      const latest = await (
        await fetch(`${stack.api}/sessions/${threadId}/checkpoints/${cps[0]?.checkpointId}`)
      ).json();
      const conv = (latest as { channels: { conversation: { value: { items: { role: string }[] } } } })
        .channels.conversation.value.items;
      expect(conv.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

      // The planted key reaches neither events, ledger, checkpoints nor the log.
      const everything = JSON.stringify([stream.events, calls, latest, stack.lines]);
      expect(everything).not.toContain(PLANTED_KEY);
      const dbBytes = await readFile(join(dir, 'a.db'));
      expect(dbBytes.includes(Buffer.from(PLANTED_KEY))).toBe(false);
    }, 60_000);

    it('a task call runs a sub-agent on the same thread: child.* in the parent, its events namespaced, its approval answered through the API, its own ledger rows', async () => {
      const { work, stack } = await start(
        'builtin-task',
        [
          { text: '1. Delegate the file\n2. Report' },
          {
            toolCalls: [
              {
                name: 'task',
                arguments: { description: 'Write child.txt', prompt: 'Create child.txt holding "kid"' },
                id: 'call_task1',
              },
            ],
          },
          {
            toolCalls: [
              { name: 'write_file', arguments: { path: 'child.txt', content: 'kid' }, id: 'call_cw' },
            ],
          },
          { text: 'child.txt written.' },
          { text: 'The sub-agent created child.txt.' },
        ],
        { subagents: true },
      );
      const session = await post(`${stack.api}/sessions`, {
        engine: 'builtin',
        title: 'task',
        workDir: work,
      });
      const threadId = (session.json as { session: { id: string } }).session.id;
      const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
      const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt: 'Delegate child.txt' });
      const runId = (created.json as { run: { runId: string } }).run.runId;
      await stream.waitFor(
        (events) => events.some((e) => e.type === 'approval.requested' || e.type === 'run.canonicalized'),
        30_000,
      );
      // Each provider API names the tool call its own way (call_…, toolu_…, generated): read the child's id.
      const started = stream.canonical(runId).find((e) => e.type === 'child.started');
      const childId = started?.event.kind === 'child.started' ? started.event.payload.childSessionId : '';
      const taskCallId = childId.slice(`${threadId}:task:`.length);
      expect(childId.startsWith(`${threadId}:task:`)).toBe(true);
      const asked = stream.canonical(runId).find((e) => e.type === 'approval.requested');
      expect(asked?.namespace).toEqual([childId]);
      await approveAndFinish(stack, stream, runId);

      expect(await readFile(join(work, 'child.txt'), 'utf8')).toBe('kid');
      const events = stream.canonical(runId);
      const top = events.filter((e) => !e.namespace);
      expect(top.map((e) => e.type)).toEqual(
        expect.arrayContaining(['child.started', 'child.updated', 'child.completed', 'turn.completed']),
      );
      expect(top.find((e) => e.type === 'child.started')?.event.payload).toMatchObject({
        childSessionId: childId,
        parentToolCallId: taskCallId,
        title: 'Write child.txt',
      });
      expect(top.find((e) => e.type === 'child.completed')?.event.payload).toMatchObject({
        childSessionId: childId,
        status: 'completed',
        summary: 'child.txt written.',
      });
      const inChild = events.filter((e) => e.namespace?.[0] === childId).map((e) => e.type);
      for (const kind of ['tool.started', 'approval.resolved', 'file.changed', 'message.completed'])
        expect(inChild, kind).toContain(kind);
      const last = top.filter((e) => e.type === 'message.completed').at(-1);
      expect(last?.event.payload).toMatchObject({ text: 'The sub-agent created child.txt.' });

      // The child's own ledger rows, under its own session id; the parent's task call is one tool row.
      const childAudit = await fetch(`${stack.api}/sessions/${encodeURIComponent(childId)}/audit`);
      const childCalls = ((await childAudit.json()) as { calls: AuditableCall[] }).calls;
      expect(childCalls.map((c) => [c.call_class, c.seq_within_turn, c.turn_id])).toEqual([
        ['model', 1, `${runId}:task:${taskCallId}`],
        ['tool', 2, `${runId}:task:${taskCallId}`],
        ['model', 3, `${runId}:task:${taskCallId}`],
      ]);
      const parentAudit = await fetch(`${stack.api}/sessions/${threadId}/audit`);
      const parentCalls = ((await parentAudit.json()) as { calls: AuditableCall[] }).calls;
      expect(parentCalls.map((c) => [c.stage_id, c.call_class])).toEqual([
        ['anchor-plan', 'model'],
        ['tool-loop', 'model'],
        ['tool-loop', 'tool'],
        ['tool-loop', 'model'],
      ]);
      expect(parentCalls[2]?.payload).toMatchObject({ kind: 'tool_call', toolName: 'task' });

      // The parent turn's usage totals include the sub-agent's: they are the sum over both sessions' model rows.
      const sum = (calls: AuditableCall[], k: 'inputTokens' | 'outputTokens') =>
        calls.reduce((n, c) => n + (c.payload.kind === 'model_call' ? (c.payload.usage?.[k] ?? 0) : 0), 0);
      const totals = top.find((e) => e.event.kind === 'usage.updated' && e.event.payload.scope === 'turn');
      expect(totals?.event.payload).toMatchObject({
        inputTokens: sum(parentCalls, 'inputTokens') + sum(childCalls, 'inputTokens'),
        outputTokens: sum(parentCalls, 'outputTokens') + sum(childCalls, 'outputTokens'),
      });
      expect(sum(childCalls, 'inputTokens')).toBeGreaterThan(0);
    }, 60_000);
  },
);

describe('built-in engine through the HTTP API: the turn budget', () => {
  it('a turn past its token budget ends its tool loop with a harness.warning and an answer, stop reason max_tokens', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'builtin-budget-'));
    const work = await mkdtemp(join(tmpdir(), 'builtin-budget-work-'));
    const step = (id: string) => ({
      toolCalls: [{ name: 'list_files', arguments: {}, id }],
      usage: { inputTokens: 100, outputTokens: 20 },
    });
    const fake = await startFakeModelServer({
      script: [
        { text: '1. Look around', usage: { inputTokens: 100, outputTokens: 5 } },
        step('call_b1'),
        step('call_b2'),
        { text: 'I looked around twice.', usage: { inputTokens: 100, outputTokens: 5 } },
      ],
    });
    const stack = await startBuiltinStack({
      db: join(dir, 'a.db'),
      workDir: work,
      api: 'openai-chat',
      baseURL: `${fake.url}/v1`,
      turnTokenBudget: 300,
    });
    try {
      const session = await post(`${stack.api}/sessions`, {
        engine: 'builtin',
        title: 'budget',
        workDir: work,
      });
      const threadId = (session.json as { session: { id: string } }).session.id;
      const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
      const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt: 'Look around' });
      const runId = (created.json as { run: { runId: string } }).run.runId;
      await stream.waitFor(
        (events) => events.some((e) => e.type === 'run.canonicalized' && e.runId === runId),
        30_000,
      );
      stream.close();
      const events = stream.canonical(runId);
      // Plan 105 + two steps of 120 = 345 tokens before the third step: past 300.
      expect(events.filter((e) => e.type === 'harness.warning').map((e) => e.event.payload)).toEqual([
        expect.objectContaining({ code: 'token_budget', detail: { limit: 300, spent: 345 } }),
      ]);
      expect(events.find((e) => e.type === 'turn.completed')?.event.payload).toMatchObject({
        stopReason: 'max_tokens',
        rawStopReason: 'token_budget',
      });
      const answer = events.filter((e) => e.type === 'message.completed').at(-1);
      expect(answer?.event.payload).toMatchObject({ text: 'I looked around twice.' });
      const audit = await fetch(`${stack.api}/sessions/${threadId}/audit`);
      const calls = ((await audit.json()) as { calls: AuditableCall[] }).calls;
      expect(calls.map((c) => `${c.stage_id}/${c.call_class}`)).toEqual([
        'anchor-plan/model',
        'tool-loop/model',
        'tool-loop/tool',
        'tool-loop/model',
        'tool-loop/tool',
        'synthesize/model',
      ]);
    } finally {
      await stack.stop();
      await fake.close();
      await rm(dir, { recursive: true, force: true });
      await rm(work, { recursive: true, force: true });
    }
  }, 60_000);
});
