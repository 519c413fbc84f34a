import type { JsonObject } from '@agentlane/contract';
import { idGet, idSet, stringOrEmpty } from '@agentlane/engine-kit';
import { hashOf } from './hash.js';
import type { Step, ToolEntry } from './state.js';

/** AI SDK tool-input parts (the model writing a call's input). Returns false for a part of another type. */
export function toolInputPart(step: Step, part: JsonObject): boolean {
  const id = stringOrEmpty(part.id);
  switch (part.type) {
    case 'tool-input-start': {
      const name = stringOrEmpty(part.toolName);
      setTool(step, id, { name, inputChars: 0, started: true });
      step.emit(`tool.started:${id}`, {
        kind: 'tool.started',
        payload: { toolCallId: id, name, kind: 'other', input: {}, status: 'pending' },
      });
      return true;
    }
    case 'tool-input-delta': {
      const known = idGet(step.state.tools, id);
      if (!known) return true;
      const inputDelta = stringOrEmpty(part.delta);
      setTool(step, id, { ...known, inputChars: known.inputChars + inputDelta.length });
      // The append form: each event carries its piece only (O(Δ) stored and sent); the tool-call part's
      // tool.progress below carries the whole parsed input once.
      step.emit(`tool.input:${id}:${known.inputChars}`, {
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

/** Sets one tool call's entry (a persistent map: the other calls are not copied). */
export function setTool(step: Step, id: string, entry: ToolEntry): void {
  step.state = { ...step.state, tools: idSet(step.state.tools, id, entry) };
}

function toolCall(step: Step, part: JsonObject): void {
  const callId = stringOrEmpty(part.toolCallId);
  const known = idGet(step.state.tools, callId);
  const inputHash = hashOf(part.input ?? {});
  if (!known) {
    const name = stringOrEmpty(part.toolName);
    setTool(step, callId, { name, inputChars: 0, started: true, inputHash });
    step.emit(`tool.started:${callId}`, {
      kind: 'tool.started',
      payload: { toolCallId: callId, name, kind: 'other', input: part.input ?? {}, status: 'pending' },
    });
  } else {
    setTool(step, callId, { ...known, inputHash });
    step.emit(`tool.input:${callId}`, {
      kind: 'tool.progress',
      payload: { toolCallId: callId, status: 'pending', input: part.input ?? {} },
    });
  }
}
