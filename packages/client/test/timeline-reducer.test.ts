import { describe, expect, it } from 'vitest';
import {
  initialTimelineState,
  openRequests,
  reduceTimelineBatch,
  rootTimeline,
  type TimelineItem,
} from '../src';
import { startedSession, ThreadBuilder } from './helpers/events';

function apply(frames: unknown[]) {
  return reduceTimelineBatch(initialTimelineState(), frames);
}

function items(frames: unknown[]): TimelineItem[] {
  return rootTimeline(apply(frames))?.items ?? [];
}

describe('reduceTimeline', () => {
  it('assembles a message from deltas by part, then takes the completed text as the truth', () => {
    const b = new ThreadBuilder();
    b.emit({ kind: 'turn.started', payload: { prompt: 'hi' } });
    b.emit({ kind: 'message.started', payload: { messageId: 'm1', role: 'assistant' } });
    b.emit({ kind: 'message.delta', payload: { messageId: 'm1', partId: 'p1', delta: 'Hel' } });
    b.emit({ kind: 'message.delta', payload: { messageId: 'm1', partId: 'p1', delta: 'lo' } });
    let state = apply(b.frames);
    let message = rootTimeline(state)?.items.find((i) => i.type === 'message');
    expect(message).toMatchObject({ text: 'Hello', status: 'streaming', provisional: true });
    b.emit({ kind: 'message.completed', payload: { messageId: 'm1', role: 'assistant', text: 'Hello!' } });
    state = apply(b.frames);
    message = rootTimeline(state)?.items.find((i) => i.type === 'message');
    expect(message).toMatchObject({ text: 'Hello!', status: 'completed' });
  });

  it('keeps two turns whose engine reused a message id apart (the built-in engine numbers them by step)', () => {
    const b = new ThreadBuilder();
    for (const [turn, text] of [
      ['turn1', 'first answer'],
      ['turn2', 'second answer'],
    ] as const) {
      b.runId = `run-${turn}`;
      b.turnId = turn;
      b.emit({ kind: 'turn.started', payload: { prompt: turn } });
      b.emit({ kind: 'message.started', payload: { messageId: 'msg-1-txt-0', role: 'assistant' } });
      b.emit({ kind: 'message.delta', payload: { messageId: 'msg-1-txt-0', partId: 'p', delta: text } });
      b.emit({ kind: 'message.completed', payload: { messageId: 'msg-1-txt-0', role: 'assistant', text } });
    }
    const texts = items(b.frames).flatMap((i) => (i.type === 'message' ? [i.text] : []));
    expect(texts).toEqual(['first answer', 'second answer']);
  });

  it('keeps rows provisional until the run is canonicalized, then final', () => {
    const b = new ThreadBuilder();
    b.emit({ kind: 'turn.started', payload: {} });
    b.emit({ kind: 'message.delta', payload: { messageId: 'm1', partId: 'p', delta: 'x' } });
    expect(items(b.frames).every((i) => i.provisional)).toBe(true);
    b.canonicalize();
    const state = apply(b.frames);
    expect(rootTimeline(state)?.items.every((i) => !i.provisional)).toBe(true);
    expect(state.runs['run1']).toMatchObject({ canonicalized: true, status: 'completed' });
  });

  it('keeps the latest revision per eventId whatever order revisions arrive in', () => {
    const b = new ThreadBuilder();
    const first = b.emit({
      kind: 'plan.updated',
      payload: { entries: [{ content: 'a', status: 'pending' }] },
    });
    const second = b.emit(
      { kind: 'plan.updated', payload: { entries: [{ content: 'a', status: 'completed' }] } },
      { eventId: first.event.eventId, revision: 2 },
    );
    const forward = rootTimeline(apply([first, second]))?.plan;
    const backward = rootTimeline(apply([second, first, second]))?.plan;
    expect(forward?.entries[0]?.status).toBe('completed');
    expect(backward).toEqual(forward);
    expect(forward?.order).toBe(first.deliverySeq);
  });

  it('folds tool lifecycle into one card', () => {
    const b = new ThreadBuilder();
    b.emit({
      kind: 'tool.started',
      payload: { toolCallId: 't1', name: 'bash', kind: 'execute', input: {}, status: 'pending' },
    });
    b.emit({ kind: 'tool.progress', payload: { toolCallId: 't1', status: 'running', input: { cmd: 'ls' } } });
    b.emit({ kind: 'tool.completed', payload: { toolCallId: 't1', status: 'completed', output: 'a\nb' } });
    const tools = items(b.frames).filter((i) => i.type === 'tool');
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: 'bash',
      input: { cmd: 'ls' },
      status: 'completed',
      output: 'a\nb',
    });
  });

  it('joins streamed tool input in the append form (inputDelta) until the whole input replaces it', () => {
    const b = new ThreadBuilder();
    b.emit({
      kind: 'tool.started',
      payload: { toolCallId: 't1', name: 'write', kind: 'edit', input: {}, status: 'pending' },
    });
    for (const piece of ['{"path":', '"a.txt",', '"content":"hi"}'])
      b.emit({ kind: 'tool.progress', payload: { toolCallId: 't1', status: 'pending', inputDelta: piece } });
    const streaming = items(b.frames).find((i) => i.type === 'tool');
    expect(streaming).toMatchObject({ input: '{"path":"a.txt","content":"hi"}', status: 'pending' });
    // A reader that does not know inputDelta sees the same whole input from this frame.
    b.emit({
      kind: 'tool.progress',
      payload: { toolCallId: 't1', status: 'pending', input: { path: 'a.txt', content: 'hi' } },
    });
    expect(items(b.frames).find((i) => i.type === 'tool')).toMatchObject({
      input: { path: 'a.txt', content: 'hi' },
    });
  });

  it('tracks approvals and questions open then resolved, children in their own timeline', () => {
    const b = new ThreadBuilder();
    b.emit({ kind: 'child.started', payload: { childSessionId: 'c1', title: 'helper' } });
    b.emit(
      {
        kind: 'approval.requested',
        payload: {
          approvalId: 'a1',
          title: 'Run ls?',
          subject: { kind: 'command', command: 'ls' },
          options: [{ optionId: 'ok', label: 'Allow', kind: 'allow_once' }],
        },
      },
      { namespace: ['c1'] },
    );
    b.emit({
      kind: 'question.requested',
      payload: { questionId: 'q1', prompt: 'Which?', choices: [], multiple: false, allowFreeText: true },
    });
    let state = apply(b.frames);
    expect(openRequests(state).map((r) => r.item.type)).toEqual(['approval', 'question']);
    expect(openRequests(state)[0]?.timelineKey).toBe('c1');
    expect(rootTimeline(state)?.items.map((i) => i.type)).toEqual(['child', 'question']);
    expect(state.timelines['c1']?.items.map((i) => i.type)).toEqual(['approval']);
    b.emit(
      {
        kind: 'approval.resolved',
        payload: { approvalId: 'a1', outcome: 'selected', optionId: 'ok', answeredBy: 'me' },
      },
      { namespace: ['c1'] },
    );
    state = apply(b.frames);
    expect(openRequests(state).map((r) => r.item.type)).toEqual(['question']);
  });

  it('gates surfaces on arrived events or capability flags, never otherwise', () => {
    const b = new ThreadBuilder();
    startedSession(b, { modelSelection: true, plans: true });
    b.emit({ kind: 'reasoning.delta', payload: { reasoningId: 'r1', delta: 'hmm' } });
    const view = rootTimeline(apply(b.frames))!;
    expect(view.surfaces).toMatchObject({
      modelPicker: true,
      plan: true,
      reasoning: true,
      approvals: false,
      terminal: false,
      usage: false,
    });
  });

  it('sums usage per turn and for the thread', () => {
    const b = new ThreadBuilder();
    b.emit({ kind: 'usage.updated', payload: { scope: 'step', inputTokens: 10, outputTokens: 5 } });
    b.emit({ kind: 'usage.updated', payload: { scope: 'step', inputTokens: 1, outputTokens: 1 } });
    b.turnId = 'turn2';
    b.emit({
      kind: 'usage.updated',
      payload: { scope: 'turn', inputTokens: 7, outputTokens: 3, cost: { amount: 0.5, currency: 'USD' } },
    });
    const view = rootTimeline(apply(b.frames))!;
    expect(view.usage.turns['turn1']).toMatchObject({ inputTokens: 11, outputTokens: 6, totalTokens: 17 });
    expect(view.usage.total).toMatchObject({ inputTokens: 18, outputTokens: 9, cost: { amount: 0.5 } });
    expect(view.surfaces.usage).toBe(true);
  });

  it('ignores unknown types, malformed frames and connection frames without changing state', () => {
    const state = initialTimelineState();
    const next = reduceTimelineBatch(state, [
      { type: 'future.kind', deliverySeq: 1 },
      null,
      'x',
      { type: 'message.delta' },
      { type: 'stream.opened', threadId: 't', after: 0, headDeliverySeq: 0 },
    ]);
    expect(next).toBe(state);
  });

  it('does not mutate the state it is given', () => {
    const b = new ThreadBuilder();
    b.emit({ kind: 'message.delta', payload: { messageId: 'm1', partId: 'p', delta: 'a' } });
    const before = apply(b.frames);
    const snapshot = JSON.stringify(before);
    const more = new ThreadBuilder();
    more.emit({ kind: 'message.delta', payload: { messageId: 'm1', partId: 'p', delta: 'a' } });
    more.emit({ kind: 'message.delta', payload: { messageId: 'm1', partId: 'p', delta: 'b' } });
    reduceTimelineBatch(before, more.frames);
    expect(JSON.stringify(before)).toBe(snapshot);
  });
});

