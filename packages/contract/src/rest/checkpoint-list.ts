import type { StageId } from '../checkpoint.js';

/** How a checkpoint row is stored: a full channel map, or only the change since its parent. */
export type StorageKind = 'full' | 'delta';

/** A checkpoint row without its payload: what a list returns, cheap regardless of state size. */
export interface CheckpointSummary {
  checkpointId: string;
  sessionId: string;
  /** Chain inside the session; '' is the root. */
  namespace: string;
  stageId: StageId;
  createdAt: string;
  schemaVersion: number;
  parentCheckpointId: string | null;
  /** Reads always hydrate fully. */
  storage: StorageKind;
  /** Bytes of the stored channel payload. */
  bytes: number;
  pinned: boolean;
}

/** `GET /sessions/:id/checkpoints`: one page, newest first. */
export interface CheckpointList {
  checkpoints: CheckpointSummary[];
  nextCursor: string | null;
}

/** An error answer of the checkpoint routes: also names the checkpoint a refusal or a corrupt row is about. */
export interface CheckpointErrorBody {
  error: { code: string; message: string; field?: string; checkpointId?: string };
}
