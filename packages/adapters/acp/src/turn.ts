import type { JsonObject, StopReason } from '@agentlane/contract';
import { cancelOpenApprovals } from './approvals';
import { compact, isObj, list, num, obj, str } from './narrow';
import { endReplay } from './replay';
import type { Step } from './step';
import { closeText } from './text';
import { closeOpenTools } from './tools';

const STOP_REASONS: readonly StopReason[] = [
  'end_turn',
  'max_tokens',
  'max_turn_requests',
  'refusal',
  'cancelled',
];

/** turn.started plus the user's prompt as a user message (ACP agents do not echo the prompt). */
export function openTurn(
  step: Step,
  input: { prompt?: string; parentRunId?: string; model?: string; mode?: string },
): void {
  const state = step.state;
  if (state.turn !== 'none') return;
  state.turn = 'open';
  state.turnStartedAt = step.receivedAt;
  step.emit('turn.started', { kind: 'turn.started', payload: compact({ ...input }) });
  if (input.prompt === undefined || input.prompt.length === 0) return;
  const messageId = `${step.runId}:prompt`;
  step.emit(`message.started:${messageId}`, {
    kind: 'message.started',
    payload: { messageId, role: 'user' },
  });
  step.emit(`message.delta:${messageId}`, {
    kind: 'message.delta',
    payload: { messageId, partId: `${messageId}:0`, delta: input.prompt },
  });
  step.emit(`message.completed:${messageId}`, {
    kind: 'message.completed',
    payload: { messageId, role: 'user', text: input.prompt },
  });
}

/** The text blocks of a session/prompt request, for traces recorded without the harness's turn.started. */
export function promptText(params: JsonObject): string {
  return list(params.prompt)
    .filter(isObj)
    .map((b) => (b.type === 'text' ? (str(b.text) ?? '') : ''))
    .join('');
}

/** Closes everything still open, then turn.completed. Idempotent: a closed turn stays closed. */
export function completeTurn(step: Step, stopReason: StopReason, rawStopReason?: string): void {
  const state = step.state;
  if (state.turn === 'closed') return;
  endReplay(step, false);
  closeText(step);
  closeOpenTools(step, stopReason === 'cancelled' ? 'cancelled' : 'failed');
  // An ACP agent cannot finish its prompt while a permission request is pending, so whatever is still open
  // is over, however the turn ended; without its resolution a client would wait on it forever. A one-sided
  // trace that does not show the answer reads as cancelled by the system, the honest reading of what it shows.
  cancelOpenApprovals(step);
  state.turn = 'closed';
  const started = state.turnStartedAt ? Date.parse(state.turnStartedAt) : Number.NaN;
  const duration = Date.parse(step.receivedAt) - started;
  step.emit('turn.completed', {
    kind: 'turn.completed',
    payload: compact({
      stopReason,
      rawStopReason,
      durationMs: Number.isFinite(duration) && duration >= 0 ? duration : undefined,
    }),
  });
}

/** The session/prompt response: the only turn-complete signal in ACP v1. */
export function onPromptResult(step: Step, result: JsonObject): void {
  const raw = str(result.stopReason);
  const usage = obj(result.usage) ?? geminiQuotaUsage(result);
  if (usage) {
    // Unstable PromptResponse.usage, documented as "token usage for this turn".
    step.emitHere({
      kind: 'usage.updated',
      payload: compact({
        scope: 'turn',
        inputTokens: num(usage.inputTokens),
        outputTokens: num(usage.outputTokens),
        reasoningTokens: num(usage.thoughtTokens),
        cachedInputTokens: num(usage.cachedReadTokens),
        cacheWriteTokens: num(usage.cachedWriteTokens),
        totalTokens: num(usage.totalTokens),
      }),
    });
  }
  const known = STOP_REASONS.includes(raw as StopReason);
  completeTurn(step, known ? (raw as StopReason) : 'other', known ? undefined : (raw ?? 'missing'));
}

/**
 * Gemini CLI 0.61.0 sends no `usage` but its own `_meta.quota.token_count {input_tokens, output_tokens}` with
 * the prompt response (this turn's tokens), read as the same usage so its model rows carry them.
 */
function geminiQuotaUsage(result: JsonObject): JsonObject | undefined {
  const count = obj(obj(obj(result._meta)?.quota)?.token_count);
  const inputTokens = num(count?.input_tokens);
  const outputTokens = num(count?.output_tokens);
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  const usage: JsonObject = {};
  if (inputTokens !== undefined) usage.inputTokens = inputTokens;
  if (outputTokens !== undefined) usage.outputTokens = outputTokens;
  return usage;
}

/** A session/prompt error: a cancelled request (-32800) after session/cancel is a cancel, anything else an error. */
export function onPromptError(step: Step, error: JsonObject): void {
  const code = num(error.code);
  const message = str(error.message) ?? 'the prompt failed';
  if (code === -32800 && step.state.cancelRequested) {
    completeTurn(step, 'cancelled');
    return;
  }
  step.emitHere({
    kind: 'harness.error',
    payload: compact({ code: 'acp.prompt_error', message, fatal: false, detail: error }),
  });
  completeTurn(step, 'error', code !== undefined ? String(code) : undefined);
}
