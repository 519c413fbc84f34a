import type { AuditableCall } from '@agentlane/contract';
import { idGet } from '../persistent/id-map.js';
import type { TranslatedEvent, TranslationContext } from '../translator.js';
import { AuditWriter, foldEvents } from './audit-fold.js';
import { buildRow, modelRow, type RowFields, toolRow } from './audit-rows.js';
import type { EngineAuditOptions, EngineAuditState } from './audit-state.js';

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
  const writer = new AuditWriter({ ...prior, lastAt: when });
  const state = writer.state;
  const { ended, turnEnd } = foldEvents(writer, events, when);

  // Rows are built after the whole step, so an approval resolved in the same step is on its tool's row.
  const rows: AuditableCall[] = [];
  const row = (fields: RowFields) => {
    state.seq += 1;
    rows.push(buildRow(state.seq, when, ctx, options, fields));
  };
  for (const { toolCallId, end } of ended) {
    const tool = idGet(state.tools, toolCallId);
    if (!tool) continue;
    writer.setTool(toolCallId, { ...tool, input: null, ended: true });
    row(toolRow(toolCallId, tool, end, when));
  }
  if (turnEnd && state.turn) {
    const turn = state.turn;
    state.turn = null;
    if (turn.active) row(modelRow(turn, turnEnd, state.model, state.newSession, when));
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
