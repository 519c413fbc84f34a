import type { JsonObject } from '@agentlane/contract';

/** What is heard between the stores of one database: commits of canonical events, live signals. */
export interface SignalStore {
  /**
   * Called after a commit that appended canonical events to a thread, with the thread's new head. Commits of
   * other stores and processes are heard too: LISTEN/NOTIFY on PostgreSQL; on SQLite other stores of this
   * process at once and other processes through a cheap `PRAGMA data_version` poll (~25 ms). Several commits
   * may fold into one call; a head is never announced twice. Returns the unsubscribe function.
   */
  onCommitted(listener: (threadId: string, headDeliverySeq: number) => void): () => void;
  /**
   * Sends a thread's live signal (run status, completion: small JSON, not a row) to the other stores of this
   * database, so subscribers served by another process hear it too: NOTIFY on PostgreSQL; on SQLite the other
   * stores of this process only. This store's own `onSignal` listeners do not hear it.
   */
  broadcastSignal(threadId: string, signal: JsonObject): Promise<void>;
  /** Hears the signals other stores broadcast. Returns the unsubscribe function. */
  onSignal(listener: (threadId: string, signal: JsonObject) => void): () => void;
  /**
   * Resolves once the signals and commits other stores broadcast from now on are heard (PostgreSQL: the
   * LISTEN connection is up; at once on SQLite). Never rejects; pending while the database is unreachable.
   */
  listening(): Promise<void>;
  /**
   * Called each time hearing other stores (re)starts, the first time included (PostgreSQL: LISTEN
   * established again after a restart or a dropped connection; never on SQLite). What was broadcast while it
   * was down is lost, so the caller re-reads what it cares about. Returns the unsubscribe function.
   */
  onListening(listener: () => void): () => void;
}
