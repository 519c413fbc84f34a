import {
  AUDIT_RECORD_VERSION,
  type AuditableCall,
  type AuditPayload,
  type AuditStatus,
  type JsonObject,
  type JsonValue,
  MAX_PREVIEW_CHARS,
  type ModelCallPayload,
} from '@agentlane/contract';
import type { TranslatedEvent, TranslationContext } from '../translator';
import { auditKey, deterministicUlid } from './record-id';

/**
 * Audit rows for an external engine, derived from the canonical events its translator produced for a frame.
 *
 * An external engine runs its own loop; agentlane sees only what its native frames show. The translator
 * already turned those frames into canonical events, so the rows are read off those events: every tool call
 * that ends (tool.completed: completed, failed, cancelled) is one `tool` row, and each turn that showed model
 * activity is one `model` row when it ends (turn.completed), carrying the turn's usage. Pure and
 * deterministic: the same events in the same order give the same rows, record_id included, so the live pass
 * and the lane's re-translation of the sealed source write the same rows (the ledger ignores the second).
 */

/** External engines show no stages: every row of their turn is in this one stage. */
export const ENGINE_AUDIT_STAGE = 'engine-turn';

export interface EngineAuditOptions {
  /** The row's `provider`: the adapter's provider id. */
  provider: string;
  /** The row's `transport`: the engine protocol the calls were reported over (e.g. `acp`, `opencode-http`). */
  transport: string;
}

// Plain JSON (null, never optional) so the state can live inside a translator's JSON state.

type UsageSeen = {
  inputTokens: number | null;
  outputTokens: number | null;
  reasoningTokens: number | null;
  cachedInputTokens: number | null;
  costAmount: number | null;
  costCurrency: string | null;
};

type ToolSeen = {
  name: string;
  input: JsonValue;
  startedAt: string | null;
  approval: { decision: string; answeredBy: string | null } | null;
  ended: boolean;
};

type TurnSeen = {
  startedAt: string | null;
  prompt: string | null;
  /** The engine did something a model does (text, reasoning, a tool call, usage): a model row is due. */
  active: boolean;
  text: string | null;
  toolCalls: { toolCallId: string; toolName: string }[];
  error: string | null;
  turnUsage: UsageSeen | null;
  /** Per-step usage by event key: a re-emitted step replaces itself instead of counting twice. */
  stepUsage: { [key: string]: UsageSeen };
  sessionUsage: UsageSeen | null;
};

export type EngineAuditState = {
  /** seq_within_turn of the last row written. */
  seq: number;
  /** The time of the last frame seen: created_at of rows that only the end of the source closes. */
  lastAt: string | null;
  /** The model in use, as the turn or the engine last named it. */
  model: string | null;
  /** The run created the engine session, so session-cumulative figures are this turn's figures. */
  newSession: boolean;
  turn: TurnSeen | null;
  tools: { [toolCallId: string]: ToolSeen };
  /** approvalId → toolCallId, to put the decision on the tool's row. */
  approvals: { [approvalId: string]: string };
};

export function initialEngineAuditState(): EngineAuditState {
  return { seq: 0, lastAt: null, model: null, newSession: false, turn: null, tools: {}, approvals: {} };
}

export interface EngineAuditStep {
  state: EngineAuditState;
  rows: AuditableCall[];
}

/**
 * Folds one translation step's events into the audit state and returns the rows of the calls that ended in
 * it. `at` is the frame's receivedAt (null at the end of the source: the last frame's time is used).
 */
