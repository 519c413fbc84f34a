/** A value bound to a `?` placeholder. Booleans are stored as 0/1 by the callers. */
export type SqlParam = string | number | null | Buffer;

/** A column of a bulk insert, with its PostgreSQL type (documents the column; inserts bind plain parameters). */
export interface BulkColumn {
  name: string;
  pgType: 'text' | 'bigint' | 'integer' | 'bytea';
}

export type SqlRow = Record<string, unknown>;

/** The slice of a database connection the store logic needs; statements use `?` placeholders. */
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

export interface Migration {
  name: string;
  sql: string;
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
  /** ` FOR UPDATE SKIP LOCKED` on PostgreSQL; empty on SQLite. */
  readonly skipLocked: string;
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
  /** True for an error the whole transaction can be retried after (deadlock, serialization failure). */
  isRetryable(error: unknown): boolean;
  /** True for a unique-constraint violation. */
  isUniqueViolation(error: unknown): boolean;
  close(): Promise<void>;
}
