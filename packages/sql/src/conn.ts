import type Database from 'better-sqlite3';
import type pg from 'pg';

/** A value bound to a `?` placeholder. Booleans are stored as 0/1 by the callers. */
export type SqlParam = string | number | null | Buffer;

export type SqlRow = Record<string, unknown>;

/** The slice of a database connection shared code needs; statements use `?` placeholders on both dialects. */
export interface SqlConn {
  all<T = SqlRow>(sql: string, params?: readonly SqlParam[]): Promise<T[]>;
  /**
   * Rows as arrays, values in the order of the select list: for hot reads of many rows, where building one
   * object per row (named keys) cost about as much as the query itself.
   */
  rows(sql: string, params?: readonly SqlParam[]): Promise<unknown[][]>;
  /** Runs a statement; resolves with the number of changed rows. */
  run(sql: string, params?: readonly SqlParam[]): Promise<number>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** `?` placeholders become `$1..$n` (shared SQL never contains a literal question mark). */
const placeholderCache = new Map<string, string>();
export function toPgPlaceholders(sql: string): string {
  let out = placeholderCache.get(sql);
  if (out === undefined) {
    let n = 0;
    out = sql.replace(/\?/g, () => `$${++n}`);
    placeholderCache.set(sql, out);
  }
  return out;
}

/**
 * A pool (each statement on any connection) or one checked-out connection (inside a transaction).
 * `queryTimeoutMs` replaces the pool's statement bound for these statements (migrations: hours).
 */
export function pgConn(client: pg.Pool | pg.PoolClient, options: { queryTimeoutMs?: number } = {}): SqlConn {
  const bound = options.queryTimeoutMs === undefined ? {} : { query_timeout: options.queryTimeoutMs };
  const query = (sql: string, params: readonly SqlParam[], rowMode?: 'array') =>
    client.query({
      text: toPgPlaceholders(sql),
      values: params as SqlParam[],
      ...(rowMode ? { rowMode } : {}),
      ...bound,
    });
  return {
    async all<T>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
      return (await query(sql, params)).rows as T[];
    },
    async rows(sql: string, params: readonly SqlParam[] = []): Promise<unknown[][]> {
      return (await query(sql, params, 'array')).rows as unknown[][];
    },
    async run(sql: string, params: readonly SqlParam[] = []): Promise<number> {
      return (await query(sql, params)).rowCount ?? 0;
    },
    async exec(sql: string): Promise<void> {
      // Without values: a simple query, which may hold several statements (a migration's DDL).
      await client.query({ text: sql, ...bound });
    },
  };
}

type Statement = Database.Statement<unknown[], unknown>;

/** One better-sqlite3 connection; statements are prepared once and reused. */
export function sqliteConn(db: Database.Database): SqlConn {
  const cache = new Map<string, Statement>();
  const prepare = (sql: string): Statement => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
  const rawCache = new Map<string, Statement>();
  return {
    async rows(sql: string, params: readonly SqlParam[] = []): Promise<unknown[][]> {
      let stmt = rawCache.get(sql);
      if (!stmt) {
        stmt = db.prepare(sql).raw(true);
        rawCache.set(sql, stmt);
      }
      return stmt.all(...params) as unknown[][];
    },
    async all<T>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
      const stmt = prepare(sql);
      if (!stmt.reader) {
        stmt.run(...params);
        return [];
      }
      return stmt.all(...params) as T[];
    },
    async run(sql: string, params: readonly SqlParam[] = []): Promise<number> {
      return prepare(sql).run(...params).changes;
    },
    async exec(sql: string): Promise<void> {
      db.exec(sql);
    },
  };
}
