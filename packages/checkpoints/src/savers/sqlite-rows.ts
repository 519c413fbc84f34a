import { migrateSqliteSync, retryBusy } from '@agentlane/sql';
import type Database from 'better-sqlite3';
import { parseWithLayout } from './base-layout.js';
import { checkpointMigrations } from './migrations.js';
import type {
  Chain,
  CheckpointRow,
  CheckpointRowStore,
  HeadRow,
  InsertOutcome,
  NewRow,
  PruneOutcome,
  RowListQuery,
  RowMeta,
} from './rows.js';
import {
  chainRows,
  chainSql,
  META_COLUMNS,
  type SqlCheckpointRow,
  toCheckpointRow,
  toRowMeta,
} from './sql-row.js';

/**
 * The namespace's materialized head with its base, when the head row is still the newest row (a writer that
 * keeps no heads, e.g. another runtime, leaves it behind and the chain is read instead).
 */
const headSql = `SELECT h.since_base, h.base_checkpoint_id, h.base_layout, b.storage AS base_storage,
    b.parent_checkpoint_id AS base_parent, CAST(b.channels AS BLOB) AS base_channels, ${META_COLUMNS.split(
      ', ',
    )
      .map((c) => `t.${c}`)
      .join(', ')}
  FROM harness_checkpoint_heads h
  CROSS JOIN harness_checkpoints t ON t.session_id = h.session_id AND t.checkpoint_id = h.checkpoint_id
  CROSS JOIN harness_checkpoints b ON b.session_id = h.session_id AND b.checkpoint_id = h.base_checkpoint_id
  WHERE h.session_id = :session AND h.namespace = :namespace
    AND t.seq = (SELECT MAX(seq) FROM harness_checkpoints WHERE session_id = :session AND namespace = :namespace)`;

interface MaterializedHead extends SqlCheckpointRow {
  since_base: string;
  base_checkpoint_id: string;
  base_storage: string;
  base_parent: string | null;
  /** The base's text as bytes: with a layout it is decoded in pieces, never as one large string. */
  base_channels: Buffer;
  base_layout: string | null;
}

/** The two-link chain of a materialized head: the head row carrying the merged delta, then its base. */
function headChain(h: MaterializedHead): Chain {
  const parsed = h.base_layout === null ? undefined : parseWithLayout(h.base_channels, h.base_layout);
  const base = {
    checkpointId: h.base_checkpoint_id,
    parentCheckpointId: h.base_parent,
    storage: 'full',
  } as const;
  return [
    { ...toCheckpointRow(h), storage: 'delta', payload: h.since_base },
    parsed === undefined
      ? { ...base, payload: h.base_channels.toString('utf8') }
      : { ...base, payload: '', parsed },
  ];
}

/**
 * better-sqlite3 is synchronous, so each method is one transaction on one connection. A write that finds the
 * file locked (the store of this process between two awaits of its transaction) is retried asynchronously.
 */
