import {
  AUDIT_RECORD_VERSION,
  type AuditableCall,
  type AuditPayload,
  type AuditStatus,
  type JsonValue,
} from '@agentlane/contract';
import { auditKey, deterministicUlid, emptyIdMap, type IdMap, idHas, idSet } from '@agentlane/engine-kit';

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

/** A model call the runtime began (its `model.start` frame) and has not written the row of yet. */
type StartedModelCall = {
  stage: string;
  provider: string;
  model: string;
  transport: string;
  authMethod: AuditableCall['session_auth_method'];
  request: { messageCount: number; toolNames: string[]; promptPreview?: string };
  startedAt: string;
};

/**
 * What the translator keeps of one scope's (the turn's, or a sub-agent's) ledger rows, so that a turn that ends
 * while a tool or model call has no row — its process was killed mid-call and crash recovery settled the run —
 * still gets one row per call, as the ledger rule says. Plain JSON, replaced on every change.
 */
export type LedgerTrack = {
  /** The scope's session and turn ids (from its rows; the lane's thread and turn at the top). */
  sessionId: string;
  turnId: string;
  /** The highest seq_within_turn seen: the runtime numbers rows in the order calls end. */
  seq: number;
  /** Tool calls that have their row (a persistent map: a turn has as many as it has calls). */
  rows: IdMap<true>;
  /** Tool calls started and without a row yet, in start order. */
  started: StartedTool[];
  /** The model call under way: calls of a scope run one at a time, and each ends with its row. */
  model?: StartedModelCall;
  /** receivedAt of the scope's last runtime frame: the last sign its process was alive. */
  lastAt: string;
};

export function emptyTrack(sessionId: string, turnId: string): LedgerTrack {
  return { sessionId, turnId, seq: 0, rows: emptyIdMap(), started: [], lastAt: '' };
}

export function seen(t: LedgerTrack, at: string): LedgerTrack {
  return at && at !== t.lastAt ? { ...t, lastAt: at } : t;
}

export function noteRow(t: LedgerTrack, row: AuditableCall): LedgerTrack {
  const key = { sessionId: row.session_id, turnId: row.turn_id, seq: Math.max(t.seq, row.seq_within_turn) };
  if (row.payload.kind === 'tool_call') {
    const id = row.payload.toolCallId;
    // A call with its row needs nothing more (its input may be large): only its id is kept.
    return {
      ...t,
      ...key,
      rows: idSet(t.rows, id, true),
      started: t.started.filter((s) => s.toolCallId !== id),
    };
  }
  // A model row ends the scope's model call under way.
  const { model: _, ...rest } = t;
  return { ...rest, ...key };
}

/** A model call begins; it names the scope's session and turn, which a scope without rows yet lacks. */
export function noteModelStart(
  t: LedgerTrack,
  call: Omit<StartedModelCall, 'startedAt'> & { sessionId: string; turnId: string },
  at: string,
): LedgerTrack {
  const { sessionId, turnId, stage, provider, model, transport, authMethod, request } = call;
  return {
    ...t,
    sessionId,
    turnId,
    model: { stage, provider, model, transport, authMethod, request, startedAt: at },
  };
}

export function noteStart(
  t: LedgerTrack,
  f: { toolCallId: string; name: string; input: JsonValue },
  at: string,
): LedgerTrack {
  if (idHas(t.rows, f.toolCallId) || t.started.some((s) => s.toolCallId === f.toolCallId)) return t;
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
 * One row for each started call that has none — tool calls in the order they started, then the model call
 * under way — numbered after the scope's last row. The record id is a function of the row's key and time, so
 * re-translating the same source rebuilds the same rows and the ledger's idempotent write makes a second pass
 * a no-op. `at` is when the turn was settled; latency_ms runs to the scope's last frame (a lower bound: when
 * the process died after it is unknown).
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
  const createdAt = at || t.lastAt;
  const since = (startedAt: string) => Date.parse(t.lastAt) - Date.parse(startedAt);
  const row = (stage: string, call: RowCall, latency: number, payload: AuditPayload): AuditableCall => {
    seq += 1;
    return {
      record_id: deterministicUlid(Date.parse(createdAt), auditKey(t.sessionId, t.turnId, stage, seq)),
      audit_record_version: AUDIT_RECORD_VERSION,
      session_id: t.sessionId,
      turn_id: t.turnId,
      stage_id: stage,
      seq_within_turn: seq,
      created_at: createdAt,
      actor_kind: 'runtime',
      ...call,
      latency_ms: Number.isFinite(latency) ? Math.max(0, Math.round(latency)) : 0,
      finish_reason: null,
      http_status: null,
      payload,
    };
  };
  let done = t.rows;
  for (const s of t.started) {
    done = idSet(done, s.toolCallId, true);
    const ended = s.ended;
    const call: RowCall = {
      call_class: 'tool',
      session_auth_method: 'none',
      provider: 'builtin',
      model: null,
      transport: 'in-process',
      status: ended?.status ?? status,
    };
    rows.push(
      row('tool-loop', call, ended ? ended.durationMs : since(s.startedAt), {
        kind: 'tool_call',
        toolCallId: s.toolCallId,
        toolName: s.name,
        input: s.input,
        ...(ended?.outputPreview !== undefined ? { outputPreview: ended.outputPreview } : {}),
        ...(ended?.error !== undefined ? { error: ended.error } : ended ? {} : { error }),
        ...(s.approval ? { approval: s.approval } : {}),
      }),
    );
  }
  const m = t.model;
  if (m) {
    const call: RowCall = {
      call_class: 'model',
      session_auth_method: m.authMethod,
      provider: m.provider,
      model: m.model,
      transport: m.transport,
      status,
    };
    rows.push(
      row(m.stage, call, since(m.startedAt), {
        kind: 'model_call',
        request: m.request,
        response: { toolCalls: [] },
        error,
      }),
    );
  }
  const { model: _, ...rest } = t;
  return { track: { ...rest, seq, rows: done, started: [] }, rows };
}

type RowCall = Pick<
  AuditableCall,
  'call_class' | 'session_auth_method' | 'provider' | 'model' | 'transport' | 'status'
>;
