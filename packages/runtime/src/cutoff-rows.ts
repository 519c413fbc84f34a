import {
  AUDIT_RECORD_VERSION,
  type AuditableCall,
  type AuditStatus,
  type JsonValue,
} from '@agentlane/contract';
import { auditKey, deterministicUlid } from '@agentlane/engine-kit';

const PREVIEW = 200;

/** A tool call the runtime started (its `tool.start` frame), as far as the frames after it tell. */
type StartedTool = {
  toolCallId: string;
  name: string;
  input: JsonValue;
  startedAt: string;
  approvalId?: string;
  approval?: { decision: string; answeredBy?: string };
  /** Its `tool.end` frame, if one came (the row itself may still be missing). */
  ended?: { status: AuditStatus; error?: string; outputPreview?: string; durationMs: number };
};

/**
 * What the translator keeps of one scope's (the turn's, or a sub-agent's) ledger rows, so that a turn that ends
 * while a tool call has no row — its process was killed mid-tool and crash recovery settled the run — still
 * gets one row per call, as the ledger rule says. Plain JSON, replaced on every change.
 */
export type LedgerTrack = {
  /** The scope's session and turn ids (from its rows; the lane's thread and turn at the top). */
  sessionId: string;
  turnId: string;
  /** The highest seq_within_turn seen: the runtime numbers rows in the order calls end. */
  seq: number;
  /** Tool calls that have their row. */
  rows: Record<string, true>;
  started: StartedTool[];
  /** receivedAt of the scope's last runtime frame: the last sign its process was alive. */
  lastAt: string;
};

export function emptyTrack(sessionId: string, turnId: string): LedgerTrack {
  return { sessionId, turnId, seq: 0, rows: {}, started: [], lastAt: '' };
}

export function seen(t: LedgerTrack, at: string): LedgerTrack {
  return at && at !== t.lastAt ? { ...t, lastAt: at } : t;
}

export function noteRow(t: LedgerTrack, row: AuditableCall): LedgerTrack {
  const rows =
    row.payload.kind === 'tool_call' ? { ...t.rows, [row.payload.toolCallId]: true as const } : t.rows;
  return {
    ...t,
    sessionId: row.session_id,
    turnId: row.turn_id,
    seq: Math.max(t.seq, row.seq_within_turn),
    rows,
  };
}

export function noteStart(
  t: LedgerTrack,
  f: { toolCallId: string; name: string; input: JsonValue },
  at: string,
): LedgerTrack {
  if (t.started.some((s) => s.toolCallId === f.toolCallId)) return t;
  return {
    ...t,
    started: [...t.started, { toolCallId: f.toolCallId, name: f.name, input: f.input, startedAt: at }],
  };
}

function update(t: LedgerTrack, match: (s: StartedTool) => boolean, change: (s: StartedTool) => StartedTool) {
  return { ...t, started: t.started.map((s) => (match(s) ? change(s) : s)) };
}

/** An approval card for the call: until it is answered, a cut-off call's approval counts as cancelled. */
export function noteApproval(t: LedgerTrack, toolCallId: string, approvalId: string): LedgerTrack {
  return update(
    t,
    (s) => s.toolCallId === toolCallId,
    (s) => ({ ...s, approvalId, approval: { decision: 'cancelled', answeredBy: 'system' } }),
  );
}

/** The answer, mapped the way the runtime maps it into its own row. */
export function noteAnswer(
  t: LedgerTrack,
  approvalId: string,
  answer: { outcome?: JsonValue; optionId?: JsonValue; answeredBy?: JsonValue },
): LedgerTrack {
  const decision =
    answer.outcome !== 'selected' ? 'cancelled' : answer.optionId === 'allow' ? 'allow_once' : 'reject_once';
  const by = typeof answer.answeredBy === 'string' ? { answeredBy: answer.answeredBy } : {};
  return update(
    t,
    (s) => s.approvalId === approvalId,
    (s) => ({ ...s, approval: { decision, ...by } }),
  );
}

export function noteEnd(
  t: LedgerTrack,
  f: { toolCallId: string; status: string; output?: JsonValue; error?: string; durationMs: number },
): LedgerTrack {
  const status: AuditStatus =
    f.status === 'completed' ? 'ok' : f.status === 'cancelled' ? 'cancelled' : 'error';
  return update(
    t,
    (s) => s.toolCallId === f.toolCallId,
    (s) => ({
      ...s,
      ended: {
        status,
        durationMs: f.durationMs,
        ...(status === 'ok'
          ? { outputPreview: JSON.stringify(f.output ?? null).slice(0, PREVIEW) }
          : { error: f.error ?? 'failed' }),
      },
    }),
  );
}

/**
 * One row for each started tool call that has none, numbered after the scope's last row, in the order the
 * calls started. The record id is a function of the row's key and time, so re-translating the same source
 * rebuilds the same rows and the ledger's idempotent write makes a second pass a no-op. `at` is when the
 * turn was settled; latency_ms runs to the scope's last frame (a lower bound: when the process died after
 * it is unknown).
 */
export function cutoffRows(
  t: LedgerTrack,
  status: 'error' | 'cancelled',
  error: string,
  at: string,
): { track: LedgerTrack; rows: AuditableCall[] } {
  if (!t.sessionId || !t.turnId) return { track: t, rows: [] };
  const rows: AuditableCall[] = [];
  let seq = t.seq;
  const done = { ...t.rows };
  const createdAt = at || t.lastAt;
  for (const s of t.started) {
    if (done[s.toolCallId]) continue;
    seq += 1;
    done[s.toolCallId] = true;
    const ended = s.ended;
    const latency = ended ? ended.durationMs : Date.parse(t.lastAt) - Date.parse(s.startedAt);
    rows.push({
      record_id: deterministicUlid(Date.parse(createdAt), auditKey(t.sessionId, t.turnId, 'tool-loop', seq)),
      audit_record_version: AUDIT_RECORD_VERSION,
      session_id: t.sessionId,
      turn_id: t.turnId,
      stage_id: 'tool-loop',
      seq_within_turn: seq,
      created_at: createdAt,
      actor_kind: 'runtime',
      session_auth_method: 'none',
      call_class: 'tool',
      provider: 'builtin',
      model: null,
      transport: 'in-process',
      status: ended?.status ?? status,
      latency_ms: Number.isFinite(latency) ? Math.max(0, Math.round(latency)) : 0,
      finish_reason: null,
      http_status: null,
      payload: {
        kind: 'tool_call',
        toolCallId: s.toolCallId,
        toolName: s.name,
        input: s.input,
        ...(ended?.outputPreview !== undefined ? { outputPreview: ended.outputPreview } : {}),
        ...(ended?.error !== undefined ? { error: ended.error } : ended ? {} : { error }),
        ...(s.approval ? { approval: s.approval } : {}),
      },
    });
  }
  return { track: { ...t, seq, rows: done }, rows };
}
