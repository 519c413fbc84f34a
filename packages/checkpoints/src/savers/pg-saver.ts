import { migratePostgres, pgPoolFor } from '@agentlane/sql';
import type pg from 'pg';
import { DeltaCheckpointSaver, type DeltaSaverOptions } from './delta-saver.js';
import { checkpointMigrations } from './migrations.js';
import { PgRows } from './pg-rows.js';

export interface PgSaverOptions extends DeltaSaverOptions {
  /**
   * A connection string (the process's pool for that database, shared with the store: synchronous_commit=on,
   * connection errors handled) or a pool of the caller's (its settings are kept; `close()` leaves it open).
   */
  connection: string | pg.Pool;
  /** Schema holding the tables; created if missing. Default: the URL's `?schema=`, else 'public'. */
  schema?: string;
}

export async function createPgSaver(options: PgSaverOptions): Promise<DeltaCheckpointSaver> {
  const use = pgPoolFor(options.connection, 'createPgSaver');
  const schema = options.schema ?? use.schema ?? 'public';
  try {
    await migratePostgres(use.pool, checkpointMigrations('postgres', schema), schema);
  } catch (error) {
    await use.release();
    throw error;
  }
  return new DeltaCheckpointSaver(new PgRows(use.pool, schema, () => use.release()), options);
}
