import type { CanonicalEventDraft, ToolCompletedPayload, TurnCompletedPayload } from '@agentlane/contract';
import { emptyIdMap, idGet, idSet } from '../persistent/id-map.js';
import type { TranslatedEvent } from '../translator.js';
import { usageOf } from './audit-rows.js';
import type { EngineAuditState, ToolSeen, TurnSeen } from './audit-state.js';

/** What one step's events ended: tool calls (in order) and the turn. */
export interface FoldResult {
  ended: { toolCallId: string; end: ToolCompletedPayload }[];
  turnEnd: TurnCompletedPayload | null;
}

/**
 * The audit state being written by one step. Copy-on-write: most steps (text deltas) change nothing here, so
 * the turn is copied only when this step writes it; the maps are persistent (a write copies one path of
 * them); the prior state is never touched.
 */
export class AuditWriter {
  private ownTurn = false;

  constructor(readonly state: EngineAuditState) {}

  turn(): TurnSeen | null {
    if (this.state.turn && !this.ownTurn) this.state.turn = { ...this.state.turn };
    this.ownTurn = true;
    return this.state.turn;
  }

  newTurn(turn: TurnSeen): void {
    this.ownTurn = true;
    this.state.turn = turn;
  }

  setTool(toolCallId: string, tool: ToolSeen): void {
    this.state.tools = idSet(this.state.tools, toolCallId, tool);
  }

  setApproval(approvalId: string, toolCallId: string): void {
    this.state.approvals = idSet(this.state.approvals, approvalId, toolCallId);
  }
}

/** Folds one step's events (the contract's typed drafts) into the state; rows are built after the step. */
export function foldEvents(w: AuditWriter, events: readonly TranslatedEvent[], when: string): FoldResult {
  const result: FoldResult = { ended: [], turnEnd: null };
  for (const { key, draft, namespace } of events) {
    const root = !namespace || namespace.length === 0;
    foldEvent(w, draft, key, root, when, result);
  }
  return result;
}

function foldEvent(
  w: AuditWriter,
  draft: CanonicalEventDraft,
  key: string,
  root: boolean,
  when: string,
  result: FoldResult,
): void {
  const state = w.state;
  const turn = state.turn;
  switch (draft.kind) {
    case 'session.started':
      if (draft.payload.origin === 'new') state.newSession = true;
      return;
    case 'session.metadata': {
      const model = draft.payload.model?.id;
      if (model && root) state.model = model;
      return;
    }
    case 'turn.started':
      w.newTurn(openTurn(draft.payload.prompt, when));
      if (draft.payload.model) state.model = draft.payload.model;
      return;
    case 'message.delta':
    case 'reasoning.delta':
    case 'reasoning.completed':
      if (turn && root && !turn.active) setActive(w.turn());
      return;
    case 'message.completed': {
      const t = turn && root && draft.payload.role === 'assistant' ? w.turn() : null;
      if (t) {
        t.active = true;
        t.text = draft.payload.text ?? t.text;
      }
      return;
    }
    case 'tool.started': {
      const { toolCallId: id, input } = draft.payload;
      if (!id || idGet(state.tools, id)) return;
      const name = draft.payload.name || 'tool';
      w.setTool(id, { name, input: input ?? {}, startedAt: when, approval: null, ended: false });
      const t = turn && root ? w.turn() : null;
      if (t) {
        t.active = true;
        t.toolCalls = idSet(t.toolCalls, `#${id}`, { toolCallId: id, toolName: name });
      }
      return;
    }
    case 'tool.progress': {
      const { toolCallId: id, input } = draft.payload;
      const tool = id ? idGet(state.tools, id) : undefined;
      if (id && tool && !tool.ended && input !== undefined) w.setTool(id, { ...tool, input });
      return;
    }
    case 'approval.requested': {
      const { approvalId, toolCallId } = draft.payload;
      if (approvalId && toolCallId) w.setApproval(approvalId, toolCallId);
      return;
    }
    case 'approval.resolved': {
      const p = draft.payload;
      const toolCallId = p.approvalId ? idGet(state.approvals, p.approvalId) : undefined;
      const tool = toolCallId ? idGet(state.tools, toolCallId) : undefined;
      if (!toolCallId || !tool || tool.approval) return;
      const decision = p.decision ?? (p.outcome === 'cancelled' ? 'cancelled' : (p.optionId ?? 'selected'));
      w.setTool(toolCallId, { ...tool, approval: { decision, answeredBy: p.answeredBy ?? null } });
      return;
    }
    case 'tool.completed': {
      const id = draft.payload.toolCallId;
      if (!id) return;
      const tool = idGet(state.tools, id);
      if (tool?.ended) return;
      if (!tool) w.setTool(id, unseenTool());
      result.ended.push({ toolCallId: id, end: draft.payload });
      return;
    }
    case 'usage.updated': {
      const t = w.turn();
      if (!t) return;
      const usage = usageOf(draft.payload);
      const scope = draft.payload.scope;
      if (scope === 'turn') t.turnUsage = usage;
      else if (scope === 'step') t.stepUsage = { ...t.stepUsage, [key]: usage };
      else t.sessionUsage = usage;
      if (scope !== 'session') t.active = true;
      return;
    }
    case 'harness.error': {
      const t = w.turn();
      if (t) t.error = draft.payload.message ?? t.error;
      return;
    }
    case 'turn.completed':
      if (turn) result.turnEnd = draft.payload;
      return;
    default:
      return;
  }
}

function openTurn(prompt: string | undefined, when: string): TurnSeen {
  return {
    startedAt: when,
    prompt: prompt ?? null,
    active: false,
    text: null,
    toolCalls: emptyIdMap(),
    error: null,
    turnUsage: null,
    stepUsage: {},
    sessionUsage: null,
  };
}

/** A tool whose end arrived without its start (a trace cut at the front). */
function unseenTool(): ToolSeen {
  return { name: 'tool', input: {}, startedAt: null, approval: null, ended: false };
}

function setActive(turn: TurnSeen | null): void {
  if (turn) turn.active = true;
}
