import type { Checkpoint, CheckpointSummary, JsonValue, StageId, StorageKind } from '@agentlane/contract';

// A row's storage kind and its summary (what `list` returns) are REST shapes, so the contract declares them.
export type { CheckpointSummary, StorageKind };

export interface PutOptions {
  /** Sub-graph / child-agent namespace inside a session; '' (the default) is the root. */
  namespace?: string;
}

export interface PutResult {
  checkpointId: string;
  sessionId: string;
  namespace: string;
  storage: StorageKind;
  /** Bytes of the stored channel payload (the JSON text written). */
  bytes: number;
}

export interface ListQuery {
  sessionId: string;
  /** Only this namespace; all namespaces of the session when absent. */
  namespace?: string;
  stageId?: StageId;
  pinned?: boolean;
  /** 1..1000, default 50. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface ListPage {
  /** Newest first. */
  items: CheckpointSummary[];
  nextCursor: string | null;
}

export interface WriteInput {
  channel: string;
  value: JsonValue;
}

/** A write made during a stage that has not produced its checkpoint yet. */
export interface PendingWrite {
  taskId: string;
  /** Position inside the task's batch; (taskId, idx) is the idempotency key. */
  idx: number;
  channel: string;
  value: JsonValue;
}

export interface PruneOptions {
  sessionId: string;
  namespace?: string;
  /** Keep this many newest checkpoints (pinned ones are kept in addition). */
  keepNewest: number;
}

export interface PruneResult {
  deleted: number;
  /** Kept checkpoints rewritten as full snapshots because their delta base was pruned. */
  rebased: number;
}

/**
 * Where checkpoints live. Every method validates its input and either does all of its work or none.
 * With the cache on (the default), returned checkpoints are deeply frozen because every reader shares them: copy before mutating.
 */
export interface CheckpointSaver {
  /** Stores a checkpoint after its parent (`parentCheckpointId`, same session and namespace). */
  put(checkpoint: unknown, options?: PutOptions): Promise<PutResult>;
  get(sessionId: string, checkpointId: string): Promise<Checkpoint | undefined>;
  getLatest(sessionId: string, options?: PutOptions): Promise<Checkpoint | undefined>;
  /** The namespace and row facts of one checkpoint, without hydrating it. */
  describe(sessionId: string, checkpointId: string): Promise<CheckpointSummary | undefined>;
  list(query: ListQuery): Promise<ListPage>;
  /** Records writes of an unfinished stage that started from `checkpointId`; replaying the same (taskId, idx) is a no-op. */
  putWrites(
    sessionId: string,
    checkpointId: string,
    taskId: string,
    writes: readonly WriteInput[],
  ): Promise<void>;
  /** Pending writes in the order they were first recorded. */
  pendingWrites(sessionId: string, checkpointId: string): Promise<PendingWrite[]>;
  pin(sessionId: string, checkpointId: string, pinned?: boolean): Promise<void>;
  prune(options: PruneOptions): Promise<PruneResult>;
  deleteSession(sessionId: string): Promise<void>;
  close(): Promise<void>;
}
