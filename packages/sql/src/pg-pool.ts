import pg from 'pg';
import { checkSchemaName, parseDatabaseUrl } from './url.js';

export interface PgPoolOptions {
  /** postgres://user@host:port/db (without `?schema=`: see parseDatabaseUrl). */
  url: string;
  /** Every connection sets it as its search_path (the tables of the store live there). */
  schema?: string;
  /** Connections in the pool; default 10. */
  max?: number;
  /** How long a statement may go unanswered before its connection is dropped; default PG_QUERY_TIMEOUT_MS. */
  queryTimeoutMs?: number;
}

/**
 * How long the server lets a connection of ours sit idle inside a transaction before it ends the session.
 * Our transactions wait on nothing but their own statements; one left idle is a process that stopped
 * (SIGSTOP, a frozen VM) holding its row locks, and every other process's write to that thread (settling
 * the stopped process's runs, among others) waited behind it for as long as it stayed stopped. Ended, its
 * transaction rolls back; the process, if it wakes, fails that transaction and retries on a new connection.
 */
export const IDLE_IN_TRANSACTION_MS = 5000;

/**
 * The session settings of every connection: synchronous_commit=on (durability), the idle-in-transaction
 * bound, the schema if any.
 */
export function pgSessionOptions(schema: string | undefined): string {
  const settings = [
    '-c synchronous_commit=on',
    `-c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_MS}`,
  ];
  if (schema !== undefined) settings.push(`-c search_path=${checkSchemaName(schema)}`);
  return settings.join(' ');
}

/**
 * How long one statement may go unanswered before its connection is taken for broken: a connection that
 * stalls (TCP open, no bytes: a partition, a failed-over primary whose packets are dropped) otherwise held
 * its request until the kernel gave up on the socket, minutes later, and the pool filled with such
 * connections. Timed out, the statement fails as a connection error (retried, then 503 with Retry-After) and
 * the connection is dropped. Migrations, which may rewrite large tables, run without it (migratePostgres).
 */
export const PG_QUERY_TIMEOUT_MS = 30_000;

/** How long opening a connection, or waiting for a free one of the pool, may take. */
export const PG_CONNECT_TIMEOUT_MS = 10_000;

/** Tells the server who is connected (pg_stat_activity.application_name): `agentlane` plus the PID. */
export const APPLICATION_NAME = `agentlane-${process.pid}`;

/**
 * A pool whose connection errors never reach the process as an unhandled `error` event: an idle connection
 * that dies (a restart, pg_terminate_backend) is dropped by the pool; a connection that dies while checked
 * out (inside a transaction, between two queries) fails its next query instead, and is dropped when
 * released. node-postgres only listens on idle clients itself, hence the listener on every connection.
 */
export function createPgPool(options: PgPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    options: pgSessionOptions(options.schema),
    max: options.max ?? 10,
    application_name: APPLICATION_NAME,
    query_timeout: options.queryTimeoutMs ?? PG_QUERY_TIMEOUT_MS,
    connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

interface SharedEntry {
  pool: pg.Pool;
  users: number;
}

const shared = new Map<string, SharedEntry>();

/** A use of the process's pool for one database; `release()` ends the pool when its last user leaves. */
export interface PgPoolLease {
  readonly pool: pg.Pool;
  release(): Promise<void>;
}

/**
 * One pool per database and schema in this process, shared by the ledger and the checkpoint savers (and the
 * built-in engine's saver) with the store: one set of connections, one place that handles their errors.
 *
 * `own: true` (the store) always gets a pool of its own: two stores in one process stand for two processes
 * (tests, benchmarks) and must not share connections. The first such pool of a database is the one the
 * others join, so `agentlane serve` has exactly one pool for its database.
 */
export function acquirePgPool(options: PgPoolOptions & { own?: boolean }): PgPoolLease {
  const key = `${options.url}\n${options.schema ?? ''}`;
  let entry = options.own ? undefined : shared.get(key);
  if (!entry) {
    entry = { pool: createPgPool(options), users: 0 };
    if (!shared.has(key)) shared.set(key, entry);
  }
  const held = entry;
  held.users += 1;
  let released = false;
  return {
    pool: held.pool,
    async release() {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users > 0) return;
      if (shared.get(key) === held) shared.delete(key);
      await held.pool.end();
    },
  };
}

/** A pool to work on, with the schema its URL named and how to give it back. */
export interface PgPoolUse {
  readonly pool: pg.Pool;
  readonly schema?: string;
  release(): Promise<void>;
}

/**
 * What a package opened "from a URL or a pool" works on: for a URL, the process's shared pool for that
 * database (its `?schema=` read here); for a caller's pool, that pool, left open by release().
 */
export function pgPoolFor(connection: string | pg.Pool, user: string): PgPoolUse {
  if (typeof connection !== 'string') return { pool: connection, release: async () => {} };
  const target = parseDatabaseUrl(connection);
  if (target.dialect !== 'postgres') throw new Error(`${user} needs a postgres:// URL`);
  const lease = acquirePgPool({ url: target.url, ...(target.schema ? { schema: target.schema } : {}) });
  return {
    pool: lease.pool,
    ...(target.schema ? { schema: target.schema } : {}),
    release: () => lease.release(),
  };
}
