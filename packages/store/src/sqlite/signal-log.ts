import type Database from 'better-sqlite3';

export type SignalListener = (threadId: string, payload: string, origin: string) => void;

/** Rows the log keeps: a process that polls every 25 ms reads far fewer between two polls. */
const KEPT_SIGNALS = 1000;

/**
 * Live signals between processes on one SQLite file. SQLite has no channel between processes, so a signal
 * (run status, run.canonicalized: what an execute stream or a thread stream waits for) is also written as a
 * row of `live_signals`; each process reads the rows after the last it saw whenever its data_version poll
 * (head-poller.ts) sees another process commit. The stores of one process hear each other's signals at once
 * and skip their process's rows here (by origin). Without it, a run executed by another process never ended the execute stream
 * that started it, and its thread's streams never heard it canonicalized.
 */
export class SignalLog {
  private insert: Database.Statement | null = null;
  private prune: Database.Statement | null = null;
  private after: Database.Statement<
    [number],
    { id: number; thread_id: string; payload: string; origin: string }
  > | null = null;
  /** Read up to here; -1 until the first read, which only takes the newest id (old signals are past). */
  private lastId = -1;
  constructor(
    private readonly writer: Database.Database,
    private readonly reader: Database.Database,
    /** Origins of this process's stores on the file (shared by them): their signals were heard in-process. */
    private readonly local: Set<string>,
  ) {}

  /** Inside a write transaction of the writer. */
  write(threadId: string, payload: string, origin: string): void {
    this.insert ??= this.writer.prepare(
      'INSERT INTO live_signals (thread_id, payload, origin) VALUES (?, ?, ?)',
    );
    this.prune ??= this.writer.prepare('DELETE FROM live_signals WHERE id <= ?');
    this.local.add(origin);
    const id = Number(this.insert.run(threadId, payload, origin).lastInsertRowid);
    if (id % 100 === 0) this.prune.run(id - KEPT_SIGNALS);
  }

  /** Calls `hear` with each signal other processes wrote since the last read. */
  read(hear: SignalListener): void {
    this.after ??= this.reader.prepare(
      'SELECT id, thread_id, payload, origin FROM live_signals WHERE id > ? ORDER BY id',
    );
    if (this.lastId < 0) {
      this.lastId = Number(
        this.reader.prepare('SELECT COALESCE(MAX(id), 0) FROM live_signals').pluck().get(),
      );
      return;
    }
    for (const row of this.after.all(this.lastId)) {
      this.lastId = Number(row.id);
      if (!this.local.has(row.origin)) hear(row.thread_id, row.payload, row.origin);
    }
  }
}
