import type Database from 'better-sqlite3';

export type HeadListener = (threadId: string, head: number, origin: string) => void;

/**
 * Hears commits of other processes on a SQLite file. `PRAGMA data_version` changes when another connection
 * committed, and costs microseconds; only then are the thread heads re-read, and only heads above the ones
 * already known (from this process's own commits or an earlier poll) are announced, so nothing is heard twice.
 */
export class HeadPoller {
  private readonly known = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private version = -1;

  constructor(
    private readonly reader: Database.Database,
    private readonly intervalMs: number,
    private readonly announce: HeadListener,
  ) {}

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
      const version = Number(this.reader.pragma('data_version', { simple: true }));
      if (version === this.version) return;
      this.version = version;
      const rows = this.reader.prepare('SELECT thread_id, head FROM thread_heads').all() as {
        thread_id: string;
        head: number;
      }[];
      for (const row of rows) {
        const head = Number(row.head);
        if (head <= (this.known.get(row.thread_id) ?? 0)) continue;
        this.known.set(row.thread_id, head);
        if (announce) this.announce(row.thread_id, head, 'poll');
      }
    } catch {
      // Busy or closing: the next tick tries again.
    }
  }
}
