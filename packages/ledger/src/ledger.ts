import type { AuditableCall } from '@agentlane/contract';
import { type Dialect, renderDdl } from '@agentlane/sql';

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
  /**
   * Writes rows; a row whose (session_id, turn_id, stage_id, seq_within_turn) exists is a no-op. A row the
   * database itself refuses (a LedgerError `row_refused`, naming it) does not keep the others from being written.
   */
  record(rows: readonly AuditableCall[]): Promise<{ inserted: number }>;
  list(sessionId: string, query?: AuditPageQuery): Promise<AuditPage>;
  close(): Promise<void>;
}

export const LEDGER_TABLE = 'harness_auditable_calls';

/**
 * The contract's AuditableCall columns in order, each with its SQL type written once (the dialect
 * differences are the SQL layer's DDL roles): one list, so the two DDLs and the readers cannot drift apart.
 */
const COLUMN_TYPES = {
  record_id: 'TEXT NOT NULL UNIQUE',
  audit_record_version: 'INTEGER NOT NULL',
  session_id: 'TEXT NOT NULL',
  turn_id: 'TEXT NOT NULL',
  stage_id: 'TEXT NOT NULL',
  seq_within_turn: 'INTEGER NOT NULL',
  created_at: 'TEXT NOT NULL',
  actor_kind: 'TEXT NOT NULL',
  session_auth_method: 'TEXT NOT NULL',
  call_class: 'TEXT NOT NULL',
  provider: 'TEXT NOT NULL',
  model: 'TEXT',
  transport: 'TEXT NOT NULL',
  status: 'TEXT NOT NULL',
  // An integer count of milliseconds, as the contract types it. Tables created before this were REAL /
  // DOUBLE PRECISION (JavaScript's one number type leaking into the wire: a plain-SQL reader saw 880.0);
  // they stay as they are, and readers take an integral float as the integer (docs/contract.md).
  latency_ms: 'INTEGER NOT NULL',
  finish_reason: 'TEXT',
  http_status: 'INTEGER',
  // JSON on both stores. Version 1 of the migrations (which this list writes) made it JSONB on PostgreSQL;
  // version 3 changed it to TEXT there, as JSONB cannot hold the escape \u0000 (see columns.ts).
  payload: '{{json}} NOT NULL',
} as const;

export const LEDGER_COLUMNS = Object.keys(COLUMN_TYPES) as (keyof typeof COLUMN_TYPES)[];

/**
 * The body of `CREATE TABLE harness_auditable_calls (...)` as a DDL template: an insertion position for the
 * cursor, the contract's columns, and the idempotency key as a UNIQUE constraint (a retried write is a no-op).
 */
export function ledgerTableBody(dialect: Dialect): string {
  const columns = LEDGER_COLUMNS.map((name) => `${name} ${COLUMN_TYPES[name]}`);
  return renderDdl(
    ['position {{autoId}}', ...columns, 'UNIQUE (session_id, turn_id, stage_id, seq_within_turn)'].join(
      ',\n  ',
    ),
    dialect,
  );
}

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
  // As encodeCursor writes it, byte for byte: another spelling of a position (`a:01`, padding) is not issued.
  const match = /^a:(0|[1-9]\d{0,14})$/.exec(text);
  if (!match?.[1] || encodeCursor(Number(match[1])) !== cursor)
    throw new LedgerError('bad_cursor', `cursor is not a cursor this server issued: ${cursor}`);
  return Number(match[1]);
}

export class LedgerError extends Error {
  constructor(
    readonly code: 'bad_cursor' | 'invalid_row' | 'row_refused',
    message: string,
  ) {
    super(message);
    this.name = 'LedgerError';
  }
}
