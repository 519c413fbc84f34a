import { migrateSqlite, openSqliteSide, parseDatabaseUrl } from '@agentlane/sql';
import type { AuditLedger } from './ledger.js';
import { ledgerMigrations } from './migrations.js';
import { createPgLedger } from './pg-ledger.js';
import { sqliteLedger } from './sqlite-ledger.js';

/**
 * Opens the ledger next to the store: the same SQLite file (own table) or the same PostgreSQL database (the
 * process's one pool for it, tables in the URL's schema). On SQLite the migrations are applied first,
 * waiting asynchronously if the store of this process holds the write lock.
 */
export async function openLedger(db: string): Promise<AuditLedger> {
  const target = parseDatabaseUrl(db);
  if (target.dialect === 'postgres') return createPgLedger({ connection: db });
  const handle = openSqliteSide(target.path);
  try {
    await migrateSqlite(handle, ledgerMigrations('sqlite'));
    return sqliteLedger(handle, true);
  } catch (error) {
    handle.close();
    throw error;
  }
}