describe('run status signals out of order', () => {
  const status = (
    runId: string,
    s: 'queued' | 'running' | 'completed' | 'failed',
    statusVersion?: number,
  ) => ({
    type: 'run.status',
    threadId: 't',
    runId,
    status: s,
    ...(statusVersion !== undefined ? { statusVersion } : {}),
  });

  it('keeps the status with the highest version whatever order the signals arrive in', () => {
    const signals = [status('r1', 'queued', 1), status('r1', 'running', 2), status('r1', 'failed', 3)];
    // Every delivery order of the three: the latest status is the one shown.
    const orders = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    for (const order of orders) {
      const state = apply(order.map((i) => signals[i]));
      expect({ order, run: state.runs.r1 }).toEqual({
        order,
        run: { runId: 'r1', status: 'failed', canonicalized: false, statusVersion: 3 },
      });
    }
    // One at a time across batches, the stale one last: still the finished status.
    let state = reduceTimelineBatch(initialTimelineState(), [signals[2]]);
    state = reduceTimelineBatch(state, [signals[0]]);
    expect(state.runs.r1?.status).toBe('failed');
  });

  it('orders signals without a version (an older server) by the lifecycle', () => {
    const state = apply([status('r2', 'completed'), status('r2', 'queued'), status('r2', 'running')]);
    expect(state.runs.r2?.status).toBe('completed');
  });
});
