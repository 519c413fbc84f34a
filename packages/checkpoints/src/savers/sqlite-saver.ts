import Database from 'better-sqlite3';
import { DeltaCheckpointSaver, type DeltaSaverOptions } from './delta-saver';
import { SqliteRows } from './sqlite-rows';

export interface SqliteSaverOptions extends DeltaSaverOptions {
  /**
   * A path (the saver opens it: WAL, synchronous=FULL) or an open handle shared with the event store
   * (its durability settings are kept, and `close()` leaves it open).
   */
  database: string | Database.Database;
}

export function createSqliteSaver(options: SqliteSaverOptions): DeltaCheckpointSaver {
  const owned = typeof options.database === 'string';
  const db = typeof options.database === 'string' ? new Database(options.database) : options.database;
  if (owned) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
  }
  return new DeltaCheckpointSaver(new SqliteRows(db, owned), options);
}
