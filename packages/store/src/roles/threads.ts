import type { JsonObject } from '@agentlane/contract';

// Plain records of what the store holds. Field names are camelCase in TypeScript, snake_case in SQL.

export interface ThreadRecord {
  threadId: string;
  /** The engine this thread was created for (a configured engine name). */
  engine: string;
  title: string | null;
  workDir: string | null;
  createdAt: string;
  updatedAt: string;
  /** Thread-level metadata a client set (PUT /sessions/:id); free-form JSON. */
  metadata: JsonObject;
}

export interface ListThreadsQuery {
  /** Only these threads (a scoped token's), filtered before paging. */
  threadIds?: readonly string[];
  engine?: string;
  /** Substring match on the title. */
  search?: string;
  limit: number;
  /** Opaque cursor from a previous page. */
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Threads: the root every other row hangs from. */
export interface ThreadStore {
  createThread(thread: Omit<ThreadRecord, 'createdAt' | 'updatedAt'>): Promise<ThreadRecord>;
  getThread(threadId: string): Promise<ThreadRecord | null>;
  updateThread(
    threadId: string,
    patch: Partial<Pick<ThreadRecord, 'title' | 'metadata'>>,
  ): Promise<ThreadRecord>;
  /**
   * Deletes the thread and everything under it (cascade); deleting a missing thread is a no-op. While a run
   * of the thread is queued or running it is refused (`conflict`, detail `active_run`), decided in the
   * deleting transaction against createRun's: of a delete and a run.create racing on two processes, either
   * the thread goes and run.create is `not_found`, or the run is created and the delete refused.
   */
  deleteThread(threadId: string): Promise<void>;
  listThreads(query: ListThreadsQuery): Promise<Page<ThreadRecord>>;
}
