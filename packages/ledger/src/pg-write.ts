import { createHash } from 'node:crypto';
import type { AuditableCall } from '@agentlane/contract';
import { isConnectionError, pgTransactionOnce, retryTransient } from '@agentlane/sql';
import type pg from 'pg';
import { columnValues } from './columns.js';
import { LEDGER_COLUMNS } from './ledger.js';

/**
 * Why writers of a session take a lock: the cursor walks `position` (a sequence), and a sequence value is
 * handed out when a row is inserted, not when it commits. Two writers of one session could otherwise commit
 * position 8 after a reader already returned position 9 and moved its cursor past 8: that reader never sees
 * 8. A transaction-scoped advisory lock per session, taken before the INSERT allocates any position and held
 * until COMMIT (PostgreSQL makes a commit visible before it releases its locks), makes a session's positions
 * commit in their order, so a row a reader has not seen yet always lands after its cursor.
 *
 * The scope is the session because that is the only way the ledger is paged (`list(sessionId)`, read by
 * GET /sessions/:id/audit): rows of different sessions never share a cursor, so their writers need not wait
 * for each other. A listing across sessions would need one lock for the whole table instead.
 *
 * The alternative, hiding rows whose transactions might still be in flight (xmin against the snapshot's
 * xmin), stalls every reader behind any long transaction in the database, the unrelated ones too.
 */

/** Advisory-lock class of these locks: the two-int key space, apart from the bigint keys migrations take. */
const LOCK_CLASS = 0x4c454447; // 'LEDG'

/** Attempts of a write that lost a deadlock or a serialization conflict (the transaction rolled back). */
export const CONFLICT_ATTEMPTS = 5;

/** deadlock_detected and serialization_failure: the server rolled the transaction back; safe to run again. */
const CONFLICT_SQLSTATES = new Set(['40P01', '40001']);

function isConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONFLICT_SQLSTATES.has(code);
}

/**
 * The lock keys of the batch's sessions, sorted: every writer takes them in the same order, so two writers of
 * overlapping sessions cannot each hold one the other waits for. The key is computed here (not hashtext in
 * SQL) so the order is the order of the keys themselves: two sessions whose hashes collide share one lock.
 * The table name is part of it so ledgers in different schemas do not wait for each other.
 */
export function sessionLockKeys(table: string, rows: readonly AuditableCall[]): number[] {
  const keys = new Set<number>();
  for (const row of rows)
    keys.add(createHash('sha256').update(`${table}\0${row.session_id}`).digest().readInt32BE(0));
  return [...keys].sort((a, b) => a - b);
}

/**
 * The batch in insertion order: sessions in a deterministic order (code units, not a locale), and within a
 * session the caller's order, which is the order readers get the rows in. Rows of one session cannot
 * deadlock on their idempotency key whatever their order, because their writers hold the session lock.
 */
export function insertionOrder(rows: readonly AuditableCall[]): AuditableCall[] {
  return [...rows].sort((a, b) => (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0));
}

function insertStatement(table: string, rows: readonly AuditableCall[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const tuples = rows.map((row) => {
    const start = values.length;
    values.push(...columnValues(row));
    return `(${LEDGER_COLUMNS.map((_, i) => `$${start + i + 1}`).join(', ')})`;
  });
  // ON CONFLICT DO NOTHING: a row whose key (or record id) is stored is a no-op, so the write is idempotent.
  const text = `INSERT INTO ${table} (${LEDGER_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`;
  return { text, values };
}

/** A row the database refused, and its reason (the server's message). */
export interface RefusedRow {
  recordId: string;
  reason: string;
}

/**
 * Whether the database refused a value of the statement: data exceptions (class 22: a number beyond the
 * column's range, text it cannot hold) and integrity violations (class 23; a stored key is DO NOTHING, never
 * one). Such an error is the row's, so running the statement again cannot help, but the other rows can go.
 */
function isRowRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

async function lockSessions(client: pg.PoolClient, keys: readonly number[]): Promise<void> {
  // One statement per key, in the sorted order (no reliance on the order an executor evaluates rows in).
  for (const key of keys)
    await client.query('SELECT pg_advisory_xact_lock($1::int4, $2::int4)', [LOCK_CLASS, key]);
}

/**
 * The batch row by row, each under a savepoint, after the one-statement write was refused: a refused row is
 * rolled back alone and named, the others are written (in the same order, under the same locks).
 */
async function insertEach(
  client: pg.PoolClient,
  table: string,
  rows: readonly AuditableCall[],
): Promise<{ inserted: number; refused: RefusedRow[] }> {
  let inserted = 0;
  const refused: RefusedRow[] = [];
  for (const row of rows) {
    const { text, values } = insertStatement(table, [row]);
    await client.query('SAVEPOINT ledger_row');
    try {
      inserted += (await client.query(text, values)).rowCount ?? 0;
      await client.query('RELEASE SAVEPOINT ledger_row');
    } catch (error) {
      if (!isRowRefusal(error)) throw error;
      await client.query('ROLLBACK TO SAVEPOINT ledger_row');
      refused.push({ recordId: row.record_id, reason: (error as Error).message });
    }
  }
  return { inserted, refused };
}

/**
 * Inserts the rows in one transaction under their sessions' locks; returns how many were new, and the rows
 * the database refused. The batch goes as one statement; when the database refuses a value of it, the batch
 * goes again row by row (see insertEach), so one bad row costs only itself. Retried while the database is
 * unreachable (any connection error, an unknown COMMIT outcome too: the write is idempotent) and, a bounded
 * number of times, after a deadlock or serialization failure (left for a rare case the lock order does not
 * cover: one record id under two sessions).
 */
export async function insertRows(
  pool: pg.Pool,
  table: string,
  rows: readonly AuditableCall[],
): Promise<{ inserted: number; refused: RefusedRow[] }> {
  const keys = sessionLockKeys(table, rows);
  const ordered = insertionOrder(rows);
  const { text, values } = insertStatement(table, ordered);
  let conflicts = 0;
  const retryable = (error: unknown) =>
    isConflict(error) ? ++conflicts < CONFLICT_ATTEMPTS : isConnectionError(error);
  const attempt = async () => {
    try {
      return await pgTransactionOnce(pool, async (client) => {
        await lockSessions(client, keys);
        const result = await client.query(text, values);
        return { inserted: result.rowCount ?? 0, refused: [] };
      });
    } catch (error) {
      if (!isRowRefusal(error)) throw error;
      return pgTransactionOnce(pool, async (client) => {
        await lockSessions(client, keys);
        return insertEach(client, table, ordered);
      });
    }
  };
  return retryTransient(attempt, { retryable });
}
