import Database from 'better-sqlite3';
import { isBusyError } from './errors.js';
import { type RetryOptions, retryTransient } from './retry.js';

/**
 * A connection of this process next to the store's writer on the same file (the ledger, the checkpoint
 * savers). WAL and synchronous=FULL like the store; busy_timeout 0 because a synchronous busy wait would
 * block the event loop, and so the store's writer whose open transaction (across awaits) holds the lock it
 * waits for: a deadlock until the timeout, which is how a restart used to fail. A busy write is retried
 * asynchronously instead (retryBusy).
 */
export function openSqliteSide(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 0');
  return db;
}

/** Runs a synchronous SQLite write again after a pause while the file is locked, within the retry window. */
export function retryBusy<T>(fn: () => T, options: Omit<RetryOptions, 'retryable'> = {}): Promise<T> {
  return retryTransient(async () => fn(), { ...options, retryable: isBusyError });
}
