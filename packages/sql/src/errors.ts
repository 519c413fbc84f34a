/**
 * Which database errors mean "the database is not reachable right now" (a restart, a dropped or terminated
 * connection, a busy file) rather than "this request is wrong". Those are retried for a bounded time and,
 * when they outlast it, answered 503 with Retry-After: never a 500, never a crashed process.
 */

/** SQLSTATEs of a server going away or not accepting connections yet. */
const CONNECTION_SQLSTATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast or smart shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting or in recovery
  '57P05', // idle_session_timeout
  '25P03', // idle_in_transaction_session_timeout: the session ended (pg-pool.ts, IDLE_IN_TRANSACTION_MS)
  '53300', // too_many_connections
]);

/** Socket errors of a connection that never reached the server or lost it. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** node-postgres reports these without a code. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'not queryable',
  'timeout exceeded when trying to connect',
  'terminating connection',
  // SQLSTATE 55000 (object_not_in_prerequisite_state) at connect: `ALTER DATABASE … ALLOW_CONNECTIONS false`
  // during maintenance. The code alone is too broad (it also names other refusals), so its message decides.
  'is not currently accepting connections',
  // node-postgres's query_timeout (pg-pool.ts, PG_QUERY_TIMEOUT_MS): the connection stalled.
  'Query read timeout',
];

/** SQLite: another connection holds the write lock (the file is fine; try again shortly). */
const SQLITE_BUSY_CODES = new Set([
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_RECOVERY',
  'SQLITE_LOCKED',
]);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A COMMIT whose connection broke before the answer came: it may or may not have committed, so it must not be
 * retried blindly. It still counts as the database being unavailable (503).
 */
export class CommitOutcomeUnknownError extends Error {
  readonly code = 'commit_outcome_unknown';
  constructor(override readonly cause: unknown) {
    super(`the connection broke during COMMIT: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'CommitOutcomeUnknownError';
  }
}

/** True for an error of a PostgreSQL connection that is gone or could not be made. */
export function isConnectionError(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  if (error instanceof CommitOutcomeUnknownError) return true;
  const code = codeOf(error);
  if (
    code !== undefined &&
    (CONNECTION_SQLSTATES.has(code) || SOCKET_CODES.has(code) || code.startsWith('08'))
  )
    return true;
  // `connect()` to "localhost" tries every address and rejects with all of them.
  const nested = (error as { errors?: unknown }).errors;
  if (Array.isArray(nested) && nested.length > 0 && nested.every(isConnectionError)) return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && CONNECTION_MESSAGES.some((m) => message.includes(m));
}

/** True for SQLite's "database is locked": another connection holds the write lock. */
export function isBusyError(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && SQLITE_BUSY_CODES.has(code);
}

/** The database's disk is full (SQLite SQLITE_FULL, PostgreSQL disk_full): writes work again once space is freed. */
export function isStorageFull(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'SQLITE_FULL' || code === '53100';
}

/** The database cannot answer now but may shortly: what an HTTP API answers 503 with Retry-After for. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return isConnectionError(error) || isBusyError(error) || isStorageFull(error);
}

/**
 * True when the failed work is known not to have happened and may run again: every connection error but a
 * COMMIT with an unknown outcome. (A statement interrupted by 57P01 was rolled back by the server.)
 */
export function isRetrySafe(error: unknown): boolean {
  return isConnectionError(error) && !(error instanceof CommitOutcomeUnknownError);
}
