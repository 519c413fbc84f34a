import { SqlStore, type SqlStoreOptions } from '../sql/sql-store.js';
import type { Store } from '../store.js';
import { createPostgresBackend } from './postgres-backend.js';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.js';

export interface PostgresStoreOptions extends SqlStoreOptions {
  /** postgres://user@host:port/db */
  url: string;
  /** A schema of its own (created by migrate); default: the server's search_path. */
  schema?: string;
  /** Pool size; default 8. */
  poolSize?: number;
}

/** The shared backend for several server processes. Call `migrate()` before use (openStore does it). */
export function createPostgresStore(options: PostgresStoreOptions): Store {
  return new SqlStore(createPostgresBackend(options), POSTGRES_MIGRATIONS, options);
}
