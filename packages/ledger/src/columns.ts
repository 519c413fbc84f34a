import type { AuditableCall } from '@agentlane/contract';
import { storableText } from '@agentlane/sql';
import { LEDGER_COLUMNS } from './ledger.js';

/**
 * Text a model or a tool controls can hold characters a PostgreSQL text column cannot: U+0000 (refused:
 * `invalid byte sequence for encoding "UTF8": 0x00`) and lone UTF-16 surrogates (no UTF-8 form; node-postgres
 * sends U+FFFD, better-sqlite3 stores bytes that read back as three U+FFFD). Both stores write such a text
 * column the same way, so they read the same:
 *
 * - `payload` is JSON text on both stores (a text column since ledger migration 3 on PostgreSQL), and JSON
 *   spells those characters as the escapes `\u0000` / `\ud800`: the payload (texts, tool names, arguments,
 *   errors) is stored and read back exactly.
 * - Every other text column (model, finish_reason, provider, transport, ...) has each such character replaced
 *   by U+FFFD (@agentlane/sql's storableText, as the store's run errors are).
 * - The idempotency key (session_id, turn_id, stage_id) is never substituted: a row whose key holds such a
 *   character is refused (see validate.ts), as two keys could otherwise become one.
 */

/** The row's values in LEDGER_COLUMNS order, as both stores write them. */
export function columnValues(row: AuditableCall): unknown[] {
  return LEDGER_COLUMNS.map((c) => {
    if (c === 'payload') return JSON.stringify(row.payload);
    const value = row[c];
    return typeof value === 'string' ? storableText(value) : value;
  });
}

/** A stored row as the contract's row: exactly the contract's columns, the payload parsed. */
export function rowOfColumns(stored: Record<string, unknown>): AuditableCall {
  const out: Record<string, unknown> = {};
  for (const c of LEDGER_COLUMNS) out[c] = stored[c];
  // JSON text on both stores: ledger migration 3 made PostgreSQL's jsonb column text, and a build without it
  // refuses to open a ledger at version 3 (SchemaTooNewError), so no reader meets the other form.
  out.payload = JSON.parse(String(stored.payload));
  return out as unknown as AuditableCall;
}
