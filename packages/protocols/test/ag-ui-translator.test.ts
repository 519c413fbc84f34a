import { type BaseEvent, EventType } from '@ag-ui/core';
import type { CanonicalEvent } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { AgUiTranslator } from '../src/ag-ui/ag-ui-translator';
import { expectValidAgUi } from './support/ag-ui-check';
import { appendInputRows, RECORDED, type RecordedName, recordedRows } from './support/fixtures';

/** A whole run as one AG-UI run: RUN_STARTED, the events, what is still open closed, RUN_FINISHED. */
function asRun(rows: { event: CanonicalEvent }[]): { events: BaseEvent[]; t: AgUiTranslator } {
  const t = new AgUiTranslator();
  t.addUserMessage('user-1', 'prompt');
  const events: BaseEvent[] = [{ type: EventType.RUN_STARTED, threadId: 'thr', runId: 'r1' } as BaseEvent];
  for (const row of rows) events.push(...t.push(row.event));
  events.push(...t.close(), { type: EventType.RUN_FINISHED, threadId: 'thr', runId: 'r1' } as BaseEvent);
  return { events, t };
}

const assistantText = (rows: { event: CanonicalEvent }[]) =>
  rows
    .flatMap(({ event }) =>
      event.kind === 'message.completed' && event.payload.role === 'assistant' ? [event.payload.text] : [],
    )
    .join('');