export function auditEngineEvents(
  prior: EngineAuditState,
  events: readonly TranslatedEvent[],
  at: string | null,
  ctx: TranslationContext,
  options: EngineAuditOptions,
): EngineAuditStep {
  const when = at ?? prior.lastAt ?? new Date(0).toISOString();
  // The common step (a text delta of a turn already active) changes nothing but the time.
  if (!matters(prior, events)) return { state: at === null ? prior : { ...prior, lastAt: at }, rows: [] };
  const state: EngineAuditState = { ...prior, lastAt: when };
  // Copy-on-write: most steps (text deltas) change nothing here, so the turn and the maps are copied only
  // when this step writes them, and the prior state is never touched.
  let ownTurn = false;
  let ownTools = false;
  let ownApprovals = false;
  const turnW = (): TurnSeen | null => {
    if (state.turn && !ownTurn) state.turn = { ...state.turn };
    ownTurn = true;
    return state.turn;
  };
  const toolsW = () => {
    if (!ownTools) state.tools = { ...state.tools };
    ownTools = true;
    return state.tools;
  };
  const approvalsW = () => {
    if (!ownApprovals) state.approvals = { ...state.approvals };
    ownApprovals = true;
    return state.approvals;
  };
  const ended: { kind: 'tool'; toolCallId: string; payload: JsonObject }[] = [];
  let turnEnd: JsonObject | null = null;
  for (const { key, draft, namespace } of events) {
    const p = draft.payload as unknown as JsonObject;
    const root = !namespace || namespace.length === 0;
    const turn = state.turn;
    switch (draft.kind) {
      case 'session.started':
        if (p.origin === 'new') state.newSession = true;
        break;
      case 'session.metadata': {
        const model = str(obj(p.model)?.id);
        if (model && root) state.model = model;
        break;
      }
      case 'turn.started':
        ownTurn = true;
        state.turn = {
          startedAt: when,
          prompt: str(p.prompt) ?? null,
          active: false,
          text: null,
          toolCalls: [],
          error: null,
          turnUsage: null,
          stepUsage: {},
          sessionUsage: null,
        };
        if (str(p.model)) state.model = str(p.model) ?? null;
        break;
      case 'message.delta':
      case 'reasoning.delta':
      case 'reasoning.completed':
        if (turn && root && !turn.active) setActive(turnW());
        break;
      case 'message.completed':
        if (turn && root && p.role === 'assistant') {
          const t = turnW();
          if (t) {
            t.active = true;
            t.text = str(p.text) ?? t.text;
          }
        }
        break;
      case 'tool.started': {
        const id = str(p.toolCallId);
        if (!id || state.tools[id]) break;
        const name = str(p.name) || 'tool';
        toolsW()[id] = { name, input: p.input ?? {}, startedAt: when, approval: null, ended: false };
        const t = turn && root ? turnW() : null;
        if (t) {
          t.active = true;
          t.toolCalls = [...t.toolCalls, { toolCallId: id, toolName: name }];
        }
        break;
      }
      case 'tool.progress': {
        const tool = state.tools[str(p.toolCallId) ?? ''];
        if (tool && !tool.ended && p.input !== undefined)
          toolsW()[str(p.toolCallId) ?? ''] = { ...tool, input: p.input };
        break;
      }
      case 'approval.requested': {
        const approvalId = str(p.approvalId);
        const toolCallId = str(p.toolCallId);
        if (approvalId && toolCallId) approvalsW()[approvalId] = toolCallId;
        break;
      }
      case 'approval.resolved': {
        const toolCallId = state.approvals[str(p.approvalId) ?? ''];
        const tool = toolCallId ? state.tools[toolCallId] : undefined;
        if (!toolCallId || !tool || tool.approval) break;
        const decision =
          str(p.decision) ?? (p.outcome === 'cancelled' ? 'cancelled' : (str(p.optionId) ?? 'selected'));
        toolsW()[toolCallId] = { ...tool, approval: { decision, answeredBy: str(p.answeredBy) ?? null } };
        break;
      }
      case 'tool.completed': {
        const id = str(p.toolCallId);
        if (!id) break;
        const tool = state.tools[id];
        if (tool?.ended) break;
        if (!tool) toolsW()[id] = { name: 'tool', input: {}, startedAt: null, approval: null, ended: false };
        ended.push({ kind: 'tool', toolCallId: id, payload: p });
        break;
      }
      case 'usage.updated': {
        const t = turnW();
        if (!t) break;
        const usage = usageOf(p);
        if (p.scope === 'turn') t.turnUsage = usage;
        else if (p.scope === 'step') t.stepUsage = { ...t.stepUsage, [key]: usage };
        else t.sessionUsage = usage;
        if (p.scope !== 'session') t.active = true;
        break;
      }
      case 'harness.error': {
        const t = turnW();
        if (t) t.error = str(p.message) ?? t.error;
        break;
      }
      case 'turn.completed':
        if (turn) turnEnd = p;
        break;
      default:
        break;
    }
  }

  // Rows are built after the whole step, so an approval resolved in the same step is on its tool's row.
  const rows: AuditableCall[] = [];
  const row = (fields: RowFields) => {
    state.seq += 1;
    rows.push(buildRow(state.seq, when, ctx, options, fields));
  };
  for (const end of ended) {
    const tool = state.tools[end.toolCallId];
    if (!tool) continue;
    toolsW()[end.toolCallId] = { ...tool, input: null, ended: true };
    const status = toolStatus(end.payload.status);
    const preview = outputPreview(end.payload);
    row({
      callClass: 'tool',
      status,
      latencyMs: num(end.payload.durationMs) ?? elapsed(tool.startedAt, when),
      finishReason: null,
      model: null,
      payload: {
        kind: 'tool_call',
        toolCallId: end.toolCallId,
        toolName: tool.name,
        input: tool.input,
        ...(preview !== undefined ? { outputPreview: preview } : {}),
        ...(status !== 'ok' ? { error: str(end.payload.error) ?? status } : {}),
        ...(tool.approval
          ? {
              approval: {
                decision: tool.approval.decision,
                ...(tool.approval.answeredBy ? { answeredBy: tool.approval.answeredBy } : {}),
              },
            }
          : {}),
      },
    });
  }
  if (turnEnd && state.turn) {
    const turn = state.turn;
    state.turn = null;
    if (turn.active) {
      const stop = str(turnEnd.stopReason) ?? 'other';
      const status: AuditStatus = stop === 'cancelled' ? 'cancelled' : stop === 'error' ? 'error' : 'ok';
      const usage = turnUsage(turn, state.newSession);
      row({
        callClass: 'model',
        status,
        latencyMs: num(turnEnd.durationMs) ?? elapsed(turn.startedAt, when),
        finishReason: str(turnEnd.rawStopReason) ?? stop,
        model: state.model,
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
            toolCalls: turn.toolCalls,
          },
          ...(usage ? { usage } : {}),
          ...(status === 'error' ? { error: turn.error ?? 'the turn failed' } : {}),
        },
      });
    }
  }
  return { state, rows };
}

