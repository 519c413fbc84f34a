import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowAndRecord, chatDriver, DELEGATING_TURN, fakeModelAndWorkspace, runTurn } from './harness';

const env = fakeModelAndWorkspace('rt-sub-');

const CHILD = 'thr_test:task:call_task';

describe('the task tool (sub-agents)', () => {
  it('runs a child session with its own turn, namespace-tagged events and its own ledger rows', async () => {
    env.fake.setScenario([
      {
        text: 'Delegating.',
        toolCalls: [
          {
            name: 'task',
            arguments: { description: 'Write the note', prompt: 'Write note.txt with "from child"' },
            id: 'call_task',
          },
        ],
      },
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'note.txt', content: 'from child' }, id: 'call_w' },
        ],
      },
      { text: 'Child wrote note.txt.' },
      { text: 'The sub-agent wrote note.txt.' },
    ]);
    const { asked, approve } = allowAndRecord();
    const driver = chatDriver(env.fake.url, { subagents: true });
    const r = await runTurn(driver, { prompt: 'delegate the note', workDir: env.work, approve });
    expect(r.outcome.outcome).toBe('completed');
    expect(await readFile(join(env.work, 'note.txt'), 'utf8')).toBe('from child');

    // Depth limit: the parent is offered `task`, the child is not.
    const requests = env.fake.modelRequests().slice(-4);
    expect(requests.map((q) => q.toolNames.includes('task'))).toEqual([true, false, false, true]);
    // The child starts from its own conversation: only its task prompt.
    expect(requests[1]?.lastUserPrompt).toBe('Write note.txt with "from child"');
    expect(JSON.stringify(requests[3]?.body)).toContain('Child wrote note.txt.');

    const top = r.events.filter((e) => !e.namespace);
    const child = r.events.filter((e) => e.namespace?.[0] === CHILD);
    expect(top.find((e) => e.draft.kind === 'child.started')?.draft.payload).toEqual({
      childSessionId: CHILD,
      childRunId: 'run_test:task:call_task',
      parentToolCallId: 'call_task',
      title: 'Write the note',
      description: 'Write note.txt with "from child"',
    });
    expect(
      top
        .filter((e) => e.draft.kind === 'child.updated')
        .map((e) => (e.draft.payload as { state: string }).state),
    ).toEqual(['running', 'requires_action', 'running']);
    expect(top.find((e) => e.draft.kind === 'child.completed')?.draft.payload).toEqual({
      childSessionId: CHILD,
      status: 'completed',
      summary: 'Child wrote note.txt.',
    });
    const childKinds = child.map((e) => e.draft.kind);
    for (const k of [
      'tool.started',
      'approval.requested',
      'approval.resolved',
      'file.changed',
      'message.completed',
    ])
      expect(childKinds, k).toContain(k);
    expect(childKinds).not.toContain('session.metadata');
    // The child's approval has its own id, answered through the same TurnIO, resolved in the child's namespace.
    expect(asked).toEqual(['apr-t-call_task-call_w']);
    expect(child.find((e) => e.draft.kind === 'approval.resolved')?.draft.payload).toMatchObject({
      approvalId: 'apr-t-call_task-call_w',
      decision: 'allow_once',
    });
    // The parent's task tool completes after the child, with the child's answer as its output.
    const done = top.find((e) => e.draft.kind === 'tool.completed')?.draft.payload;
    expect(done).toMatchObject({
      toolCallId: 'call_task',
      status: 'completed',
      output: { childSessionId: CHILD, status: 'completed', answer: 'Child wrote note.txt.' },
    });
    // Event keys are unique across scopes.
    const keys = r.events.map((e) => e.key);
    expect(new Set(keys).size).toBe(keys.length);

    // Ledger: the child's rows under its own session and turn ids, numbered within its own turn.
    const rows = (sid: string) =>
      r.audit.filter((a) => a.session_id === sid).map((a) => [a.turn_id, a.seq_within_turn, a.call_class]);
    expect(rows(CHILD)).toEqual([
      ['run_test:task:call_task', 1, 'model'],
      ['run_test:task:call_task', 2, 'tool'],
      ['run_test:task:call_task', 3, 'model'],
    ]);
    expect(rows('thr_test')).toEqual([
      ['run_test', 1, 'model'],
      ['run_test', 2, 'tool'],
      ['run_test', 3, 'model'],
    ]);
  });

  it('maxDepth 2 lets a child spawn a grandchild, whose events carry the two-level namespace', async () => {
    env.fake.setScenario([
      { toolCalls: [{ name: 'task', arguments: { description: 'a', prompt: 'level one' }, id: 'call_a' }] },
      { toolCalls: [{ name: 'task', arguments: { description: 'b', prompt: 'level two' }, id: 'call_b' }] },
      { text: 'deepest' },
      { text: 'middle' },
      { text: 'top' },
    ]);
    const driver = chatDriver(env.fake.url, { subagents: { maxDepth: 2 } });
    const r = await runTurn(driver, { prompt: 'nest', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
    const requests = env.fake.modelRequests().slice(-5);
    expect(requests.map((q) => q.toolNames.includes('task'))).toEqual([true, true, false, true, true]);
    const a = 'thr_test:task:call_a';
    const b = `${a}:task:call_b`;
    const deepest = r.events.find(
      (e) => e.draft.kind === 'message.completed' && (e.draft.payload as { text: string }).text === 'deepest',
    );
    expect(deepest?.namespace).toEqual([a, b]);
    const started = r.events.filter((e) => e.draft.kind === 'child.started').map((e) => e.namespace ?? []);
    expect(started).toEqual([[], [a]]);
  });

  it("the parent turn's usage totals and cost include what its sub-agents spent; the child keeps its own", async () => {
    env.fake.setScenario(DELEGATING_TURN);
    const driver = chatDriver(env.fake.url, {
      subagents: true,
      prices: { 'fake-model': { input: 1, output: 2 } },
    });
    const r = await runTurn(driver, { prompt: 'spend', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
    const turnUsage = (scope: 'top' | 'child') =>
      r.events
        .filter(
          (e) =>
            e.draft.kind === 'usage.updated' &&
            e.draft.payload.scope === 'turn' &&
            (scope === 'top' ? !e.namespace : e.namespace?.[0] === 'thr_test:task:call_u'),
        )
        .map((e) => e.draft.payload);
    // The child: 500 in, 50 out, (500 + 100) / 1M. The parent: its own 500 / 50 plus the child's.
    const totals = (input: number, output: number, amount: number) => [
      {
        scope: 'turn',
        inputTokens: input,
        outputTokens: output,
        cost: { amount, currency: 'USD' },
        model: 'fake-model',
      },
    ];
    expect(turnUsage('child')).toEqual(totals(500, 50, 0.0006));
    expect(turnUsage('top')).toEqual(totals(1000, 100, 0.0012));
    // Step usage and ledger rows stay per call: the parent's model rows carry only the parent's own calls.
    const parentModelRows = r.audit.filter((a) => a.session_id === 'thr_test' && a.call_class === 'model');
    expect(
      parentModelRows.map((a) => (a.payload.kind === 'model_call' ? a.payload.usage?.inputTokens : 0)),
    ).toEqual([100, 400]);
  });

  it('without `subagents` there is no task tool and childSessions is false', async () => {
    env.fake.setScenario([{ text: 'plain' }]);
    const frames: unknown[] = [];
    const driver = chatDriver(env.fake.url, { model: 'm' });
    await runTurn(driver, { prompt: 'hi', workDir: env.work, onFrame: (f) => frames.push(f) });
    expect(env.fake.modelRequests().at(-1)?.toolNames).not.toContain('task');
    expect(frames[0]).toMatchObject({ harness: 'session.bound', capabilities: { childSessions: false } });
  });
});
