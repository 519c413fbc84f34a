import type Database from 'better-sqlite3';
import type pg from 'pg';
import type { SqlConn, SqlParam } from './conn.js';
import { pgConn } from './conn.js';
import { isBusyError } from './errors.js';
import { pgTransaction } from './pg-transaction.js';
import { retryTransient } from './retry.js';
import { quoteIdent } from './url.js';

/** One schema change. A shipped entry is never edited: a change is a new entry (version = index + 1). */
export interface Migration {
  name: string;
  sql: string;
}

/** The versioned migrations of one package's tables, recorded in a table of their own. */
export interface MigrationSet {
  /** The table recording applied versions (schema-qualified when the tables are). */
  table: string;
  /**
   * Whether the version table has a `name` column. The checkpoint savers' table predates names and is kept
   * as it is, so databases they created still open.
   */
  recordsNames: boolean;
  /** PostgreSQL: the advisory-lock key (with current_schema()) that serialises concurrent starts. */
  lockKey: string;
  migrations: readonly Migration[];
}

export class SchemaTooNewError extends Error {
  constructor(
    readonly current: number,
    readonly known: number,
  ) {
    super(`database schema version ${current} is newer than this build knows (${known})`);
    this.name = 'SchemaTooNewError';
  }
}

interface Step {
  sql: string;
  params?: SqlParam[];
}

function versionTableSql(set: MigrationSet): string {
  const name = set.recordsNames ? ' name TEXT NOT NULL,' : '';
  return `CREATE TABLE IF NOT EXISTS ${set.table} (version INTEGER PRIMARY KEY,${name} applied_at TEXT NOT NULL)`;
}

const readVersionSql = (set: MigrationSet): string => `SELECT MAX(version) AS v FROM ${set.table}`;

/** What brings a database at `current` up to date: each migration's script, then its version row. */
function plan(set: MigrationSet, current: number, now: string): Step[] {
  if (current > set.migrations.length) throw new SchemaTooNewError(current, set.migrations.length);
  const insert = set.recordsNames
    ? `INSERT INTO ${set.table} (version, name, applied_at) VALUES (?, ?, ?)`
    : `INSERT INTO ${set.table} (version, applied_at) VALUES (?, ?)`;
  const steps: Step[] = [];
  set.migrations.forEach((migration, i) => {
    const version = i + 1;
    if (version <= current) return;
    steps.push({ sql: migration.sql });
    steps.push({ sql: insert, params: set.recordsNames ? [version, migration.name, now] : [version, now] });
  });
  return steps;
}

/** Applies the migrations above the recorded version. Called inside a transaction that serialises migrators. */
export async function applyMigrations(c: SqlConn, set: MigrationSet, now: string): Promise<void> {
  await c.exec(versionTableSql(set));
  const rows = await c.all<{ v: number | string | null }>(readVersionSql(set));
  for (const step of plan(set, Number(rows[0]?.v ?? 0), now)) {
    if (step.params) await c.run(step.sql, step.params);
    else await c.exec(step.sql);
  }
}

/** A migration's statements may take this long (the pool's bound, PG_QUERY_TIMEOUT_MS, is for requests). */
const MIGRATION_QUERY_TIMEOUT_MS = 6 * 60 * 60 * 1000;

/**
 * PostgreSQL: the schema (if any) is created first, then one transaction under an advisory lock applies what
 * is missing, so several processes starting at once apply each migration once. Retried while the database is
 * unreachable (the transaction rolled back), within the retry window.
 */
export async function migratePostgres(pool: pg.Pool, set: MigrationSet, schema?: string): Promise<void> {
  if (schema !== undefined) {
    await retryTransient(() =>
      pool.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`).catch((error: unknown) => {
        // Two processes creating the schema at once: the loser sees a unique violation; the schema exists.
        if ((error as { code?: string }).code !== '23505') throw error;
      }),
    );
  }
  await pgTransaction(pool, async (client) => {
    // Not the pool's statement bound: a migration may rewrite a large table, and another process's
    // migration is waited for under the lock.
    const conn = pgConn(client, { queryTimeoutMs: MIGRATION_QUERY_TIMEOUT_MS });
    await conn.all("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.' || ?))", [set.lockKey]);
    await applyMigrations(conn, set, new Date().toISOString());
  });
}

/** The recorded version of a SQLite file, by reads only (in WAL mode a read never waits for a lock). */
function sqliteVersion(db: Database.Database, set: MigrationSet): number {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(set.table);
  if (!exists) return 0;
  const row = db.prepare(readVersionSql(set)).get() as { v: number | null } | undefined;
  return Number(row?.v ?? 0);
}

/**
 * SQLite, synchronously: nothing to do is found by reads alone (no lock, so a database already migrated
 * opens while another connection writes); otherwise one IMMEDIATE transaction applies the rest. Throws
 * SQLITE_BUSY when the write lock is held (see migrateSqlite for the waiting form).
 */
export function migrateSqliteSync(db: Database.Database, set: MigrationSet): void {
  if (sqliteVersion(db, set) === set.migrations.length) return;
  db.transaction(() => {
    db.exec(versionTableSql(set));
    const row = db.prepare(readVersionSql(set)).get() as { v: number | null } | undefined;
    for (const step of plan(set, Number(row?.v ?? 0), new Date().toISOString())) {
      if (step.params) db.prepare(step.sql).run(...step.params);
      else db.exec(step.sql);
    }
  }).immediate();
}

/**
 * SQLite, waiting without blocking the event loop: a held write lock (this process's store between two
 * awaits of its transaction, or another process) is retried after a pause, within the retry window.
 */
export function migrateSqlite(db: Database.Database, set: MigrationSet): Promise<void> {
  return retryTransient(async () => migrateSqliteSync(db, set), { retryable: isBusyError });
}
