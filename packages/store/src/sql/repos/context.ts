import { monotonicFactory } from 'ulid';
import type { SqlBackend, SqlConn, SqlParam, SqlRow } from '../sql-conn.js';

/**
 * What the repositories of one store share: the backend, the retried transaction, the clock and the id
 * factory, and whether the store was closed.
 */
export class SqlContext {
  readonly newId = monotonicFactory();
  closed = false;

  constructor(readonly db: SqlBackend) {}

  now(): string {
    return new Date().toISOString();
  }

  /** A transaction retried on deadlock/serialization failure, and once on a unique race (then re-read). */
  async tx<T>(fn: (c: SqlConn) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction(fn);
      } catch (error) {
        const retry = this.db.isRetryable(error) || (attempt === 1 && this.db.isUniqueViolation(error));
        if (!retry || attempt >= 5) throw error;
      }
    }
  }
}

/** The first row of a query, if any. */
export async function one(c: SqlConn, sql: string, params: readonly SqlParam[]): Promise<SqlRow | undefined> {
  return (await c.all<SqlRow>(sql, params))[0];
}
