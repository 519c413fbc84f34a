import { type AuditableCall, parseAuditableCall } from '@agentlane/contract';
import { isStorableText } from '@agentlane/sql';
import { LedgerError } from './ledger.js';

/** The idempotency key's text columns: stored exactly or not at all (see columns.ts). */
const KEY_TEXT_COLUMNS = ['session_id', 'turn_id', 'stage_id'] as const;

/**
 * Rows are checked against the contract before they are written: the ledger never holds a malformed row.
 * A key holding U+0000 or a lone surrogate is refused too: PostgreSQL cannot store it, and substituting it
 * could make two calls' keys one (the second row dropped as a retry of the first). Keys are the harness's own
 * ids (the API refuses such characters in a thread id), so only a caller's bug meets this.
 */
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
    for (const column of KEY_TEXT_COLUMNS) {
      if (!isStorableText(row[column]))
        throw new LedgerError(
          'invalid_row',
          `audit row ${row.record_id}: /${column} holds a NUL character (U+0000) or a lone UTF-16 surrogate`,
        );
    }
  }
}
