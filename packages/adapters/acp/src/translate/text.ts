import type { OpenText } from './state.js';
import type { Step } from './step.js';

function durationMs(from: string, to: string): number | undefined {
  const d = Date.parse(to) - Date.parse(from);
  return Number.isFinite(d) && d >= 0 ? d : undefined;
}

/** Closes the open assistant/user message, if any: message.completed carries the whole text. */
export function closeMessage(step: Step): void {
  const open = step.state.message;
  if (!open) return;
  step.state.message = null;
  step.emit(`message.completed:${open.id}`, {
    kind: 'message.completed',
    payload: { messageId: open.id, role: open.role, text: open.text },
  });
}

export function closeReasoning(step: Step): void {
  const open = step.state.reasoning;
  if (!open) return;
  step.state.reasoning = null;
  const duration = durationMs(open.startedAt, step.receivedAt);
  step.emit(`reasoning.completed:${open.id}`, {
    kind: 'reasoning.completed',
    payload: {
      reasoningId: open.id,
      text: open.text,
      ...(duration !== undefined ? { durationMs: duration } : {}),
    },
  });
}

export function closeText(step: Step): void {
  closeReasoning(step);
  closeMessage(step);
}

/**
 * Appends a message chunk. ACP v1 has no message-end signal: a message is a contiguous run of chunks of one
 * role, closed by a different `messageId`, a thought, a tool call, or the prompt response. Empty chunks open
 * nothing (agents send a "" chunk before the text).
 */
export function appendMessage(
  step: Step,
  role: 'user' | 'assistant',
  nativeId: string | null,
  text: string,
): void {
  const state = step.state;
  const open = state.message;
  if (
    open &&
    (open.role !== role || (nativeId !== null && open.nativeId !== null && nativeId !== open.nativeId))
  ) {
    closeMessage(step);
  }
  if (text.length === 0) return;
  closeReasoning(step);
  let current = state.message;
  if (!current) {
    state.messageCount += 1;
    const id = nativeId ?? `${step.runId}:${role === 'user' ? 'u' : 'm'}${state.messageCount}`;
    current = { id, nativeId, role, text: '', startedAt: step.receivedAt };
    state.message = current;
    step.emit(`message.started:${id}`, { kind: 'message.started', payload: { messageId: id, role } });
  }
  current.text += text;
  step.emitHere(
    { kind: 'message.delta', payload: { messageId: current.id, partId: `${current.id}:0`, delta: text } },
    nativeId ? { identity: { nativeMessageId: nativeId } } : undefined,
  );
}

export function appendReasoning(step: Step, nativeId: string | null, text: string): void {
  const state = step.state;
  if (state.message) closeMessage(step);
  const open = state.reasoning;
  if (open && nativeId !== null && open.nativeId !== null && nativeId !== open.nativeId) closeReasoning(step);
  if (text.length === 0) return;
  let current: OpenText | null = state.reasoning;
  if (!current) {
    state.reasoningCount += 1;
    const id = `${step.runId}:r${state.reasoningCount}`;
    current = { id, nativeId, role: 'assistant', text: '', startedAt: step.receivedAt };
    state.reasoning = current;
  }
  current.text += text;
  step.emitHere(
    { kind: 'reasoning.delta', payload: { reasoningId: current.id, delta: text } },
    nativeId ? { identity: { nativeMessageId: nativeId } } : undefined,
  );
}
