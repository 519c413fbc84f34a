import {
  AUDIT_RECORD_VERSION,
  type AuditableCall,
  type AuditPayload,
  type AuditStatus,
  MAX_PREVIEW_CHARS,
  type ModelCallPayload,
  type ToolCompletedPayload,
  type TurnCompletedPayload,
  type UsageUpdatedPayload,
} from '@agentlane/contract';
import { idEntries } from '../persistent/id-map.js';
import type { TranslationContext } from '../translator.js';
import {
  ENGINE_AUDIT_STAGE,
  type EngineAuditOptions,
  type ToolSeen,
  type TurnSeen,
  type UsageSeen,
} from './audit-state.js';
import { auditKey, deterministicUlid } from './record-id.js';

/** The row of one audit call, before the envelope columns every engine row shares. */
export type RowFields = {
  callClass: 'model' | 'tool';
  status: AuditStatus;
  latencyMs: number;
  finishReason: string | null;
  model: string | null;
  payload: AuditPayload;
};

export function buildRow(
  seq: number,
  at: string,
  ctx: TranslationContext,
  options: EngineAuditOptions,
  f: RowFields,
): AuditableCall {
  const createdMs = Date.parse(at);
  return {
    record_id: deterministicUlid(createdMs, auditKey(ctx.threadId, ctx.turnId, ENGINE_AUDIT_STAGE, seq)),
    audit_record_version: AUDIT_RECORD_VERSION,
    session_id: ctx.threadId,
    turn_id: ctx.turnId,
    stage_id: ENGINE_AUDIT_STAGE,
    seq_within_turn: seq,
    created_at: Number.isFinite(createdMs) ? new Date(createdMs).toISOString() : new Date(0).toISOString(),
    actor_kind: 'engine',
    // The engine holds its own credentials; tools authenticate to nothing agentlane can see.
    session_auth_method: f.callClass === 'model' ? 'engine_managed' : 'none',
    call_class: f.callClass,
    provider: options.provider,
    model: f.model,
    transport: options.transport,
    status: f.status,
    latency_ms: Math.max(0, Math.round(f.latencyMs)),
    finish_reason: f.finishReason,
    // The engine talks HTTP to its model, not agentlane: no status is visible in its frames.
    http_status: null,
    payload: f.payload,
  };
}

/** The `tool` row of a call that ended (its tool.completed). */
export function toolRow(
  toolCallId: string,
  tool: ToolSeen,
  end: ToolCompletedPayload,
  when: string,
): RowFields {
  const status = toolStatus(end.status);
  const preview = outputPreview(end);
  return {
    callClass: 'tool',
    status,
    latencyMs: finite(end.durationMs) ?? elapsed(tool.startedAt, when),
    finishReason: null,
    model: null,
    payload: {
      kind: 'tool_call',
      toolCallId,
      toolName: tool.name,
      input: tool.input,
      ...(preview !== undefined ? { outputPreview: preview } : {}),
      ...(status !== 'ok' ? { error: end.error ?? status } : {}),
      ...(tool.approval
        ? {
            approval: {
              decision: tool.approval.decision,
              ...(tool.approval.answeredBy ? { answeredBy: tool.approval.answeredBy } : {}),
            },
          }
        : {}),
    },
  };
}

/** The one `model` row of a turn that showed model activity, at its turn.completed. */
export function modelRow(
  turn: TurnSeen,
  end: TurnCompletedPayload,
  model: string | null,
  newSession: boolean,
  when: string,
): RowFields {
  const stop = end.stopReason ?? 'other';
  const status: AuditStatus = stop === 'cancelled' ? 'cancelled' : stop === 'error' ? 'error' : 'ok';
  const usage = turnUsage(turn, newSession);
  return {
    callClass: 'model',
    status,
    latencyMs: finite(end.durationMs) ?? elapsed(turn.startedAt, when),
    finishReason: end.rawStopReason ?? stop,
    model,
    payload: {
      kind: 'model_call',
      // The engine builds its own model requests; agentlane sent it one message, the prompt.
      request: {
        messageCount: turn.prompt !== null ? 1 : 0,
        toolNames: [],
        ...(turn.prompt !== null ? { promptPreview: turn.prompt.slice(0, MAX_PREVIEW_CHARS) } : {}),
      },
      response: {
        ...(turn.text !== null ? { textPreview: turn.text.slice(0, MAX_PREVIEW_CHARS) } : {}),
        toolCalls: idEntries(turn.toolCalls).map(([, call]) => call),
      },
      ...(usage ? { usage } : {}),
      ...(status === 'error' ? { error: turn.error ?? 'the turn failed' } : {}),
    },
  };
}

