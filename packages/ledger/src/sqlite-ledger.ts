import type { AuditableCall } from '@agentlane/contract';
import Database from 'better-sqlite3';
import {
  type AuditLedger,
  type AuditPage,
  type AuditPageQuery,
  clampLimit,
  decodeCursor,
  encodeCursor,
  LEDGER_COLUMNS,
  ledgerTableBody,
} from './ledger';
import { assertRows } from './validate';

// The row id (rowid) is the insertion position the cursor walks; the idempotency key is a UNIQUE constraint,
// so a retried write is INSERT OR IGNORE's no-op. The triggers make the table append-only in the database
// itself: no code path, ours or a tool's, can rewrite an audit row.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS harness_auditable_calls (
  ${ledgerTableBody('sqlite')}
);
CREATE INDEX IF NOT EXISTS harness_auditable_calls_session ON harness_auditable_calls (session_id, position);
CREATE TRIGGER IF NOT EXISTS harness_auditable_calls_no_update BEFORE UPDATE ON harness_auditable_calls
BEGIN SELECT RAISE(ABORT, 'harness_auditable_calls is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS harness_auditable_calls_no_delete BEFORE DELETE ON harness_auditable_calls
BEGIN SELECT RAISE(ABORT, 'harness_auditable_calls is append-only: DELETE refused'); END;
`;

type Row = Record<(typeof LEDGER_COLUMNS)[number], unknown> & { position: number };

export interface SqliteLedgerOptions {
  /** A path (opened with WAL) or a handle shared with the store (left open by close()). */
  database: string | Database.Database;
}

export function createSqliteLedger(options: SqliteLedgerOptions): AuditLedger {
  const owned = typeof options.database === 'string';
  const db = typeof options.database === 'string' ? new Database(options.database) : options.database;
  if (owned) {
    db.pragma('journal_mode = WAL');
    // No synchronous busy wait: it would block the event loop while the store's writer (same process, between
    // awaits of its own transaction) holds the lock, a deadlock until the timeout. Busy → async retry below.
    db.pragma('busy_timeout = 0');
  }
  db.exec(SCHEMA);
  const insert = db.prepare(
    `INSERT OR IGNORE INTO harness_auditable_calls (${LEDGER_COLUMNS.join(', ')}) VALUES (${LEDGER_COLUMNS.map(() => '?').join(', ')})`,
  );
  const page = db.prepare(
    `SELECT * FROM harness_auditable_calls WHERE session_id = ? AND position > ? ORDER BY position LIMIT ?`,
  );
  const insertAll = db.transaction((rows: readonly AuditableCall[]) => {
    let inserted = 0;
    for (const row of rows) {
      const values = LEDGER_COLUMNS.map((c) => (c === 'payload' ? JSON.stringify(row.payload) : row[c]));
      inserted += insert.run(...values).changes;
    }
    return inserted;
  });
  return {
    backend: 'sqlite',
    async record(rows) {
      assertRows(rows);
      if (rows.length === 0) return { inserted: 0 };
      // IMMEDIATE: take the write lock up front; a busy database is retried without blocking the event loop.
      for (let attempt = 1; ; attempt++) {
        try {
          return { inserted: insertAll.immediate(rows) };
        } catch (err) {
          if ((err as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 200) throw err;
          await new Promise((r) => setTimeout(r, Math.min(attempt, 20)));
        }
      }
    },
    async list(sessionId: string, query: AuditPageQuery = {}): Promise<AuditPage> {
      const limit = clampLimit(query.limit);
      const rows = page.all(sessionId, decodeCursor(query.cursor), limit + 1) as Row[];
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      return {
        items: items.map(fromRow),
        nextCursor: rows.length > limit && last ? encodeCursor(last.position) : null,
      };
    },
    async close() {
      if (owned) db.close();
    },
  };
}

function fromRow(row: Row): AuditableCall {
  const out: Record<string, unknown> = {};
  for (const c of LEDGER_COLUMNS) out[c] = c === 'payload' ? JSON.parse(String(row.payload)) : row[c];
  return out as unknown as AuditableCall;
}
