import type { Migration, SqlConn, SqlParam } from '@agentlane/sql';

// The connection types are the SQL layer's (shared with the ledger and the checkpoint savers).
export type { Migration, SqlConn, SqlParam, SqlRow } from '@agentlane/sql';

/** A column of a bulk insert, with its PostgreSQL type (documents the column; inserts bind plain parameters). */
export interface BulkColumn {
  name: string;
  pgType: 'text' | 'bigint' | 'integer' | 'bytea';
}

export interface TransactionOptions {
  /**
   * The transaction only appends rows whose parent rows it has locked and checked itself (the group commit
   * of frames and canonical rows): SQLite skips its foreign-key checks for it, which otherwise also make
   * every multi-row INSERT keep a statement journal. Any failed statement still aborts the whole transaction.
   */
  checkedAppends?: boolean;
}

/**
 * One backend: how to read committed state, how to run a transaction, and the few places where the SQL
 * dialects differ. The store logic above it is shared, so both backends have one behaviour.
 */
export interface SqlBackend {
  readonly dialect: 'sqlite' | 'postgres';
  /** ` FOR UPDATE` on PostgreSQL; empty on SQLite, where the single writer already serialises. */
  readonly forUpdate: string;
  /**
   * ` FOR SHARE` on PostgreSQL (a lock that waits for, and holds off, FOR UPDATE but not other FOR SHARE);
   * empty on SQLite.
   */
  readonly forShare: string;
  /** ` FOR UPDATE SKIP LOCKED` on PostgreSQL; empty on SQLite. */
  readonly skipLocked: string;
  /** The SQL function that lower-cases text by Unicode rules (SQLite's LOWER folds ASCII only). */
  readonly lower: string;
  /** Reads committed rows (never sees a transaction in progress). */
  read<T>(fn: (c: SqlConn) => Promise<T>): Promise<T>;
  /** Runs fn in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (c: SqlConn) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Applies the migrations not applied yet, under a lock so concurrent starts apply each once. */
  migrate(migrations: readonly Migration[]): Promise<void>;
  /** Inserts many rows at once: multi-row INSERT statements (prepared once per shape on SQLite). */
  insertRows(
    c: SqlConn,
    table: string,
    columns: readonly BulkColumn[],
    rows: readonly SqlParam[][],
  ): Promise<void>;
  /** Rows of `sql` (which ends in a WHERE clause prefix) whose `column` is one of `values`. */
  selectWhereIn<T>(c: SqlConn, sql: string, column: string, values: readonly string[]): Promise<T[]>;
  /** Inside a transaction: tells other processes a thread's head moved (delivered on commit). */
  notifyCommitted(c: SqlConn, heads: ReadonlyMap<string, number>, origin: string): Promise<void>;
  /** Starts hearing other processes' commits; returns a stop function. */
  listenCommitted(onHead: (threadId: string, head: number, origin: string) => void): () => void;
  /** Tells the other stores of this database a thread's live signal (`payload` is JSON). */
  notifySignal(threadId: string, payload: string, origin: string): Promise<void>;
  /** Starts hearing the signals of other stores; returns a stop function. */
  listenSignals(onSignal: (threadId: string, payload: string, origin: string) => void): () => void;
  /** Resolves once what other stores broadcast from now on is heard (starts listening). Never rejects. */
  listening(): Promise<void>;
  /** Called each time hearing other stores (re)starts, the first time included; returns a stop function. */
  onListening(hear: () => void): () => void;
  /** True for an error the whole transaction can be retried after (deadlock, serialization failure). */
  isRetryable(error: unknown): boolean;
  /** True for a unique-constraint violation. */
  isUniqueViolation(error: unknown): boolean;
  close(): Promise<void>;
}