/** Kinds the tracker reads; activity kinds matter only until the turn is known to be active. */
const READ = new Set([
  'session.started',
  'session.metadata',
  'turn.started',
  'message.completed',
  'tool.started',
  'tool.progress',
  'approval.requested',
  'approval.resolved',
  'tool.completed',
  'usage.updated',
  'harness.error',
  'turn.completed',
]);
const ACTIVITY = new Set(['message.delta', 'reasoning.delta', 'reasoning.completed']);

function matters(prior: EngineAuditState, events: readonly TranslatedEvent[]): boolean {
  const waiting = prior.turn !== null && !prior.turn.active;
  for (const { draft } of events) {
    if (READ.has(draft.kind) || (waiting && ACTIVITY.has(draft.kind))) return true;
  }
  return false;
}

function setActive(turn: TurnSeen | null): void {
  if (turn) turn.active = true;
}

type RowFields = {
  callClass: 'model' | 'tool';
  status: AuditStatus;
  latencyMs: number;
  finishReason: string | null;
  model: string | null;
  payload: AuditPayload;
};

function buildRow(
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

function usageOf(p: JsonObject): UsageSeen {
  const cost = obj(p.cost);
  return {
    inputTokens: count(p.inputTokens),
    outputTokens: count(p.outputTokens),
    reasoningTokens: count(p.reasoningTokens),
    cachedInputTokens: count(p.cachedInputTokens),
    // The contract's cost is non-negative; a negative figure (an engine's correction?) is not a cost.
    costAmount: cost ? count(cost.amount, false) : null,
    costCurrency: cost ? (str(cost.currency) ?? null) : null,
  };
}

function toolStatus(status: JsonValue | undefined): AuditStatus {
  return status === 'completed' ? 'ok' : status === 'cancelled' ? 'cancelled' : 'error';
}

function outputPreview(p: JsonObject): string | undefined {
  if (p.output !== undefined && p.output !== null) {
    const text = typeof p.output === 'string' ? p.output : JSON.stringify(p.output);
    return text.slice(0, MAX_PREVIEW_CHARS);
  }
  return str(obj(p.outputArtifact)?.preview)?.slice(0, MAX_PREVIEW_CHARS);
}

function elapsed(from: string | null, to: string): number {
  const ms = from ? Date.parse(to) - Date.parse(from) : Number.NaN;
  return Number.isFinite(ms) && ms >= 0 ? ms : 0;
}

function str(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A non-negative figure, rounded to a whole count unless `whole` is false (costs). */
function count(value: JsonValue | undefined, whole = true): number | null {
  const n = num(value);
  if (n === undefined || n < 0) return null;
  return whole ? Math.round(n) : n;
}

function obj(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}
