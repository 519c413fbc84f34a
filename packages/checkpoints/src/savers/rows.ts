import type { PendingWrite, StorageKind } from '../saver.js';

/** One row of `harness_checkpoints`, as every backend stores it (see docs/checkpoint-storage.md). */
export interface CheckpointRow {
  /** Insertion order; never reused, so it also tells a re-created id apart from the old one. */
  seq: number;
  sessionId: string;
  namespace: string;
  checkpointId: string;
  parentCheckpointId: string | null;
  stageId: string;
  createdAt: string;
  schemaVersion: number;
  storage: StorageKind;
  /** Deltas between this row and the nearest full row (0 for a full row). */
  baseDistance: number;
  /** JSON text: the channel map (full) or the delta map (delta). */
  payload: string;
  pinned: boolean;
}

export type NewRow = Omit<CheckpointRow, 'seq'>;
export type RowMeta = Omit<CheckpointRow, 'payload'> & { bytes: number };

export interface RowListQuery {
  sessionId: string;
  namespace?: string;
  stageId?: string;
  pinned?: boolean;
  beforeSeq?: number;
  limit: number;
}

/** The new row's seq, or why it was refused. */
export type InsertOutcome = number | 'duplicate' | 'missing_parent';
export type PruneOutcome = 'applied' | 'changed';

/**
 * The small storage slice a backend implements; the delta logic, validation and caching live once in
 * the saver core on top of it.
 */
export interface CheckpointRowStore {
  /** Atomically: refuses a duplicate (sessionId, checkpointId) and a parent that is not (still) the row with `parentSeq`. */
  insert(row: NewRow, parentSeq: number | null): Promise<InsertOutcome>;
  head(sessionId: string, checkpointId: string): Promise<CheckpointRow | undefined>;
  latest(sessionId: string, namespace: string): Promise<CheckpointRow | undefined>;
  /** The row and its ancestors back to the nearest full row, newest first. */
  chain(sessionId: string, checkpointId: string): Promise<CheckpointRow[]>;
  list(query: RowListQuery): Promise<RowMeta[]>;
  /** Every row of one namespace, oldest first. */
  allMeta(sessionId: string, namespace: string): Promise<RowMeta[]>;
  /** One transaction; returns 'changed' (and does nothing) if a row was added after `maxSeq`. */
  applyPrune(
    sessionId: string,
    namespace: string,
    maxSeq: number,
    deleteIds: readonly string[],
    rewrites: readonly { checkpointId: string; payload: string }[],
  ): Promise<PruneOutcome>;
  setPinned(sessionId: string, checkpointId: string, pinned: boolean): Promise<boolean>;
  /** Inserts, ignoring (taskId, idx) already present; false when the checkpoint does not exist. */
  putWrites(
    sessionId: string,
    checkpointId: string,
    writes: readonly { taskId: string; idx: number; channel: string; value: string }[],
  ): Promise<boolean>;
  pendingWrites(
    sessionId: string,
    checkpointId: string,
  ): Promise<(Omit<PendingWrite, 'value'> & { value: string })[]>;
  deleteSession(sessionId: string): Promise<void>;
  close(): Promise<void>;
}
