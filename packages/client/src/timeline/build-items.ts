import type { CanonicalEventKind } from '@agentlane/contract';
import { timelineKeyOf } from './entity-key.js';
import { assembleParts, type EntityRows, idOf, last, ofKind, type Rows } from './entity-rows.js';
import type { TimelineItem } from './types.js';

// The timeline items folded from several rows each (started, deltas or updates, completed).

export function buildPlan({ rows, base }: EntityRows): TimelineItem | undefined {
  const plan = last(ofKind(rows, 'plan.updated'));
  return (
    plan && {
      ...base,
      type: 'plan',
      planId: plan.payload.planId,
      entries: plan.payload.entries,
      updates: rows.length,
    }
  );
}

export function buildTurn({ rows, base }: EntityRows): TimelineItem {
  const started = ofKind(rows, 'turn.started')[0];
  const completed = last(ofKind(rows, 'turn.completed'));
  return {
    ...base,
    type: 'turn',
    prompt: started?.payload.prompt,
    model: started?.payload.model,
    mode: started?.payload.mode,
    status: completed ? 'completed' : 'running',
    stopReason: completed?.payload.stopReason,
    rawStopReason: completed?.payload.rawStopReason,
    durationMs: completed?.payload.durationMs,
  };
}

/** A message's text is its completed text, or its deltas joined while it streams. */
export function buildMessage({ localKey, rows, base }: EntityRows): TimelineItem {
  const started = ofKind(rows, 'message.started')[0];
  const completed = last(ofKind(rows, 'message.completed'));
  const parts = assembleParts(ofKind(rows, 'message.delta').map((e) => e.payload));
  return {
    ...base,
    type: 'message',
    messageId: idOf(localKey, 'message'),
    role: completed?.payload.role ?? started?.payload.role ?? 'assistant',
    text: completed ? completed.payload.text : parts.map((p) => p.text).join(''),
    parts,
    status: completed ? 'completed' : 'streaming',
  };
}

export function buildReasoning({ localKey, rows, base }: EntityRows): TimelineItem {
  const completed = last(ofKind(rows, 'reasoning.completed'));
  const deltas = ofKind(rows, 'reasoning.delta');
  const parts = assembleParts(
    deltas.map((e) => ({ partId: e.payload.partId ?? '', delta: e.payload.delta })),
  );
  return {
    ...base,
    type: 'reasoning',
    reasoningId: idOf(localKey, 'reasoning'),
    messageId: completed?.payload.messageId ?? deltas[0]?.payload.messageId,
    text: completed ? completed.payload.text : parts.map((p) => p.text).join(''),
    status: completed ? 'completed' : 'streaming',
    durationMs: completed?.payload.durationMs,
  };
}

export function buildTerminal({ localKey, rows, base }: EntityRows): TimelineItem {
  const chunks = ofKind(rows, 'terminal.output').map((e) => e.payload);
  return {
    ...base,
    type: 'terminal',
    terminalId: idOf(localKey, 'terminal'),
    toolCallId: chunks.find((c) => c.toolCallId)?.toolCallId,
    command: chunks.find((c) => c.command)?.command,
    streams: [...new Set(chunks.map((c) => c.stream))],
    output: chunks.map((c) => c.chunk).join(''),
    exit: last(chunks.filter((c) => c.exit))?.exit,
  };
}

/** A child session's card; its own timeline is keyed below this one's namespace. */
export function buildChild({ localKey, rows, namespace, base }: EntityRows): TimelineItem {
  const childSessionId = idOf(localKey, 'child');
  const started = ofKind(rows, 'child.started')[0];
  const updated = last(ofKind(rows, 'child.updated'));
  const completed = last(ofKind(rows, 'child.completed'));
  return {
    ...base,
    type: 'child',
    childSessionId,
    childRunId: started?.payload.childRunId,
    parentToolCallId: started?.payload.parentToolCallId,
    title: updated?.payload.title ?? started?.payload.title,
    description: started?.payload.description,
    state: completed?.payload.status ?? updated?.payload.state ?? 'running',
    summary: completed?.payload.summary ?? updated?.payload.summary,
    timelineKey: timelineKeyOf([...namespace, childSessionId]),
  };
}

/** An approval's or a question's request and resolution: it is open while it has a request and no resolution. */
function requestState<Q extends CanonicalEventKind, A extends CanonicalEventKind>(
  rows: Rows,
  requested: Q,
  resolved: A,
) {
  const request = ofKind(rows, requested)[0]?.payload;
  const resolution = last(ofKind(rows, resolved))?.payload;
  return { request, resolution, open: request !== undefined && resolution === undefined };
}

export function buildApproval({ localKey, rows, base }: EntityRows): TimelineItem {
  const state = requestState(rows, 'approval.requested', 'approval.resolved');
  return { ...base, type: 'approval', approvalId: idOf(localKey, 'approval'), ...state };
}

export function buildQuestion({ localKey, rows, base }: EntityRows): TimelineItem {
  const state = requestState(rows, 'question.requested', 'question.resolved');
  return { ...base, type: 'question', questionId: idOf(localKey, 'question'), ...state };
}
