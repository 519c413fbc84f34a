import type { JsonObject, StopReason, TurnStartedPayload } from '@agentlane/contract';
import { asNumber, asObject, asString, compact, isObject, listOf, openTurnOnce } from '@agentlane/engine-kit';
import { cancelOpenApprovals } from './approvals.js';
import { endReplay } from './replay.js';
import type { Step } from './step.js';
import { closeText } from './text.js';
import { closeOpenTools } from './tools.js';

const STOP_REASONS: readonly StopReason[] = [
  'end_turn',
  'max_tokens',
  'max_turn_requests',
  'refusal',
  'cancelled',
];

/** turn.started plus the user's prompt as a user message (ACP agents do not echo the prompt). */
export function openTurn(step: Step, input: TurnStartedPayload): void {
  if (!openTurnOnce(step, compact({ ...input }))) return;
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
  return listOf(params.prompt)
    .filter(isObject)
    .map((b) => (b.type === 'text' ? (asString(b.text) ?? '') : ''))
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
  const raw = asString(result.stopReason);
  const usage = asObject(result.usage) ?? geminiQuotaUsage(result);
  if (usage) {
    // Unstable PromptResponse.usage, documented as "token usage for this turn".
    step.emitHere({
      kind: 'usage.updated',
      payload: compact({
        scope: 'turn',
        inputTokens: asNumber(usage.inputTokens),
        outputTokens: asNumber(usage.outputTokens),
        reasoningTokens: asNumber(usage.thoughtTokens),
        cachedInputTokens: asNumber(usage.cachedReadTokens),
        cacheWriteTokens: asNumber(usage.cachedWriteTokens),
        totalTokens: asNumber(usage.totalTokens),
      }),
    });
  }
  const known = STOP_REASONS.includes(raw as StopReason);
  // The turn still ends (as `other`, the raw value kept); the warning says the agent sent no stop reason we know.
  if (!known) {
    step.warn(
      'acp.stop_reason_unknown',
      raw === undefined
        ? 'a prompt response without a string stopReason; the turn ends as "other"'
        : `a prompt response with an unknown stopReason "${raw.slice(0, 100)}"; the turn ends as "other"`,
      { stopReason: result.stopReason ?? null },
    );
  }
  completeTurn(step, known ? (raw as StopReason) : 'other', known ? undefined : (raw ?? 'missing'));
}

/**
 * Gemini CLI 0.61.0 sends no `usage` but its own `_meta.quota.token_count {input_tokens, output_tokens}` with
 * the prompt response (this turn's tokens), read as the same usage so its model rows carry them.
 */
function geminiQuotaUsage(result: JsonObject): JsonObject | undefined {
  const count = asObject(asObject(asObject(result._meta)?.quota)?.token_count);
  const inputTokens = asNumber(count?.input_tokens);
  const outputTokens = asNumber(count?.output_tokens);
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  const usage: JsonObject = {};
  if (inputTokens !== undefined) usage.inputTokens = inputTokens;
  if (outputTokens !== undefined) usage.outputTokens = outputTokens;
  return usage;
}

/** A session/prompt error: a cancelled request (-32800) after session/cancel is a cancel, anything else an error. */
export function onPromptError(step: Step, error: JsonObject): void {
  const code = asNumber(error.code);
  const message = asString(error.message) ?? 'the prompt failed';
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
