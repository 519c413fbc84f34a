import { type Dialect, type MigrationSet, quoteIdent } from '@agentlane/sql';
import { ledgerTableBody } from './ledger.js';

// The row id (rowid) is the insertion position the cursor walks; the idempotency key is a UNIQUE constraint,
// so a retried write is INSERT OR IGNORE's no-op. The triggers make the table append-only in the database
// itself: no code path, ours or a tool's, can rewrite an audit row.
const SQLITE_V1 = `
CREATE TABLE IF NOT EXISTS harness_auditable_calls (
  ${ledgerTableBody('sqlite')}
);
CREATE INDEX IF NOT EXISTS harness_auditable_calls_session ON harness_auditable_calls (session_id, position);
CREATE TRIGGER IF NOT EXISTS harness_auditable_calls_no_update BEFORE UPDATE ON harness_auditable_calls
BEGIN SELECT RAISE(ABORT, 'harness_auditable_calls is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS harness_auditable_calls_no_delete BEFORE DELETE ON harness_auditable_calls
BEGIN SELECT RAISE(ABORT, 'harness_auditable_calls is append-only: DELETE refused'); END;
`;

// Same shape as SQLite: a position for the cursor, the idempotency key as a UNIQUE constraint (ON CONFLICT DO
// NOTHING), and a trigger that refuses UPDATE and DELETE (TRUNCATE too) in the database itself.
function postgresV1(prefix: string): string {
  const t = `${prefix}harness_auditable_calls`;
  const fn = `${prefix}harness_auditable_calls_refuse`;
  return `
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

// INSERT OR REPLACE would delete a stored row and write another without firing the DELETE trigger
// (recursive_triggers is off on every connection but a careful one): a row whose key is stored is ignored
// before any conflict resolution runs, so the stored row stays (and INSERT OR IGNORE keeps its meaning).
// PostgreSQL has no REPLACE; ON CONFLICT DO UPDATE is an UPDATE, refused already.
const SQLITE_V2 = `
CREATE TRIGGER IF NOT EXISTS harness_auditable_calls_no_replace BEFORE INSERT ON harness_auditable_calls
WHEN EXISTS (SELECT 1 FROM harness_auditable_calls WHERE record_id = NEW.record_id)
  OR EXISTS (SELECT 1 FROM harness_auditable_calls WHERE session_id = NEW.session_id AND turn_id = NEW.turn_id
    AND stage_id = NEW.stage_id AND seq_within_turn = NEW.seq_within_turn)
  OR EXISTS (SELECT 1 FROM harness_auditable_calls WHERE position = NEW.position)
BEGIN SELECT RAISE(IGNORE); END;
`;

// JSONB cannot hold U+0000 (its escape \u0000 is refused: "unsupported Unicode escape sequence") nor a lone
// surrogate, and a model's text, a tool's name or arguments may hold either: the row was lost. Nothing reads
// into the payload with JSON operators, so it becomes the JSON text SQLite already holds, exact. (ALTER TYPE
// rewrites the table without firing the append-only row triggers; jsonb's text of older rows is still JSON.)
function postgresV3(prefix: string): string {
  return `ALTER TABLE ${prefix}harness_auditable_calls ALTER COLUMN payload TYPE TEXT USING payload::text;`;
}

/**
 * The ledger's versioned migrations (append-only: version = index + 1). Version 1 is written to adopt a
 * table created before the ledger had versions (every statement is a no-op on it), so those databases open.
 */
export function ledgerMigrations(dialect: Dialect, schema?: string): MigrationSet {
  const prefix = schema ? `${quoteIdent(schema)}.` : '';
  return {
    table: `${prefix}harness_ledger_migrations`,
    recordsNames: true,
    lockKey: `harness_ledger_migrate:${schema ?? ''}`,
    migrations: [
      { name: 'audit ledger', sql: dialect === 'sqlite' ? SQLITE_V1 : postgresV1(prefix) },
      { name: 'no replace of a stored row', sql: dialect === 'sqlite' ? SQLITE_V2 : 'SELECT 1;' },
      // SQLite's payload column is TEXT already.
      { name: 'payload as JSON text', sql: dialect === 'sqlite' ? 'SELECT 1;' : postgresV3(prefix) },
    ],
  };
}
