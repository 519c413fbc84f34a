import { type AuditableCall, parseAuditableCall } from '@agentlane/contract';
import { LedgerError } from './ledger.js';

/** Rows are checked against the contract before they are written: the ledger never holds a malformed row. */
export function assertRows(rows: readonly AuditableCall[]): void {
  for (const row of rows) {
    const result = parseAuditableCall(row);
    if (!result.ok) {
      const first = result.errors[0];
      throw new LedgerError(
        'invalid_row',
        `audit row ${row.record_id}: ${first?.path ?? ''} ${first?.message ?? 'invalid'}`,
      );
    }
  }
}
