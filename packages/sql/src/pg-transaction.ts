import type pg from 'pg';
import { CommitOutcomeUnknownError, isConnectionError } from './errors.js';
import { type RetryOptions, retryTransient } from './retry.js';

/** node-postgres refuses a query on a connection that already broke, before sending anything. */
const isNeverSent = (error: unknown): boolean => /not queryable/.test(String((error as Error)?.message));

/**
 * Runs `fn` in one transaction on one pooled connection: commits when it resolves, rolls back when it throws.
 * A connection that broke is released as broken, so the pool never hands it out again. A connection error
 * during COMMIT becomes CommitOutcomeUnknownError (it may have committed: not safe to retry blindly).
 */
export async function pgTransactionOnce<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    try {
      await client.query('COMMIT');
    } catch (error) {
      // "not queryable": the connection was already gone, so COMMIT was never sent and the server rolled
      // the transaction back (safe to run again). Any other connection error may have come after it committed.
      if (isConnectionError(error) && !isNeverSent(error)) throw new CommitOutcomeUnknownError(error);
      throw error;
    }
    return result;
  } catch (error) {
    if (isConnectionError(error)) broken = error;
    else await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError));
    throw error;
  } finally {
    client.release(broken !== undefined);
  }
}

/**
 * A transaction that is run again when its connection broke before COMMIT (the server rolled it back), for
 * a bounded time: a database restart or a terminated backend is waited out instead of failing the work.
 */
export function pgTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  options?: RetryOptions,
): Promise<T> {
  return retryTransient(() => pgTransactionOnce(pool, fn), options);
}