describe('canonical events → AG-UI events, on recorded engine sessions', () => {
  it('the checker is real: the verifier refuses content without a start', async () => {
    const bad = [
      { type: EventType.RUN_STARTED, threadId: 't', runId: 'r' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm', delta: 'x' },
    ] as BaseEvent[];
    await expect(expectValidAgUi(bad)).rejects.toThrow(/TEXT_MESSAGE_START/);
  });

  it.each(Object.keys(RECORDED) as RecordedName[])(
    '%s: schema-valid, in an order the verifier accepts',
    async (name) => {
      const rows = recordedRows(name);
      const { events, t } = asRun(rows);
      await expectValidAgUi(events);
      const messages = t.messages.snapshot();
      const text = messages
        .flatMap((m) => (m.role === 'assistant' && typeof m.content === 'string' ? [m.content] : []))
        .join('');
      expect(text).toBe(assistantText(rows));
      const calls = rows.flatMap(({ event }) =>
        event.kind === 'tool.started' ? [event.payload.toolCallId] : [],
      );
      const results = messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : []));
      expect(results.sort()).toEqual([...calls].sort());
      // No tool call starts while a text message or reasoning is open: what comes before it has ended.
      const open = new Set<string>();
      for (const e of events as unknown as { type: string; messageId?: string }[]) {
        if (e.type === EventType.TEXT_MESSAGE_START || e.type === EventType.REASONING_MESSAGE_START)
          open.add(e.messageId as string);
        if (e.type === EventType.TEXT_MESSAGE_END || e.type === EventType.REASONING_MESSAGE_END)
          open.delete(e.messageId as string);
        if (e.type === EventType.TOOL_CALL_START) expect([...open]).toEqual([]);
      }
      // Each tool call's arguments are whole JSON once the call ended.
      for (const m of messages) {
        if (m.role !== 'assistant') continue;
        for (const call of m.toolCalls ?? []) expect(() => JSON.parse(call.function.arguments)).not.toThrow();
      }
    },
  );

  it('two turns whose engine reused a message id are two assistant messages, in their turns', async () => {
    const t = new AgUiTranslator();
    const events: BaseEvent[] = [{ type: EventType.RUN_STARTED, threadId: 'thr', runId: 'r' } as BaseEvent];
    let seq = 0;
    const ev = (turnId: string, kind: string, payload: object) =>
      ({
        schemaVersion: 1,
        eventId: `ev_${++seq}`,
        seq,
        runId: turnId,
        threadId: 'thr',
        turnId,
        ts: '2026-01-01T00:00:00.000Z',
        identity: { provider: 'builtin' },
        kind,
        payload,
      }) as unknown as CanonicalEvent;
    for (const [turn, text] of [
      ['run1', 'first'],
      ['run2', 'second'],
    ]) {
      t.addUserMessage(`user-${turn}`, turn as string);
      const messageId = 'msg-1-txt-0';
      events.push(...t.push(ev(turn as string, 'message.started', { messageId, role: 'assistant' })));
      events.push(
        ...t.push(ev(turn as string, 'message.delta', { messageId, partId: messageId, delta: text })),
      );
      events.push(...t.push(ev(turn as string, 'message.completed', { messageId, role: 'assistant', text })));
    }
    events.push(...t.close(), { type: EventType.RUN_FINISHED, threadId: 'thr', runId: 'r' } as BaseEvent);
    await expectValidAgUi(events);
    // Before: one assistant message "firstsecond", before the second user message.
    expect(t.messages.snapshot().map((m) => [m.role, m.content])).toEqual([
      ['user', 'run1'],
      ['assistant', 'first'],
      ['user', 'run2'],
      ['assistant', 'second'],
    ]);
  });

  it('streamed tool input in the append form: each inputDelta is one TOOL_CALL_ARGS delta', async () => {
    const { events } = asRun(appendInputRows());
    await expectValidAgUi(events);
    const args = events.filter((e) => e.type === EventType.TOOL_CALL_ARGS) as unknown as { delta: string }[];
    expect(args.map((e) => e.delta)).toEqual(['{"path":"a.txt",', '"content":"hi"}']);
  });

  it('plan and usage are state deltas on the snapshot shape; other surfaces are CUSTOM', async () => {
    const { events, t } = asRun(recordedRows('builtin'));
    const deltas = events.filter((e) => e.type === EventType.STATE_DELTA) as unknown as {
      delta: { path: string }[];
    }[];
    expect(deltas.map((d) => d.delta[0]?.path)).toEqual(
      expect.arrayContaining(['/plan', '/usage/step', '/usage/turn']),
    );
    expect(t.state.plan?.entries).toHaveLength(2);
    const customs = events.filter((e) => e.type === EventType.CUSTOM) as unknown as { name: string }[];
    expect(customs.map((c) => c.name)).toEqual(
      expect.arrayContaining(['agentlane.file.changed', 'agentlane.approval.requested']),
    );
    expect(events.filter((e) => e.type === EventType.STEP_STARTED).length).toBeGreaterThan(0);
  });

  it('an approval asked and not answered is an interrupt of the tool call; a snapshot continues the run', async () => {
    const rows = recordedRows('claude-agent-acp');
    const asked = rows.findIndex((r) => r.event.kind === 'approval.requested');
    const t = new AgUiTranslator();
    const first: BaseEvent[] = [{ type: EventType.RUN_STARTED, threadId: 'thr', runId: 'r1' } as BaseEvent];
    for (const row of rows.slice(0, asked + 1)) first.push(...t.push(row.event));
    const interrupts = t.pendingInterrupts;
    expect(interrupts).toHaveLength(1);
    expect(interrupts[0]).toMatchObject({
      id: 'perm-0',
      reason: 'tool_approval',
      toolCallId: 'toolu_fake_1',
    });
    first.push(...t.close(), {
      type: EventType.RUN_FINISHED,
      threadId: 'thr',
      runId: 'r1',
      outcome: { type: 'interrupt', interrupts },
    } as BaseEvent);
    await expectValidAgUi(first);

    // The resumed AG-UI run: snapshot first, then the rest; nothing doubled.
    t.forgetOpen();
    const before = t.messages.snapshot();
    const second: BaseEvent[] = [
      { type: EventType.RUN_STARTED, threadId: 'thr', runId: 'r2' } as BaseEvent,
      { type: EventType.MESSAGES_SNAPSHOT, messages: before } as BaseEvent,
    ];
    for (const row of rows.slice(asked + 1)) second.push(...t.push(row.event));
    second.push(...t.close(), { type: EventType.RUN_FINISHED, threadId: 'thr', runId: 'r2' } as BaseEvent);
    await expectValidAgUi(second);
    expect(t.pendingInterrupts).toHaveLength(0);
    const text = t.messages
      .snapshot()
      .flatMap((m) => (m.role === 'assistant' && typeof m.content === 'string' ? [m.content] : []))
      .join('');
    expect(text).toBe(assistantText(rows));
  });

  it('a question asked and not answered is an interrupt of reason question; its answer clears it', async () => {
    const rows = recordedRows('builtin-question');
    const asked = rows.findIndex((r) => r.event.kind === 'question.requested');
    const t = new AgUiTranslator();
    for (const row of rows.slice(0, asked + 1)) t.push(row.event);
    const question = rows[asked]?.event as Extract<CanonicalEvent, { kind: 'question.requested' }>;
    expect(t.pendingInterrupts).toHaveLength(1);
    expect(t.pendingInterrupts[0]).toMatchObject({ id: question.payload.questionId, reason: 'question' });
    for (const row of rows.slice(asked + 1)) t.push(row.event);
    expect(t.pendingInterrupts).toHaveLength(0);
  });
});
