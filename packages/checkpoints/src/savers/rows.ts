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

/** What hydration reads of a head's ancestors. */
export type ChainLink = Pick<CheckpointRow, 'checkpointId' | 'parentCheckpointId' | 'storage' | 'payload'> & {
  /** The payload already parsed (a base read in pieces through its layout); `payload` is then empty. */
  parsed?: unknown;
};
/** A row and its ancestors back to the nearest full row, newest first (empty: no such row). */
export type Chain = [] | [CheckpointRow & ChainLink, ...ChainLink[]];

/** A namespace's materialized head (`harness_checkpoint_heads`): the new row as a full base plus one delta. */
export interface HeadRow {
  baseCheckpointId: string;
  /** JSON: the delta from the base's channels to the row's ('{}' when the row is the base). */
  sinceBase: string;
  /**
   * JSON: where the base's long lists lie in its text (base-layout.ts), given with a full row; a head that
   * keeps its base keeps the layout it has.
   */
  baseLayout?: string;
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
  /**
   * Atomically: refuses a duplicate (sessionId, checkpointId) and a parent that is not (still) the row with
   * `parentSeq`; with the row, records `head` as its namespace's materialized head, or with `null` deletes
   * the namespace's head (a backend may keep none).
   */
  insert(row: NewRow, parentSeq: number | null, head?: HeadRow | null): Promise<InsertOutcome>;
  head(sessionId: string, checkpointId: string): Promise<CheckpointRow | undefined>;
  /** The newest row of a namespace, without its payload (enough to check a cached state). */
  latest(sessionId: string, namespace: string): Promise<{ seq: number; checkpointId: string } | undefined>;
  /** The row and its ancestors back to the nearest full row. */
  chain(sessionId: string, checkpointId: string): Promise<Chain>;
  /**
   * `chain` of the newest row of a namespace, in one read (a cold get-latest). From a current materialized
   * head it is two links: the head row with `payload` = its merged delta, then the base.
   */
  latestChain(sessionId: string, namespace: string): Promise<Chain>;
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