export class SqliteRows implements CheckpointRowStore {
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    private readonly owned: boolean,
  ) {
    // Already applied by openCheckpointSaver (then a read); else applied here, throwing when locked.
    migrateSqliteSync(db, checkpointMigrations('sqlite'));
    const t = 'harness_checkpoints';
    const anchorColumns = 'SELECT checkpoint_id, parent_checkpoint_id, storage FROM harness_checkpoints';
    const byId = `${anchorColumns} WHERE session_id = :session AND checkpoint_id = :checkpoint`;
    const newest = `${anchorColumns} WHERE session_id = :session AND namespace = :namespace ORDER BY seq DESC LIMIT 1`;
    this.statements = {
      exists: db
        .prepare('SELECT 1 FROM harness_checkpoints WHERE session_id = ? AND checkpoint_id = ?')
        .pluck(),
      parent: db.prepare(
        'SELECT seq, namespace FROM harness_checkpoints WHERE session_id = ? AND checkpoint_id = ?',
      ),
      insert: db.prepare(
        `INSERT INTO harness_checkpoints (session_id, checkpoint_id, namespace, parent_checkpoint_id, stage_id, created_at,
           schema_version, storage, base_distance, channels, pinned)
         VALUES (@sessionId, @checkpointId, @namespace, @parentCheckpointId, @stageId, @createdAt, @schemaVersion,
           @storage, @baseDistance, @payload, @pinned)`,
      ),
      head: db.prepare('SELECT * FROM harness_checkpoints WHERE session_id = ? AND checkpoint_id = ?'),
      latest: db.prepare(
        'SELECT seq, checkpoint_id FROM harness_checkpoints WHERE session_id = ? AND namespace = ? ORDER BY seq DESC LIMIT 1',
      ),
      chain: db.prepare(chainSql('sqlite', t, byId, ':session')),
      latestChain: db.prepare(chainSql('sqlite', t, newest, ':session')),
      materialized: db.prepare(headSql),
      putHead: db.prepare(
        // A head that keeps its base keeps the base's layout (only a full row's put gives one).
        `INSERT INTO harness_checkpoint_heads (session_id, namespace, checkpoint_id, base_checkpoint_id, since_base,
           base_layout)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (session_id, namespace) DO UPDATE SET checkpoint_id = excluded.checkpoint_id,
           base_checkpoint_id = excluded.base_checkpoint_id, since_base = excluded.since_base,
           base_layout = CASE WHEN excluded.base_layout IS NULL
             AND harness_checkpoint_heads.base_checkpoint_id = excluded.base_checkpoint_id
             THEN harness_checkpoint_heads.base_layout ELSE excluded.base_layout END`,
      ),
      deleteHead: db.prepare('DELETE FROM harness_checkpoint_heads WHERE session_id = ? AND namespace = ?'),
      deleteSessionHeads: db.prepare('DELETE FROM harness_checkpoint_heads WHERE session_id = ?'),
      allMeta: db.prepare(
        `SELECT ${META_COLUMNS}, length(CAST(channels AS BLOB)) AS bytes FROM harness_checkpoints
         WHERE session_id = ? AND namespace = ? ORDER BY seq`,
      ),
      maxSeq: db
        .prepare('SELECT MAX(seq) FROM harness_checkpoints WHERE session_id = ? AND namespace = ?')
        .pluck(),
      rewrite: db.prepare(
        `UPDATE harness_checkpoints SET storage = 'full', base_distance = 0, channels = ?
         WHERE session_id = ? AND checkpoint_id = ?`,
      ),
      delete: db.prepare('DELETE FROM harness_checkpoints WHERE session_id = ? AND checkpoint_id = ?'),
      deleteWrites: db.prepare(
        'DELETE FROM harness_checkpoint_writes WHERE session_id = ? AND checkpoint_id = ?',
      ),
      pin: db.prepare('UPDATE harness_checkpoints SET pinned = ? WHERE session_id = ? AND checkpoint_id = ?'),
      putWrite: db.prepare(
        `INSERT INTO harness_checkpoint_writes (session_id, checkpoint_id, task_id, idx, channel, value)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, checkpoint_id, task_id, idx) DO NOTHING`,
      ),
      pending: db.prepare(
        `SELECT task_id, idx, channel, value FROM harness_checkpoint_writes
         WHERE session_id = ? AND checkpoint_id = ? ORDER BY seq`,
      ),
      deleteSession: db.prepare('DELETE FROM harness_checkpoints WHERE session_id = ?'),
      deleteSessionWrites: db.prepare('DELETE FROM harness_checkpoint_writes WHERE session_id = ?'),
    };
  }

  async insert(row: NewRow, parentSeq: number | null, head?: HeadRow | null): Promise<InsertOutcome> {
    const s = this.statements;
    return retryBusy(() =>
      this.db
        .transaction((): InsertOutcome => {
          if (s.exists.get(row.sessionId, row.checkpointId)) return 'duplicate';
          if (row.parentCheckpointId !== null) {
            const parent = s.parent.get(row.sessionId, row.parentCheckpointId) as
              | { seq: number; namespace: string }
              | undefined;
            if (!parent || parent.seq !== parentSeq || parent.namespace !== row.namespace)
              return 'missing_parent';
          }
          const info = s.insert.run({ ...row, pinned: row.pinned ? 1 : 0 });
          if (head) {
            s.putHead.run(
              row.sessionId,
              row.namespace,
              row.checkpointId,
              head.baseCheckpointId,
              head.sinceBase,
              head.baseLayout ?? null,
            );
          } else if (head === null) s.deleteHead.run(row.sessionId, row.namespace);
          return Number(info.lastInsertRowid);
        })
        .immediate(),
    );
  }

  async head(sessionId: string, checkpointId: string): Promise<CheckpointRow | undefined> {
    const row = this.statements.head.get(sessionId, checkpointId) as SqlCheckpointRow | undefined;
    return row ? toCheckpointRow(row) : undefined;
  }

  async latest(sessionId: string, namespace: string) {
    const row = this.statements.latest.get(sessionId, namespace) as
      | { seq: number; checkpoint_id: string }
      | undefined;
    return row ? { seq: row.seq, checkpointId: row.checkpoint_id } : undefined;
  }

  async chain(sessionId: string, checkpointId: string): Promise<Chain> {
    return chainRows(
      this.statements.chain.all({ session: sessionId, checkpoint: checkpointId }) as SqlCheckpointRow[],
    );
  }

  async latestChain(sessionId: string, namespace: string): Promise<Chain> {
    const head = this.statements.materialized.get({ session: sessionId, namespace }) as
      | MaterializedHead
      | undefined;
    if (head && head.base_storage === 'full') return headChain(head);
    return chainRows(
      this.statements.latestChain.all({ session: sessionId, namespace }) as SqlCheckpointRow[],
    );
  }

  async list(query: RowListQuery): Promise<RowMeta[]> {
    const where = ['session_id = ?'];
    const params: unknown[] = [query.sessionId];
    const add = (clause: string, value: unknown) => {
      where.push(clause);
      params.push(value);
    };
    if (query.namespace !== undefined) add('namespace = ?', query.namespace);
    if (query.stageId !== undefined) add('stage_id = ?', query.stageId);
    if (query.pinned !== undefined) add('pinned = ?', query.pinned ? 1 : 0);
    if (query.beforeSeq !== undefined) add('seq < ?', query.beforeSeq);
    params.push(query.limit);
    const sql = `SELECT ${META_COLUMNS}, length(CAST(channels AS BLOB)) AS bytes FROM harness_checkpoints
      WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...params) as SqlCheckpointRow[]).map(toRowMeta);
  }

  async allMeta(sessionId: string, namespace: string): Promise<RowMeta[]> {
    return (this.statements.allMeta.all(sessionId, namespace) as SqlCheckpointRow[]).map(toRowMeta);
  }

  async applyPrune(
    sessionId: string,
    namespace: string,
    maxSeq: number,
    deleteIds: readonly string[],
    rewrites: readonly { checkpointId: string; payload: string }[],
  ): Promise<PruneOutcome> {
    const s = this.statements;
    return retryBusy(() =>
      this.db
        .transaction((): PruneOutcome => {
          if (Number(s.maxSeq.get(sessionId, namespace)) !== maxSeq) return 'changed';
          for (const { checkpointId, payload } of rewrites) s.rewrite.run(payload, sessionId, checkpointId);
          s.deleteHead.run(sessionId, namespace);
          for (const id of deleteIds) {
            s.delete.run(sessionId, id);
            s.deleteWrites.run(sessionId, id);
          }
          return 'applied';
        })
        .immediate(),
    );
  }

  async setPinned(sessionId: string, checkpointId: string, pinned: boolean): Promise<boolean> {
    return retryBusy(() => this.statements.pin.run(pinned ? 1 : 0, sessionId, checkpointId).changes > 0);
  }

  async putWrites(
    sessionId: string,
    checkpointId: string,
    writes: readonly { taskId: string; idx: number; channel: string; value: string }[],
  ): Promise<boolean> {
    const s = this.statements;
    return retryBusy(() =>
      this.db
        .transaction(() => {
          if (!s.exists.get(sessionId, checkpointId)) return false;
          for (const w of writes)
            s.putWrite.run(sessionId, checkpointId, w.taskId, w.idx, w.channel, w.value);
          return true;
        })
        .immediate(),
    );
  }

  async pendingWrites(sessionId: string, checkpointId: string) {
    const rows = this.statements.pending.all(sessionId, checkpointId) as {
      task_id: string;
      idx: number;
      channel: string;
      value: string;
    }[];
    return rows.map((r) => ({ taskId: r.task_id, idx: r.idx, channel: r.channel, value: r.value }));
  }

  async deleteSession(sessionId: string): Promise<void> {
    const s = this.statements;
    await retryBusy(() =>
      this.db
        .transaction(() => {
          s.deleteSession.run(sessionId);
          s.deleteSessionWrites.run(sessionId);
          s.deleteSessionHeads.run(sessionId);
        })
        .immediate(),
    );
  }

  async close(): Promise<void> {
    if (this.owned && this.db.open) this.db.close();
  }
}
