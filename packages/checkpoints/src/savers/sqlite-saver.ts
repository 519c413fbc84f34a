import { openSqliteSide, sqlitePath } from '@agentlane/sql';
import type Database from 'better-sqlite3';
import { DeltaCheckpointSaver, type DeltaSaverOptions } from './delta-saver.js';
import { SqliteRows } from './sqlite-rows.js';

export interface SqliteSaverOptions extends DeltaSaverOptions {
  /**
   * A path or `sqlite:` URL (the saver opens it like every side connection of the SQL layer: WAL,
   * synchronous=FULL, no busy wait) or an open handle shared with the event store (its settings are kept,
   * and `close()` leaves it open).
   */
  database: string | Database.Database;
}

export function createSqliteSaver(options: SqliteSaverOptions): DeltaCheckpointSaver {
  if (typeof options.database !== 'string') return sqliteSaver(options.database, false, options);
  const db = openSqliteSide(sqlitePath(options.database));
  try {
    return sqliteSaver(db, true, options);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The saver on an open handle; an `owned` handle is closed by close(). */
export function sqliteSaver(
  db: Database.Database,
  owned: boolean,
  options: DeltaSaverOptions,
): DeltaCheckpointSaver {
  return new DeltaCheckpointSaver(new SqliteRows(db, owned), options);
}
