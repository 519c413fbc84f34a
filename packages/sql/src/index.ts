/**
 * @agentlane/sql: the one SQL layer below the store, the audit ledger and the checkpoint savers. One way to
 * read a database URL, one pool per PostgreSQL database with its connection-error handling, a LISTEN
 * connection that comes back, bounded retries of transient errors, and one versioned migration runner.
 */
export { pgConn, type SqlConn, type SqlParam, type SqlRow, sqliteConn, toPgPlaceholders } from './conn.js';
export { type DdlRole, DIALECT_DDL, renderDdl } from './ddl.js';
export {
  CommitOutcomeUnknownError,
  isBusyError,
  isConnectionError,
  isDatabaseUnavailable,
  isRetrySafe,
  isStorageFull,
} from './errors.js';
export {
  applyMigrations,
  type Migration,
  type MigrationSet,
  migratePostgres,
  migrateSqlite,
  migrateSqliteSync,
  SchemaTooNewError,
} from './migrate.js';
export { createPgListener, type PgListener, type PgListenerOptions } from './pg-listener.js';
export {
  APPLICATION_NAME,
  acquirePgPool,
  createPgPool,
  PG_CONNECT_TIMEOUT_MS,
  PG_QUERY_TIMEOUT_MS,
  type PgPoolLease,
  type PgPoolOptions,
  type PgPoolUse,
  pgPoolFor,
  pgSessionOptions,
} from './pg-pool.js';
export { pgTransaction, pgTransactionOnce } from './pg-transaction.js';
export {
  inDatabaseOutage,
  OUTAGE_WINDOW_MS,
  RETRY_WINDOW_MS,
  type RetryOptions,
  retryTransient,
} from './retry.js';
export { openSqliteSide, retryBusy } from './sqlite.js';
export { isStorableText, storableText } from './text-column.js';
export {
  checkSchemaName,
  type DatabaseTarget,
  type Dialect,
  isPostgresUrl,
  parseDatabaseUrl,
  postgresOptions,
  quoteIdent,
  sqlitePath,
} from './url.js';
