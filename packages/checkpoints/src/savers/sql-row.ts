import type { Chain, CheckpointRow, RowMeta } from './rows.js';

/**
 * A `harness_checkpoints` row as either SQL driver returns it: PostgreSQL gives BIGSERIAL and byte counts as
 * strings and pinned as a boolean, SQLite gives numbers and pinned as 0/1. The table is the same on both.
 */
export interface SqlCheckpointRow {
  /** Distance from the requested row, in a chain read. */
  lvl?: number;
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

/** The head's own columns, sent for the chain's first row only (`lvl = 0`); every other row is a link. */
const HEAD_ONLY = [
  'seq',
  'session_id',
  'namespace',
  'stage_id',
  'created_at',
  'schema_version',
  'base_distance',
  'pinned',
];

/**
 * The chain read of docs/checkpoint-storage.md in either dialect, from an anchor row (`anchor` selects
 * `checkpoint_id, parent_checkpoint_id, storage` of one row; `session` is the session parameter). The narrow
 * columns are walked first and the wide payloads fetched once. Two costs are left out on purpose: an ORDER BY
 * (it copies every payload through a temporary B-tree: 2 of 2.6 ms of a hydration at 500 turns on SQLite;
 * `chainRows` orders the rows instead) and the head's columns on every ancestor (they are only read from the
 * head; as NULLs they cost the driver nothing). A chain longer than the session has rows is a loop of parent
 * links (a corrupt or hostile table): the walk stops there, and the caller, finding no full row at its end,
 * reports the row as corrupt. Without the bound the query never ended, holding the process (SQLite) or a
 * database backend (PostgreSQL) and growing without limit.
 */
export function chainSql(
  dialect: 'sqlite' | 'postgres',
  table: string,
  anchor: string,
  session: string,
): string {
  // SQLite: CROSS JOIN keeps the chain as the outer loop (its planner may otherwise scan the table first).
  const join = dialect === 'sqlite' ? 'CROSS JOIN' : 'JOIN';
  const head = HEAD_ONLY.map((c) => `CASE WHEN chain.lvl = 0 THEN t.${c} END AS ${c}`).join(', ');
  return `WITH RECURSIVE chain(lvl, checkpoint_id, parent_checkpoint_id, storage) AS (
      SELECT 0, checkpoint_id, parent_checkpoint_id, storage FROM (${anchor}) anchor
      UNION ALL
      SELECT chain.lvl + 1, p.checkpoint_id, p.parent_checkpoint_id, p.storage FROM ${table} p
        JOIN chain ON p.session_id = ${session} AND p.checkpoint_id = chain.parent_checkpoint_id
       WHERE chain.storage = 'delta'
         AND chain.lvl < (SELECT COUNT(*) FROM ${table} WHERE session_id = ${session})
    )
    SELECT chain.lvl, chain.checkpoint_id, chain.parent_checkpoint_id, chain.storage, t.channels, ${head}
      FROM chain ${join} ${table} t ON t.session_id = ${session} AND t.checkpoint_id = chain.checkpoint_id`;
}

/** A chain read's rows, newest first: the head whole, its ancestors as links. */
export function chainRows(rows: SqlCheckpointRow[]): Chain {
  rows.sort((a, b) => (a.lvl ?? 0) - (b.lvl ?? 0));
  const [head, ...links] = rows;
  if (!head) return [];
  return [
    toCheckpointRow(head),
    ...links.map((r) => ({
      checkpointId: r.checkpoint_id,
      parentCheckpointId: r.parent_checkpoint_id,
      storage: r.storage,
      payload: r.channels ?? '',
    })),
  ];
}
