import type { AuditableCall } from '@agentlane/contract';
import { isStorableText, migrateSqliteSync, openSqliteSide, retryBusy } from '@agentlane/sql';
import type Database from 'better-sqlite3';
import { columnValues, rowOfColumns } from './columns.js';
import {
  type AuditLedger,
  type AuditPage,
  type AuditPageQuery,
  clampLimit,
  decodeCursor,
  encodeCursor,
  LEDGER_COLUMNS,
} from './ledger.js';
import { ledgerMigrations } from './migrations.js';
import { assertRows } from './validate.js';

type Row = Record<(typeof LEDGER_COLUMNS)[number], unknown> & { position: number };

export interface SqliteLedgerOptions {
  /** A path (opened with WAL) or a handle shared with the store (left open by close()). */
  database: string | Database.Database;
}

export function createSqliteLedger(options: SqliteLedgerOptions): AuditLedger {
  if (typeof options.database !== 'string') return sqliteLedger(options.database, false);
  const db = openSqliteSide(options.database);
  try {
    return sqliteLedger(db, true);
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The ledger on an open handle; `owned` handles are closed by close(). Tables come from the versioned
 * migrations (already applied by openLedger, so this is a read; else applied here, throwing when locked).
 */
export function sqliteLedger(db: Database.Database, owned: boolean): AuditLedger {
  migrateSqliteSync(db, ledgerMigrations('sqlite'));
  const insert = db.prepare(
    `INSERT OR IGNORE INTO harness_auditable_calls (${LEDGER_COLUMNS.join(', ')}) VALUES (${LEDGER_COLUMNS.map(() => '?').join(', ')})`,
  );
  const page = db.prepare(
    `SELECT * FROM harness_auditable_calls WHERE session_id = ? AND position > ? ORDER BY position LIMIT ?`,
  );
  const insertAll = db.transaction((rows: readonly AuditableCall[]) => {
    let inserted = 0;
    // SQLite could hold every text as it is; it writes what PostgreSQL can hold so both read the same
    // (columns.ts). Nothing a valid row holds is refused here, so a batch commits whole.
    for (const row of rows) inserted += insert.run(...columnValues(row)).changes;
    return inserted;
  });
  return {
    backend: 'sqlite',
    async record(rows) {
      assertRows(rows);
      if (rows.length === 0) return { inserted: 0 };
      // IMMEDIATE: take the write lock up front; a busy database is retried without blocking the event loop
      // (the connection has no busy wait: see openSqliteSide).
      return { inserted: await retryBusy(() => insertAll.immediate(rows)) };
    },
    async list(sessionId: string, query: AuditPageQuery = {}): Promise<AuditPage> {
      const limit = clampLimit(query.limit);
      const after = decodeCursor(query.cursor);
      // No stored key holds such a character (validate.ts); PostgreSQL could not even be asked.
      if (!isStorableText(sessionId)) return { items: [], nextCursor: null };
      const rows = page.all(sessionId, after, limit + 1) as Row[];
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      return {
        items: items.map(rowOfColumns),
        nextCursor: rows.length > limit && last ? encodeCursor(last.position) : null,
      };
    },
    async close() {
      if (owned) db.close();
    },
  };
}