/** The turn's usage: the engine's turn figure, else the sum of its steps, else (new session) the session's. */
function turnUsage(turn: TurnSeen, newSession: boolean): ModelCallPayload['usage'] | undefined {
  const steps = Object.values(turn.stepUsage);
  const base = turn.turnUsage ?? (steps.length > 0 ? sumUsage(steps) : null);
  // Session figures are cumulative: they are this turn's only when the session began in this run.
  const session = newSession ? turn.sessionUsage : null;
  const tokens = base ?? session;
  const cost = base?.costAmount !== null && base?.costAmount !== undefined ? base : session;
  const out: NonNullable<ModelCallPayload['usage']> = {};
  if (tokens) {
    if (tokens.inputTokens !== null) out.inputTokens = tokens.inputTokens;
    if (tokens.outputTokens !== null) out.outputTokens = tokens.outputTokens;
    if (tokens.reasoningTokens !== null) out.reasoningTokens = tokens.reasoningTokens;
    if (tokens.cachedInputTokens !== null) out.cachedInputTokens = tokens.cachedInputTokens;
  }
  if (cost && cost.costAmount !== null) {
    out.costAmount = cost.costAmount;
    out.costCurrency = cost.costCurrency ?? 'USD';
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function sumUsage(items: UsageSeen[]): UsageSeen {
  const add = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);
  return items.reduce((acc, u) => ({
    inputTokens: add(acc.inputTokens, u.inputTokens),
    outputTokens: add(acc.outputTokens, u.outputTokens),
    reasoningTokens: add(acc.reasoningTokens, u.reasoningTokens),
    cachedInputTokens: add(acc.cachedInputTokens, u.cachedInputTokens),
    costAmount: add(acc.costAmount, u.costAmount),
    costCurrency: acc.costCurrency ?? u.costCurrency,
  }));
}

export function usageOf(p: UsageUpdatedPayload): UsageSeen {
  return {
    inputTokens: count(p.inputTokens),
    outputTokens: count(p.outputTokens),
    reasoningTokens: count(p.reasoningTokens),
    cachedInputTokens: count(p.cachedInputTokens),
    // The contract's cost is non-negative; a negative figure (an engine's correction?) is not a cost.
    costAmount: p.cost ? count(p.cost.amount, false) : null,
    costCurrency: p.cost ? (p.cost.currency ?? null) : null,
  };
}

function toolStatus(status: ToolCompletedPayload['status']): AuditStatus {
  return status === 'completed' ? 'ok' : status === 'cancelled' ? 'cancelled' : 'error';
}

function outputPreview(p: ToolCompletedPayload): string | undefined {
  if (p.output !== undefined && p.output !== null) {
    const text = typeof p.output === 'string' ? p.output : JSON.stringify(p.output);
    return text.slice(0, MAX_PREVIEW_CHARS);
  }
  return p.outputArtifact?.preview?.slice(0, MAX_PREVIEW_CHARS);
}

function elapsed(from: string | null, to: string): number {
  const ms = from ? Date.parse(to) - Date.parse(from) : Number.NaN;
  return Number.isFinite(ms) && ms >= 0 ? ms : 0;
}

/** An engine's figure when it is a finite number (NaN and Infinity are no figure). */
function finite(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A non-negative figure, rounded to a whole count unless `whole` is false (costs). */
function count(value: number | undefined, whole = true): number | null {
  const n = finite(value);
  if (n === undefined || n < 0) return null;
  return whole ? Math.round(n) : n;
}
