import { resolve } from 'node:path';
import { isBusyError, RETRY_WINDOW_MS, retryBusy, retryTransient, sqliteConn } from '@agentlane/sql';
import Database from 'better-sqlite3';
import { applyStoreMigrations } from '../sql/migrate.js';
import type {
  BulkColumn,
  Migration,
  SqlBackend,
  SqlConn,
  SqlParam,
  TransactionOptions,
} from '../sql/sql-conn.js';
import { type Checkpointer, startCheckpointer } from './checkpointer.js';
import { type HeadListener, HeadPoller } from './head-poller.js';
import { type SignalListener, SignalLog } from './signal-log.js';

type Statement = Database.Statement<unknown[], unknown>;

/** Rows per multi-row INSERT, largest first: any count is a sum of these (13 columns × 64 rows = 832 params). */
const INSERT_CHUNKS = [64, 16, 4, 1] as const;

/**
 * Write transactions of every connection of this process to one file take turns here. A transaction spans
 * awaits, and better-sqlite3 waits for a busy lock synchronously: two connections of one process would
 * otherwise block the event loop while the other holds the lock it waits for.
 */
const fileQueues = new Map<string, SharedFile>();

interface SharedFile {
  tail: Promise<unknown>;
  users: number;
  /** Stores of this process on this file hear each other's commits (other processes poll). */
  hearers: Set<HeadListener>;
  /** Stores of this process on this file hear each other's live signals. */
  signalHearers: Set<SignalListener>;
  /** Origins of those stores: their rows in the signal log were heard in-process already. */
  origins: Set<string>;
}

/**
 * SQLite: one write connection (every transaction goes through an in-process mutex, BEGIN IMMEDIATE so
 * other processes wait on the file lock) and one read connection, which in WAL mode sees only committed
 * rows. Durability: synchronous=FULL, so a committed transaction survives power loss.
 */
export function createSqliteBackend(path: string, pollMs = 25): SqlBackend {
  const writer = openWriter(path);
  const checkpointer: Checkpointer = startCheckpointer(path);
  const reader = openReader(path);
  const w = sqliteConn(writer);
  const insertStatement = insertStatements(writer);
  const r = sqliteConn(reader);
  const key = resolve(path);
  const shared = shareFile(key);
  let last: Promise<unknown> = Promise.resolve();
  let announced: [string, number, string][] = [];
  /** Rows bulk-inserted by the transaction in progress: what the checkpointer paces itself by. */
  let inserted = 0;
  const signals = new SignalLog(writer, reader, shared.origins);
  const commits = new CommitHearing(writer, reader, pollMs, shared, signals);

  const inTransaction = async <T>(fn: (c: SqlConn) => Promise<T>): Promise<T> => {
    await beginImmediate(writer);
    announced = [];
    inserted = 0;
    try {
      const result = await fn(w);
      writer.exec('COMMIT');
      checkpointer.poke(inserted + 1);
      for (const [threadId, head, origin] of announced) {
        for (const hear of shared.hearers) hear(threadId, head, origin);
      }
      return result;
    } catch (error) {
      if (writer.inTransaction) writer.exec('ROLLBACK');
      throw error;
    } finally {
      announced = [];
    }
  };

  const transaction = <T>(fn: (c: SqlConn) => Promise<T>, options?: TransactionOptions): Promise<T> => {
    const next = shared.tail.then(async () => {
      // A no-op inside a transaction, hence set around it; restored whatever happens.
      const checked = options?.checkedAppends === true;
      if (checked) writer.pragma('foreign_keys = OFF');
      try {
        return await inTransaction(fn);
      } finally {
        if (checked) writer.pragma('foreign_keys = ON');
      }
    });
    shared.tail = next.catch(() => undefined);
    last = shared.tail;
    return next;
  };

  return {
    dialect: 'sqlite',
    forUpdate: '',
    forShare: '',
    skipLocked: '',
    lower: UNICODE_LOWER,
    // A read waits on a lock only in rare moments (WAL recovery, a connection in exclusive locking mode):
    // retried like a write's BEGIN, asynchronously, never in a synchronous busy wait.
    read: (fn) => retryTransient(() => fn(r), { retryable: isBusyError }),
    transaction,
    migrate: (migrations: readonly Migration[]) =>
      transaction((c) => applyStoreMigrations(c, migrations, new Date().toISOString())),
    // Inside the write transaction (the only caller). Multi-row statements (prepared once per shape, run
    // synchronously) cut the per-statement cost that dominated a one-statement-per-row loop.
    insertRows: async (_c, table, columns, rows) => {
      inserted += rows.length;
      insertRows(insertStatement, table, columns, rows);
    },
    selectWhereIn,
    notifyCommitted: async (_c, heads, origin) => {
      for (const [threadId, head] of heads) announced.push([threadId, head, origin]);
    },
    listenCommitted: (onHead) => commits.listen(onHead),
    ...signalChannel(shared, commits, (write) => transaction(async () => write(signals))),
    // In-process hearing never starts late nor stops (the data_version poll reads the file itself).
    listening: async () => {},
    onListening: () => () => {},
    // A lock that outlasted beginImmediate's window is not tried again (the caller gets it: 503).
    isRetryable: (error) => isBusyError(error) && !(error instanceof LockWaitSpent),
    isUniqueViolation,
    close: async () => {
      commits.stop();
      await last;
      await checkpointer.close();
      shared.users -= 1;
      if (shared.users === 0 && fileQueues.get(key) === shared) fileQueues.delete(key);
      reader.close();
      writer.close();
    },
  };
}

