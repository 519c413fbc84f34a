import type { JsonObject } from '@agentlane/contract';
import { stringOrEmpty } from '@agentlane/engine-kit';
import { type Step, warnCounted } from './state.js';

/**
 * AI SDK text and reasoning parts: a block per (step, block id) because the SDK restarts block ids every step.
 * Returns false for a part of another type.
 */
export function blockPart(step: Step, stepNo: number, part: JsonObject): boolean {
  const id = stringOrEmpty(part.id);
  const key = `${stepNo}:${id}`;
  switch (part.type) {
    case 'text-start': {
      const messageId = `msg-${stepNo}-${id}`;
      step.state = { ...step.state, texts: { ...step.state.texts, [key]: { id: messageId, text: '' } } };
      step.emit(`message.started:${messageId}`, {
        kind: 'message.started',
        payload: { messageId, role: 'assistant' },
      });
      return true;
    }
    case 'text-delta':
      textDelta(step, key, stringOrEmpty(part.text));
      return true;
    case 'text-end':
      endText(step, key);
      return true;
    case 'reasoning-start': {
      const reasoningId = `rsn-${stepNo}-${id}`;
      step.state = {
        ...step.state,
        reasoning: { ...step.state.reasoning, [key]: { id: reasoningId, text: '' } },
      };
      return true;
    }
    case 'reasoning-delta':
      reasoningDelta(step, key, stringOrEmpty(part.text));
      return true;
    case 'reasoning-end':
      endReasoning(step, key);
      return true;
    default:
      return false;
  }
}

type Blocks = 'texts' | 'reasoning';
type OpenBlock = { id: string; text: string };

/** Appends a delta to an open block; null (and a warning) when no such block is open. */
function grow(step: Step, blocks: Blocks, key: string, delta: string): { open: OpenBlock; n: number } | null {
  const open = step.state[blocks][key];
  if (!open) {
    const what = blocks === 'texts' ? 'text' : 'reasoning';
    warnCounted(step, 'builtin.orphan_delta', `${what} delta for unknown block ${key}`);
    return null;
  }
  step.state = {
    ...step.state,
    [blocks]: { ...step.state[blocks], [key]: { id: open.id, text: open.text + delta } },
  };
  return { open, n: open.text.length };
}

/** Removes an open block from the state and returns it (null when none is open under `key`). */
function take(step: Step, blocks: Blocks, key: string): OpenBlock | null {
  const open = step.state[blocks][key];
  if (!open) return null;
  const { [key]: _, ...rest } = step.state[blocks];
  step.state = { ...step.state, [blocks]: rest };
  return open;
}

function textDelta(step: Step, key: string, delta: string): void {
  const grown = grow(step, 'texts', key, delta);
  if (!grown) return;
  const { open, n } = grown;
  step.emit(`message.delta:${open.id}:${n}`, {
    kind: 'message.delta',
    payload: { messageId: open.id, partId: open.id, delta },
  });
}

function reasoningDelta(step: Step, key: string, delta: string): void {
  const grown = grow(step, 'reasoning', key, delta);
  if (!grown) return;
  const { open, n } = grown;
  step.emit(`reasoning.delta:${open.id}:${n}`, {
    kind: 'reasoning.delta',
    payload: { reasoningId: open.id, delta },
  });
}

export function endText(step: Step, key: string): void {
  const open = take(step, 'texts', key);
  if (!open) return;
  step.emit(`message.completed:${open.id}`, {
    kind: 'message.completed',
    payload: { messageId: open.id, role: 'assistant', text: open.text },
  });
}

export function endReasoning(step: Step, key: string): void {
  const open = take(step, 'reasoning', key);
  if (!open) return;
  step.emit(`reasoning.completed:${open.id}`, {
    kind: 'reasoning.completed',
    payload: { reasoningId: open.id, text: open.text },
  });
}
