import type { AuditableCall } from '@agentlane/contract';
import pg from 'pg';
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

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

// Same shape as SQLite: a position for the cursor, the idempotency key as a UNIQUE constraint (ON CONFLICT DO
// NOTHING), and a trigger that refuses UPDATE and DELETE (TRUNCATE too) in the database itself.
function schemaSql(schema: string | undefined): string {
  const t = schema ? `${quote(schema)}.harness_auditable_calls` : 'harness_auditable_calls';
  const fn = schema ? `${quote(schema)}.harness_auditable_calls_refuse` : 'harness_auditable_calls_refuse';
  return `
${schema ? `CREATE SCHEMA IF NOT EXISTS ${quote(schema)};` : ''}
CREATE TABLE IF NOT EXISTS ${t} (
  ${ledgerTableBody('postgres')}
);
CREATE INDEX IF NOT EXISTS harness_auditable_calls_session ON ${t} (session_id, position);
CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'harness_auditable_calls is append-only: % refused', TG_OP; END $$;
DROP TRIGGER IF EXISTS harness_auditable_calls_append_only ON ${t};
CREATE TRIGGER harness_auditable_calls_append_only BEFORE UPDATE OR DELETE ON ${t}
  FOR EACH ROW EXECUTE FUNCTION ${fn}();
DROP TRIGGER IF EXISTS harness_auditable_calls_no_truncate ON ${t};
CREATE TRIGGER harness_auditable_calls_no_truncate BEFORE TRUNCATE ON ${t}
  FOR EACH STATEMENT EXECUTE FUNCTION ${fn}();
`;
}

export interface PgLedgerOptions {
  /** A connection string or a pool shared with the store (left open by close()). */
  connection: string | pg.Pool;
  /** A schema to create the table in (tests isolate themselves this way); default: the search path. */
  schema?: string;
}

export async function createPgLedger(options: PgLedgerOptions): Promise<AuditLedger> {
  const owned = typeof options.connection === 'string';
  const pool =
    typeof options.connection === 'string'
      ? new pg.Pool({ connectionString: options.connection, max: 4 })
      : options.connection;
  const table = options.schema
    ? `${quote(options.schema)}.harness_auditable_calls`
    : 'harness_auditable_calls';
  const client = await pool.connect();
  try {
    // Serialise the DDL: several processes may open the ledger on one database at once.
    await client.query('SELECT pg_advisory_lock(7336001)');
    await client.query(schemaSql(options.schema));
  } finally {
    await client.query('SELECT pg_advisory_unlock(7336001)').catch(() => {});
    client.release();
  }
  return {
    backend: 'postgres',
    async record(rows: readonly AuditableCall[]) {
      assertRows(rows);
      if (rows.length === 0) return { inserted: 0 };
      const values: unknown[] = [];
      const tuples = rows.map((row) => {
        const start = values.length;
        for (const c of LEDGER_COLUMNS) values.push(c === 'payload' ? JSON.stringify(row.payload) : row[c]);
        return `(${LEDGER_COLUMNS.map((_, i) => `$${start + i + 1}`).join(', ')})`;
      });
      const result = await pool.query(
        `INSERT INTO ${table} (${LEDGER_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`,
        values,
      );
      return { inserted: result.rowCount ?? 0 };
    },
    async list(sessionId: string, query: AuditPageQuery = {}): Promise<AuditPage> {
      const limit = clampLimit(query.limit);
      const result = await pool.query(
        `SELECT * FROM ${table} WHERE session_id = $1 AND position > $2 ORDER BY position LIMIT $3`,
        [sessionId, decodeCursor(query.cursor), limit + 1],
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
      if (owned) await pool.end();
    },
  };
}
