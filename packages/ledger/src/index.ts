/**
 * @agentlane/ledger: the append-only audit ledger (harness_auditable_calls). One row per model or tool call,
 * idempotent on (session_id, turn_id, stage_id, seq_within_turn), append-only down to the database.
 */
export {
  type AuditLedger,
  type AuditPage,
  type AuditPageQuery,
  clampLimit,
  decodeCursor,
  encodeCursor,
  LEDGER_COLUMNS,
  LEDGER_TABLE,
  LedgerError,
  ledgerTableBody,
} from './ledger.js';
export { openLedger } from './open-ledger.js';
export { createPgLedger, type PgLedgerOptions } from './pg-ledger.js';
export { createSqliteLedger, type SqliteLedgerOptions } from './sqlite-ledger.js';