/**
 * How long better-sqlite3 may wait for a lock inside one statement. It waits synchronously, holding the
 * event loop (every request and stream of the process): at 10 s a write lock another process held (the
 * sqlite3 shell, a backup) froze the server for 10 s per statement, retried into 20–30 s. Longer waits are
 * asynchronous (beginImmediate, reads), up to RETRY_WINDOW_MS, then 503 with Retry-After.
 */
const SYNC_BUSY_MS = 20;

/** A write lock still held by another connection when the wait for it was over. */
class LockWaitSpent extends Error {
  readonly code: string;
  constructor(override readonly cause: unknown) {
    super(`the SQLite database stayed locked by another connection for ${RETRY_WINDOW_MS / 1000} s`);
    this.name = 'LockWaitSpent';
    this.code = (cause as { code?: string } | null)?.code ?? 'SQLITE_BUSY';
  }
}

/** BEGIN IMMEDIATE, waiting for another connection's write lock asynchronously within the retry window. */
async function beginImmediate(writer: Database.Database): Promise<void> {
  try {
    await retryBusy(() => writer.exec('BEGIN IMMEDIATE'));
  } catch (error) {
    throw isBusyError(error) ? new LockWaitSpent(error) : error;
  }
}

/** The write connection: WAL, synchronous=FULL, foreign keys on, checkpoints left to the checkpointer. */
function openWriter(path: string): Database.Database {
  const writer = withUnicodeLower(new Database(path));
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = FULL');
  writer.pragma('foreign_keys = ON');
  writer.pragma(`busy_timeout = ${SYNC_BUSY_MS}`);
  // A multi-row INSERT inside a transaction keeps a statement journal (to undo just that statement if a row
  // breaks a constraint); on a temp file that was ~4 KB written per row through write(2), more bytes than the
  // WAL itself. In memory it costs a page copy. Only statement rollback uses it, never crash recovery.
  writer.pragma('temp_store = MEMORY');
  // Checkpoints run on a worker thread (checkpointer.ts), never inside this connection's COMMIT; the
  // automatic one stays as a safety net at 10,000 pages should the worker fall behind. Durability is the WAL
  // fsync of every COMMIT, unchanged.
  writer.pragma('wal_autocheckpoint = 10000');
  return writer;
}

/** JavaScript's toLowerCase as an SQL function of this process's connections (registered on each). */
const UNICODE_LOWER = 'agentlane_lower';

