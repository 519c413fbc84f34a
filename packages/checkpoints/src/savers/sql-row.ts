import type { CheckpointRow, RowMeta } from './rows.js';

/**
 * A `harness_checkpoints` row as either SQL driver returns it: PostgreSQL gives BIGSERIAL and byte counts as
 * strings and pinned as a boolean, SQLite gives numbers and pinned as 0/1. The table is the same on both.
 */
export interface SqlCheckpointRow {
  seq: number | string;
  session_id: string;
  checkpoint_id: string;
  namespace: string;
  parent_checkpoint_id: string | null;
  stage_id: string;
  created_at: string;
  schema_version: number;
  storage: 'full' | 'delta';
  base_distance: number;
  channels?: string;
  bytes?: number | string;
  pinned: number | boolean;
}

/** Every column but the wide `channels` payload. */
export const META_COLUMNS =
  'seq, session_id, checkpoint_id, namespace, parent_checkpoint_id, stage_id, created_at, schema_version, storage, base_distance, pinned';

export function toCheckpointRow(r: SqlCheckpointRow): CheckpointRow {
  return {
    seq: Number(r.seq),
    sessionId: r.session_id,
    checkpointId: r.checkpoint_id,
    namespace: r.namespace,
    parentCheckpointId: r.parent_checkpoint_id,
    stageId: r.stage_id,
    createdAt: r.created_at,
    schemaVersion: r.schema_version,
    storage: r.storage,
    baseDistance: r.base_distance,
    payload: r.channels ?? '',
    pinned: r.pinned === true || r.pinned === 1,
  };
}

export function toRowMeta(r: SqlCheckpointRow): RowMeta {
  const { payload: _payload, ...rest } = toCheckpointRow(r);
  return { ...rest, bytes: Number(r.bytes ?? 0) };
}
