import type { AuditableCall } from '@agentlane/contract';
import { isStorableText, migratePostgres, pgPoolFor, quoteIdent, retryTransient } from '@agentlane/sql';
import type pg from 'pg';
import { rowOfColumns } from './columns.js';
import {
  type AuditLedger,
  type AuditPage,
  type AuditPageQuery,
  clampLimit,
  decodeCursor,
  encodeCursor,
  LedgerError,
} from './ledger.js';
import { ledgerMigrations } from './migrations.js';
import { insertRows } from './pg-write.js';
import { assertRows } from './validate.js';

export interface PgLedgerOptions {
  /** A connection string or a pool shared with the store (left open by close()). */
  connection: string | pg.Pool;
  /** A schema to create the table in (tests isolate themselves this way); default: the search path. */
  schema?: string;
}

export async function createPgLedger(options: PgLedgerOptions): Promise<AuditLedger> {
  // From a URL: the process's pool for that database (shared with the store), tables in the URL's schema.
  const use = pgPoolFor(options.connection, 'createPgLedger');
  const { pool } = use;
  const schema = options.schema ?? use.schema;
  const table = schema ? `${quoteIdent(schema)}.harness_auditable_calls` : 'harness_auditable_calls';
  try {
    await migratePostgres(pool, ledgerMigrations('postgres', schema), schema);
  } catch (error) {
    await use.release();
    throw error;
  }
  return {
    backend: 'postgres',
    async record(rows: readonly AuditableCall[]) {
      assertRows(rows);
      if (rows.length === 0) return { inserted: 0 };
      // Under the sessions' write locks, so a session's positions commit in their order (see pg-write.ts).
      const { inserted, refused } = await insertRows(pool, table, rows);
      // After the other rows committed: the caller learns of the refused ones (a retry refuses them again).
      if (refused.length > 0)
        throw new LedgerError(
          'row_refused',
          `${refused.length} of ${rows.length} audit rows were refused by the database (the others were recorded, ${inserted} of them new): ${refused.map((r) => `${r.recordId}: ${r.reason}`).join('; ')}`,
        );
      return { inserted };
    },
    async list(sessionId: string, query: AuditPageQuery = {}): Promise<AuditPage> {
      const limit = clampLimit(query.limit);
      const after = decodeCursor(query.cursor);
      // No stored key holds such a character (validate.ts), and PostgreSQL refuses a NUL as a parameter.
      if (!isStorableText(sessionId)) return { items: [], nextCursor: null };
      // Keyset paging over position is complete because record() makes a session's positions commit in
      // order: a row committed after this page was read always has a position past its last row.
      const result = await retryTransient(() =>
        pool.query(
          `SELECT * FROM ${table} WHERE session_id = $1 AND position > $2 ORDER BY position LIMIT $3`,
          [sessionId, after, limit + 1],
        ),
      );
      const rows = result.rows as Record<string, unknown>[];
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      return {
        items: items.map(rowOfColumns),
        nextCursor: rows.length > limit && last ? encodeCursor(Number(last.position)) : null,
      };
    },
    async close() {
      await use.release();
    },
  };
}