function withUnicodeLower(db: Database.Database): Database.Database {
  db.function(UNICODE_LOWER, { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? text.toLowerCase() : text,
  );
  return db;
}

/** The read connection: in WAL mode it sees only committed rows. */
function openReader(path: string): Database.Database {
  const reader = withUnicodeLower(new Database(path));
  reader.pragma(`busy_timeout = ${SYNC_BUSY_MS}`);
  reader.pragma('query_only = ON');
  return reader;
}

/** Multi-row INSERT statements of the writer, prepared once per table, columns and row count. */
function insertStatements(
  writer: Database.Database,
): (table: string, columns: readonly BulkColumn[], rows: number) => Statement {
  const inserts = new Map<string, Statement>();
  return (table: string, columns: readonly BulkColumn[], rows: number): Statement => {
    const key = `${table}\n${columns.map((c) => c.name).join(',')}\n${rows}`;
    let stmt = inserts.get(key);
    if (!stmt) {
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      // OR FAIL: a failing row stops the statement without undoing the rows before it, so no statement journal
      // is kept (with foreign keys off); every caller then aborts the whole transaction anyway.
      stmt = writer.prepare(
        `INSERT OR FAIL INTO ${table} (${columns.map((col) => col.name).join(', ')}) VALUES ${Array(rows).fill(tuple).join(', ')}`,
      );
      inserts.set(key, stmt);
    }
    return stmt;
  };
}

/** Inserts rows in statements of INSERT_CHUNKS rows, largest first. */
function insertRows(
  insertStatement: (table: string, columns: readonly BulkColumn[], rows: number) => Statement,
  table: string,
  columns: readonly BulkColumn[],
  rows: readonly SqlParam[][],
): void {
  let at = 0;
  for (const size of INSERT_CHUNKS) {
    if (rows.length - at < size) continue;
    const stmt = insertStatement(table, columns, size);
    const params: SqlParam[] = new Array(size * columns.length);
    for (; rows.length - at >= size; at += size) {
      // One array per statement shape, refilled: binding copies the values out.
      let k = 0;
      for (let i = at; i < at + size; i++) for (const v of rows[i] as SqlParam[]) params[k++] = v;
      stmt.run(params);
    }
  }
}

/**
 * Live signals: the other stores of this process on the file hear one at once, other processes through the
 * signal log (signal-log.ts). A log that cannot be written (no migrations yet, the disk full) loses only the
 * other processes' copy, as a dropped NOTIFY would on PostgreSQL.
 */
function signalChannel(
  shared: SharedFile,
  commits: CommitHearing,
  inWrite: (write: (log: SignalLog) => void) => Promise<unknown>,
): Pick<SqlBackend, 'notifySignal' | 'listenSignals'> {
  return {
    notifySignal: async (threadId, payload, origin) => {
      for (const hear of shared.signalHearers) hear(threadId, payload, origin);
      await inWrite((log) => log.write(threadId, payload, origin)).catch(() => {});
    },
    listenSignals: (onSignal) => {
      shared.signalHearers.add(onSignal);
      const stopHearing = commits.listenSignals(onSignal);
      return () => {
        shared.signalHearers.delete(onSignal);
        stopHearing();
      };
    },
  };
}

/** This process's entry for a file (one more user of it). */
function shareFile(key: string): SharedFile {
  const shared: SharedFile = fileQueues.get(key) ?? {
    tail: Promise.resolve(),
    users: 0,
    hearers: new Set(),
    signalHearers: new Set(),
    origins: new Set(),
  };
  shared.users += 1;
  fileQueues.set(key, shared);
  return shared;
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true;
  // The append-only trigger refuses a stored key before the unique index would: the same violation.
  return code === 'SQLITE_CONSTRAINT_TRIGGER' && /is already stored/.test((error as Error).message);
}

async function selectWhereIn<T>(
  c: SqlConn,
  sql: string,
  column: string,
  values: readonly string[],
): Promise<T[]> {
  const out: T[] = [];
  // SQLite binds at most 32766 parameters per statement.
  for (let i = 0; i < values.length; i += 500) {
    const chunk = values.slice(i, i + 500);
    out.push(...(await c.all<T>(`${sql} ${column} IN (${chunk.map(() => '?').join(', ')})`, chunk)));
  }
  return out;
}

/** Stores of this process on the file are heard at once; other processes through the data_version poll. */
class CommitHearing {
  private readonly listeners = new Set<HeadListener>();
  private readonly poller: HeadPoller;
  /** Commits of this process's stores on this file: heard at once, and remembered so the poll skips them. */
  private readonly hearLocal: HeadListener = (threadId, head, origin) => {
    this.poller.note(threadId, head);
    for (const listen of this.listeners) listen(threadId, head, origin);
  };

  /** This store's signal listeners: signals of other processes, read by this store's poll. */
  private readonly signalListeners = new Set<SignalListener>();

  constructor(
    writer: Database.Database,
    reader: Database.Database,
    pollMs: number,
    private readonly shared: SharedFile,
    signals: SignalLog,
  ) {
    this.poller = new HeadPoller(
      writer,
      reader,
      pollMs,
      (threadId, head, origin) => {
        for (const listen of this.listeners) listen(threadId, head, origin);
      },
      () =>
        signals.read((threadId, payload, origin) => {
          for (const listen of this.signalListeners) listen(threadId, payload, origin);
        }),
    );
  }

  listen(onHead: HeadListener): () => void {
    this.listeners.add(onHead);
    this.shared.hearers.add(this.hearLocal);
    this.poller.start();
    return () => {
      this.listeners.delete(onHead);
      if (this.listeners.size === 0) this.shared.hearers.delete(this.hearLocal);
      this.stopPollingIfIdle();
    };
  }

  listenSignals(onSignal: SignalListener): () => void {
    this.signalListeners.add(onSignal);
    this.poller.start();
    return () => {
      this.signalListeners.delete(onSignal);
      this.stopPollingIfIdle();
    };
  }

  private stopPollingIfIdle(): void {
    if (this.listeners.size === 0 && this.signalListeners.size === 0) this.poller.stop();
  }

  stop(): void {
    this.poller.stop();
    this.shared.hearers.delete(this.hearLocal);
  }
}
