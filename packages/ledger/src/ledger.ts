import type { AuditableCall } from '@agentlane/contract';

export interface AuditPageQuery {
  /** 1..1000, default 100. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface AuditPage {
  /** Oldest first: (turn order of writing). */
  items: AuditableCall[];
  nextCursor: string | null;
}

/**
 * The audit ledger. Record and read only: there is deliberately no update or delete, and the database
 * refuses them too (triggers), so a row once written is the row an auditor reads.
 */
export interface AuditLedger {
  readonly backend: 'sqlite' | 'postgres';
  /** Writes rows; a row whose (session_id, turn_id, stage_id, seq_within_turn) exists is a no-op. */
  record(rows: readonly AuditableCall[]): Promise<{ inserted: number }>;
  list(sessionId: string, query?: AuditPageQuery): Promise<AuditPage>;
  close(): Promise<void>;
}

export const LEDGER_TABLE = 'harness_auditable_calls';

/** Column order shared by both backends. */
export const LEDGER_COLUMNS = [
  'record_id',
  'audit_record_version',
  'session_id',
  'turn_id',
  'stage_id',
  'seq_within_turn',
  'created_at',
  'actor_kind',
  'session_auth_method',
  'call_class',
  'provider',
  'model',
  'transport',
  'status',
  'latency_ms',
  'finish_reason',
  'http_status',
  'payload',
] as const;

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined) return 100;
  return Math.max(1, Math.min(1000, Math.floor(limit)));
}

/** Cursor = the internal insertion position of the last row returned, opaque to clients. */
export function encodeCursor(position: number): string {
  return Buffer.from(`a:${position}`).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): number {
  if (!cursor) return 0;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^a:(\d{1,15})$/.exec(text);
  if (!match?.[1])
    throw new LedgerError('bad_cursor', `cursor is not a cursor this server issued: ${cursor}`);
  return Number(match[1]);
}

export class LedgerError extends Error {
  constructor(
    readonly code: 'bad_cursor' | 'invalid_row',
    message: string,
  ) {
    super(message);
    this.name = 'LedgerError';
  }
}
