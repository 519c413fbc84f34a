import pg from 'pg';
import { DeltaCheckpointSaver, type DeltaSaverOptions } from './delta-saver';
import { migratePg, PgRows } from './pg-rows';

export interface PgSaverOptions extends DeltaSaverOptions {
  /**
   * A connection string (the saver owns the pool and forces synchronous_commit=on) or a pool shared with
   * the event store (its settings are kept; `close()` leaves it open).
   */
  connection: string | pg.Pool;
  /** Schema holding the tables; created if missing. Default 'public'. */
  schema?: string;
}

export async function createPgSaver(options: PgSaverOptions): Promise<DeltaCheckpointSaver> {
  const owned = typeof options.connection === 'string';
  const pool =
    typeof options.connection === 'string'
      ? new pg.Pool({ connectionString: options.connection, max: 4, options: '-c synchronous_commit=on' })
      : options.connection;
  const schema = options.schema ?? 'public';
  try {
    await migratePg(pool, schema);
  } catch (error) {
    if (owned) await pool.end();
    throw error;
  }
  return new DeltaCheckpointSaver(new PgRows(pool, schema, owned), options);
}
