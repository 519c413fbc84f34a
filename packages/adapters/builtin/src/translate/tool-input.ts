import type { JsonObject } from '@agentlane/contract';
import { stringOrEmpty } from '@agentlane/engine-kit';
import { hashOf } from './hash.js';
import type { Step } from './state.js';

/** AI SDK tool-input parts (the model writing a call's input). Returns false for a part of another type. */
export function toolInputPart(step: Step, part: JsonObject): boolean {
  const id = stringOrEmpty(part.id);
  switch (part.type) {
    case 'tool-input-start': {
      const name = stringOrEmpty(part.toolName);
      step.state = {
        ...step.state,
        tools: { ...step.state.tools, [id]: { name, input: '', started: true } },
      };
      step.emit(`tool.started:${id}`, {
        kind: 'tool.started',
        payload: { toolCallId: id, name, kind: 'other', input: {}, status: 'pending' },
      });
      return true;
    }
    case 'tool-input-delta': {
      const known = step.state.tools[id];
      if (!known) return true;
      const inputDelta = stringOrEmpty(part.delta);
      const input = known.input + inputDelta;
      step.state = { ...step.state, tools: { ...step.state.tools, [id]: { ...known, input } } };
      // The append form: each event carries its piece only (O(Δ) stored and sent); the tool-call part's
      // tool.progress below carries the whole parsed input once.
      step.emit(`tool.input:${id}:${known.input.length}`, {
        kind: 'tool.progress',
        payload: { toolCallId: id, status: 'pending', inputDelta },
      });
      return true;
    }
    case 'tool-call':
      toolCall(step, part);
      return true;
    default:
      return false;
  }
}

function toolCall(step: Step, part: JsonObject): void {
  const callId = stringOrEmpty(part.toolCallId);
  const known = step.state.tools[callId];
  const inputHash = hashOf(part.input ?? {});
  if (!known) {
    const name = stringOrEmpty(part.toolName);
    step.state = {
      ...step.state,
      tools: { ...step.state.tools, [callId]: { name, input: '', started: true, inputHash } },
    };
    step.emit(`tool.started:${callId}`, {
      kind: 'tool.started',
      payload: { toolCallId: callId, name, kind: 'other', input: part.input ?? {}, status: 'pending' },
    });
  } else {
    step.state = { ...step.state, tools: { ...step.state.tools, [callId]: { ...known, inputHash } } };
    step.emit(`tool.input:${callId}`, {
      kind: 'tool.progress',
      payload: { toolCallId: callId, status: 'pending', input: part.input ?? {} },
    });
  }
}
