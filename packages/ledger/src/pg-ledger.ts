import type { AuditableCall } from '@agentlane/contract';
import { migratePostgres, pgPoolFor, quoteIdent, retryTransient } from '@agentlane/sql';
import type pg from 'pg';
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
      return { inserted: await insertRows(pool, table, rows) };
    },
    async list(sessionId: string, query: AuditPageQuery = {}): Promise<AuditPage> {
      const limit = clampLimit(query.limit);
      // Keyset paging over position is complete because record() makes a session's positions commit in
      // order: a row committed after this page was read always has a position past its last row.
      const result = await retryTransient(() =>
        pool.query(
          `SELECT * FROM ${table} WHERE session_id = $1 AND position > $2 ORDER BY position LIMIT $3`,
          [sessionId, decodeCursor(query.cursor), limit + 1],
        ),
      );
      const rows = result.rows as Record<string, unknown>[];
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      return {
        items: items.map((row) => {
          const out: Record<string, unknown> = {};
          for (const c of LEDGER_COLUMNS) out[c] = row[c];
          return out as unknown as AuditableCall;
        }),
        nextCursor: rows.length > limit && last ? encodeCursor(Number(last.position)) : null,
      };
    },
    async close() {
      await use.release();
    },
  };
}
