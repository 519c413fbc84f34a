import { StoreError } from '../store';
import type { Migration, SqlConn } from './sql-conn';

/**
 * Applies migrations whose version (index + 1) is above the recorded one. The list is append-only: a
 * shipped entry is never edited, a change is a new entry. Called inside a locked transaction.
 */
export async function applyMigrations(
  c: SqlConn,
  migrations: readonly Migration[],
  now: string,
): Promise<void> {
  await c.exec(
    'CREATE TABLE IF NOT EXISTS store_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const rows = await c.all<{ v: number | string | null }>('SELECT MAX(version) AS v FROM store_migrations');
  const current = Number(rows[0]?.v ?? 0);
  if (current > migrations.length) {
    throw new StoreError(
      'unavailable',
      `database schema version ${current} is newer than this build knows (${migrations.length})`,
    );
  }
  for (let version = current + 1; version <= migrations.length; version++) {
    const migration = migrations[version - 1];
    if (!migration) break;
    await c.exec(migration.sql);
    await c.run('INSERT INTO store_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
      version,
      migration.name,
      now,
    ]);
  }
}
