import type { AuditLedger } from './ledger';
import { createPgLedger } from './pg-ledger';
import { createSqliteLedger } from './sqlite-ledger';

/** Opens the ledger next to the store: the same SQLite file (own table) or the same PostgreSQL database. */
export async function openLedger(db: string): Promise<AuditLedger> {
  return /^postgres(ql)?:\/\//i.test(db)
    ? createPgLedger({ connection: db })
    : createSqliteLedger({ database: db });
}
