import type Database from 'better-sqlite3';

export type HeadListener = (threadId: string, head: number, origin: string) => void;

/**
 * Hears commits of other processes on a SQLite file. `PRAGMA data_version` changes when another connection
 * committed, and costs microseconds; only then are the thread heads re-read, and only heads above the ones
 * already known (from this process's own commits or an earlier poll) are announced, so nothing is heard twice.
 *
 * The version is read on the process's write connection: its own commits do not change it, so a process
 * writing alone never re-reads the heads. Read on the reader, every commit of this process changed it, and
 * every poll while the process was writing read every thread's head (O(threads) 40 times a second).
 */
export class HeadPoller {
  private readonly known = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private version = -1;
  private readonly dataVersion: Database.Statement<[], number>;
  /** Prepared at the first read: the table may not exist before the store's migrations ran. */
  private heads: Database.Statement<[], { thread_id: string; head: number }> | null = null;
  /** How many times the heads were read (tests and diagnostics). */
  headReads = 0;

  constructor(
    writer: Database.Database,
    private readonly reader: Database.Database,
    private readonly intervalMs: number,
    private readonly announce: HeadListener,
    /** Called whenever another process committed (and at the first poll): reads the signal log. */
    private readonly readSignals: () => void = () => {},
  ) {
    this.dataVersion = writer.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** A head this process already published. */
  note(threadId: string, head: number): void {
    if (head > (this.known.get(threadId) ?? 0)) this.known.set(threadId, head);
  }

  start(): void {
    if (this.timer) return;
    this.poll(false);
    this.timer = setInterval(() => this.poll(true), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private poll(announce: boolean): void {
    try {
      const version = Number(this.dataVersion.get());
      if (version === this.version) return;
      this.heads ??= this.reader.prepare('SELECT thread_id, head FROM thread_heads');
      this.headReads++;
      for (const row of this.heads.all()) {
        const head = Number(row.head);
        if (head <= (this.known.get(row.thread_id) ?? 0)) continue;
        this.known.set(row.thread_id, head);
        if (announce) this.announce(row.thread_id, head, 'poll');
      }
      // After the heads: a run.canonicalized signal is heard after the rows it covers.
      this.readSignals();
      // Only now: a read that failed (busy) is made again at the next tick, not skipped as seen.
      this.version = version;
    } catch {
      // Busy or closing: the next tick tries again.
    }
  }
}
