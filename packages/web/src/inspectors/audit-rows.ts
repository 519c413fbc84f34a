import type { AuditableCall } from '@agentlane/contract';

/** One ledger row as the audit table shows it: the columns the issue names, flat. */
export interface AuditRow {
  id: string;
  turnId: string;
  stage: string;
  callClass: string;
  provider: string;
  model: string;
  /** The tool's name for a tool call, the finish reason for a model call. */
  name: string;
  status: string;
  latencyMs: number;
  inputTokens: number | null;
  outputTokens: number | null;
  cost: number | null;
  currency: string | null;
  createdAt: string;
  /** created_at is written when the call ended: its start is that minus the latency. */
  startMs: number;
  error: string | null;
}

export function toAuditRow(call: AuditableCall): AuditRow {
  const p = call.payload;
  const usage = p.kind === 'model_call' ? p.usage : undefined;
  const endMs = Date.parse(call.created_at);
  return {
    id: call.record_id,
    turnId: call.turn_id,
    stage: call.stage_id,
    callClass: call.call_class,
    provider: call.provider,
    model: call.model ?? '',
    name: p.kind === 'tool_call' ? p.toolName : (call.finish_reason ?? ''),
    status: call.status,
    latencyMs: call.latency_ms,
    inputTokens: usage?.inputTokens ?? null,
    outputTokens: usage?.outputTokens ?? null,
    cost: usage?.costAmount ?? null,
    currency: usage?.costCurrency ?? null,
    createdAt: call.created_at,
    startMs: endMs - call.latency_ms,
    error: p.error ?? null,
  };
}

export interface AuditFilter {
  text: string;
  callClass: '' | 'model' | 'tool';
  status: '' | 'ok' | 'error' | 'cancelled';
}

export function filterRows(rows: AuditRow[], filter: AuditFilter): AuditRow[] {
  const text = filter.text.trim().toLowerCase();
  return rows.filter(
    (r) =>
      (!filter.callClass || r.callClass === filter.callClass) &&
      (!filter.status || r.status === filter.status) &&
      (!text ||
        [r.provider, r.model, r.name, r.stage, r.turnId, r.error ?? ''].some((v) =>
          v.toLowerCase().includes(text),
        )),
  );
}

/** The ledger rows as they are, one JSON object a line. */
export function toJsonl(calls: AuditableCall[]): string {
  return calls.map((c) => JSON.stringify(c)).join('\n') + (calls.length ? '\n' : '');
}

const CSV_COLUMNS: (keyof AuditRow)[] = [
  'id',
  'createdAt',
  'turnId',
  'stage',
  'callClass',
  'provider',
  'model',
  'name',
  'status',
  'latencyMs',
  'inputTokens',
  'outputTokens',
  'cost',
  'currency',
  'error',
];

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(rows: AuditRow[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of rows) lines.push(CSV_COLUMNS.map((c) => csvField(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export interface TurnTimeline {
  turnId: string;
  startMs: number;
  endMs: number;
  rows: AuditRow[];
}

/** The calls of each turn, in order of the turn's first call, with the span they cover. */
export function timelineByTurn(rows: AuditRow[]): TurnTimeline[] {
  const turns = new Map<string, TurnTimeline>();
  for (const row of rows) {
    const end = row.startMs + row.latencyMs;
    const turn = turns.get(row.turnId);
    if (!turn) turns.set(row.turnId, { turnId: row.turnId, startMs: row.startMs, endMs: end, rows: [row] });
    else {
      turn.rows.push(row);
      turn.startMs = Math.min(turn.startMs, row.startMs);
      turn.endMs = Math.max(turn.endMs, end);
    }
  }
  return [...turns.values()].sort((a, b) => a.startMs - b.startMs);
}
