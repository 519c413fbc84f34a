import { migrateSqlite, openSqliteSide, parseDatabaseUrl } from '@agentlane/sql';
import type { DeltaCheckpointSaver, DeltaSaverOptions } from './delta-saver.js';
import { checkpointMigrations } from './migrations.js';
import { createPgSaver } from './pg-saver.js';
import { sqliteSaver } from './sqlite-saver.js';

/**
 * Opens the checkpoint saver next to the store from the same URL: the same SQLite file (own tables) or the
 * same PostgreSQL database (the process's one pool for it, tables in the URL's schema). On SQLite the
 * migrations are applied first, waiting asynchronously while the store of this process holds the write lock.
 */
export async function openCheckpointSaver(
  url: string,
  options: DeltaSaverOptions = {},
): Promise<DeltaCheckpointSaver> {
  const target = parseDatabaseUrl(url);
  if (target.dialect === 'postgres') return createPgSaver({ ...options, connection: url });
  const db = openSqliteSide(target.path);
  try {
    await migrateSqlite(db, checkpointMigrations('sqlite'));
    return sqliteSaver(db, true, options);
  } catch (error) {
    db.close();
    throw error;
  }
}
