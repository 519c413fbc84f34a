import { SqlStore, type SqlStoreOptions } from '../sql/sql-store.js';
import type { Store } from '../store.js';
import { createSqliteBackend } from './sqlite-backend.js';
import { SQLITE_MIGRATIONS } from './sqlite-migrations.js';

export interface SqliteStoreOptions extends SqlStoreOptions {
  /** Database file (created if missing). WAL needs a real file: `:memory:` is not supported. */
  path: string;
}

/** The embedded default: a file, no setup. Call `migrate()` before use (openStore does it for you). */
export function createSqliteStore(options: SqliteStoreOptions): Store {
  return new SqlStore(createSqliteBackend(options.path), SQLITE_MIGRATIONS, options);
}
