import type { JsonObject, JsonValue, UsageCost } from '@agentlane/contract';
import { stringOrEmpty } from '@agentlane/engine-kit';
import { blockPart } from './blocks.js';
import { type Step, warnCounted } from './state.js';
import { toolInputPart } from './tool-input.js';

/** One AI SDK stream part of model step `stepNo` (a `part` frame). */
export function streamPart(step: Step, stepNo: number, part: JsonObject, cost?: UsageCost): void {
  if (blockPart(step, stepNo, part) || toolInputPart(step, part)) return;
  switch (part.type) {
    case 'finish-step': {
      const usage = (part.usage ?? {}) as JsonObject;
      const n = step.state.usageSteps + 1;
      step.state = { ...step.state, usageSteps: n };
      step.emit(`usage:step:${n}`, {
        kind: 'usage.updated',
        payload: {
          scope: 'step',
          ...usageFields(usage),
          ...(cost ? { cost } : {}),
          ...(typeof part.model === 'string' ? { model: part.model } : {}),
        },
      });
      return;
    }
    case 'error':
      warnCounted(
        step,
        'builtin.model_stream_error',
        `the model stream reported an error: ${stringOrEmpty(part.message)}`,
      );
      return;
    case 'start':
    case 'start-step':
    case 'tool-input-end':
    // Approval parts: the runtime's own approval / tool.end frames carry the card and the outcome.
    case 'tool-approval-request':
    case 'tool-output-denied':
    // The SDK's answer to a call it could not parse; the runtime's tool.end frame reports it.
    case 'tool-error':
    case 'finish':
    case 'abort':
    case 'source':
    case 'file':
    case 'raw':
      return;
    default:
      warnCounted(
        step,
        'builtin.unknown_part',
        `an AI SDK stream part this translator does not know: ${stringOrEmpty(part.type)}`,
      );
  }
}

/** AI SDK usage → the canonical fields (absent counts stay absent, never 0). */
export function usageFields(usage: JsonObject): {
  inputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
  totalTokens?: number;
} {
  const out: ReturnType<typeof usageFields> = {};
  const set = (k: keyof typeof out, v: JsonValue | undefined) => {
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  };
  set('inputTokens', usage.inputTokens);
  set('outputTokens', usage.outputTokens);
  set('reasoningTokens', usage.reasoningTokens);
  set('cachedInputTokens', usage.cachedInputTokens);
  set('totalTokens', usage.totalTokens);
  return out;
}
