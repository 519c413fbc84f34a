import { pgTransaction, quoteIdent, retryTransient } from '@agentlane/sql';
import type pg from 'pg';
import type {
  Chain,
  CheckpointRow,
  CheckpointRowStore,
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
 * PostgreSQL rows. A put is one statement: the parent row is locked FOR KEY SHARE in the same statement,
 * so a concurrent prune either sees the new child (and retries) or removes the parent first (refused put).
 */
export class PgRows implements CheckpointRowStore {
  private readonly t: string;
  private readonly w: string;
  private readonly anchor: string;

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
    /** Gives the pool back (the process's shared pool for this database), or nothing for a caller's pool. */
    private readonly release: () => Promise<void>,
  ) {
    this.t = `${quoteIdent(schema)}.harness_checkpoints`;
    this.w = `${quoteIdent(schema)}.harness_checkpoint_writes`;
    this.anchor = `SELECT checkpoint_id, parent_checkpoint_id, storage FROM ${this.t}`;
  }

  async insert(row: NewRow, parentSeq: number | null): Promise<InsertOutcome> {
    const result = await this.query<{ seq: string }>(
      `WITH parent AS (
         SELECT seq FROM ${this.t}
         WHERE session_id = $1 AND checkpoint_id = $4 AND seq = $12 AND namespace = $3 FOR KEY SHARE
       )
       INSERT INTO ${this.t} (session_id, checkpoint_id, namespace, parent_checkpoint_id, stage_id, created_at,
         schema_version, storage, base_distance, channels, pinned)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11
       WHERE $4::text IS NULL OR EXISTS (SELECT 1 FROM parent)
       ON CONFLICT (session_id, checkpoint_id) DO NOTHING
       RETURNING seq`,
      [
        row.sessionId,
        row.checkpointId,
        row.namespace,
        row.parentCheckpointId,
        row.stageId,
        row.createdAt,
        row.schemaVersion,
        row.storage,
        row.baseDistance,
        row.payload,
        row.pinned,
        parentSeq,
      ],
    );
    const inserted = result.rows[0];
    if (inserted) return Number(inserted.seq);
    const exists = await this.query(`SELECT 1 FROM ${this.t} WHERE session_id = $1 AND checkpoint_id = $2`, [
      row.sessionId,
      row.checkpointId,
    ]);
    return exists.rowCount ? 'duplicate' : 'missing_parent';
  }

  async head(sessionId: string, checkpointId: string): Promise<CheckpointRow | undefined> {
    const r = await this.query<SqlCheckpointRow>(
      `SELECT * FROM ${this.t} WHERE session_id = $1 AND checkpoint_id = $2`,
      [sessionId, checkpointId],
    );
    return r.rows[0] ? toCheckpointRow(r.rows[0]) : undefined;
  }

  async latest(sessionId: string, namespace: string) {
    const r = await this.query<{ seq: string; checkpoint_id: string }>(
      `SELECT seq, checkpoint_id FROM ${this.t} WHERE session_id = $1 AND namespace = $2 ORDER BY seq DESC LIMIT 1`,
      [sessionId, namespace],
    );
    const row = r.rows[0];
    return row ? { seq: Number(row.seq), checkpointId: row.checkpoint_id } : undefined;
  }

  async chain(sessionId: string, checkpointId: string): Promise<Chain> {
    const r = await this.query<SqlCheckpointRow>(
      chainSql('postgres', this.t, `${this.anchor} WHERE session_id = $1 AND checkpoint_id = $2`, '$1'),
      [sessionId, checkpointId],
    );
    return chainRows(r.rows);
  }

  async latestChain(sessionId: string, namespace: string): Promise<Chain> {
    const r = await this.query<SqlCheckpointRow>(
      chainSql(
        'postgres',
        this.t,
        `${this.anchor} WHERE session_id = $1 AND namespace = $2 ORDER BY seq DESC LIMIT 1`,
        '$1',
      ),
      [sessionId, namespace],
    );
    return chainRows(r.rows);
  }

  async list(query: RowListQuery): Promise<RowMeta[]> {
    const params: unknown[] = [query.sessionId];
    const where = ['session_id = $1'];
    const add = (clause: string, value: unknown) => {
      params.push(value);
      where.push(clause.replace('?', `$${params.length}`));
    };
    if (query.namespace !== undefined) add('namespace = ?', query.namespace);
    if (query.stageId !== undefined) add('stage_id = ?', query.stageId);
    if (query.pinned !== undefined) add('pinned = ?', query.pinned);
    if (query.beforeSeq !== undefined) add('seq < ?', query.beforeSeq);
    params.push(query.limit);
    const r = await this.query<SqlCheckpointRow>(
      `SELECT ${META_COLUMNS}, octet_length(channels) AS bytes FROM ${this.t}
       WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${params.length}`,
      params,
    );
    return r.rows.map(toRowMeta);
  }

  async allMeta(sessionId: string, namespace: string): Promise<RowMeta[]> {
    const r = await this.query<SqlCheckpointRow>(
      `SELECT ${META_COLUMNS}, octet_length(channels) AS bytes FROM ${this.t}
       WHERE session_id = $1 AND namespace = $2 ORDER BY seq`,
      [sessionId, namespace],
    );
    return r.rows.map(toRowMeta);
  }

  async applyPrune(
    sessionId: string,
    namespace: string,
    maxSeq: number,
    deleteIds: readonly string[],
    rewrites: readonly { checkpointId: string; payload: string }[],
  ): Promise<PruneOutcome> {
    return pgTransaction(this.pool, async (client) => {
      // Lock the namespace's rows: a put that wants one of them as parent waits for us, then sees it gone.
      const locked = await client.query<{ seq: string }>(
        `SELECT seq FROM ${this.t} WHERE session_id = $1 AND namespace = $2 ORDER BY seq FOR UPDATE`,
        [sessionId, namespace],
      );
      const newest = locked.rows[locked.rows.length - 1];
      if (!newest || Number(newest.seq) !== maxSeq) return 'changed';
      for (const { checkpointId, payload } of rewrites) {
        await client.query(
          `UPDATE ${this.t} SET storage = 'full', base_distance = 0, channels = $3 WHERE session_id = $1 AND checkpoint_id = $2`,
          [sessionId, checkpointId, payload],
        );
      }
      if (deleteIds.length > 0) {
        await client.query(
          `DELETE FROM ${this.t} WHERE session_id = $1 AND checkpoint_id = ANY($2::text[])`,
          [sessionId, deleteIds],
        );
        await client.query(
          `DELETE FROM ${this.w} WHERE session_id = $1 AND checkpoint_id = ANY($2::text[])`,
          [sessionId, deleteIds],
        );
      }
      return 'applied';
    });
  }

  async setPinned(sessionId: string, checkpointId: string, pinned: boolean): Promise<boolean> {
    const r = await this.query(
      `UPDATE ${this.t} SET pinned = $3 WHERE session_id = $1 AND checkpoint_id = $2`,
      [sessionId, checkpointId, pinned],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async putWrites(
    sessionId: string,
    checkpointId: string,
    writes: readonly { taskId: string; idx: number; channel: string; value: string }[],
  ): Promise<boolean> {
    return pgTransaction(this.pool, async (client) => {
      const exists = await client.query(
        `SELECT 1 FROM ${this.t} WHERE session_id = $1 AND checkpoint_id = $2 FOR KEY SHARE`,
        [sessionId, checkpointId],
      );
      if (!exists.rowCount) return false;
      for (const w of writes) {
        await client.query(
          `INSERT INTO ${this.w} (session_id, checkpoint_id, task_id, idx, channel, value) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (session_id, checkpoint_id, task_id, idx) DO NOTHING`,
          [sessionId, checkpointId, w.taskId, w.idx, w.channel, w.value],
        );
      }
      return true;
    });
  }

  async pendingWrites(sessionId: string, checkpointId: string) {
    const r = await this.query<{ task_id: string; idx: number; channel: string; value: string }>(
      `SELECT task_id, idx, channel, value FROM ${this.w} WHERE session_id = $1 AND checkpoint_id = $2 ORDER BY seq`,
      [sessionId, checkpointId],
    );
    return r.rows.map((row) => ({
      taskId: row.task_id,
      idx: row.idx,
      channel: row.channel,
      value: row.value,
    }));
  }

  async deleteSession(sessionId: string): Promise<void> {
    await pgTransaction(this.pool, async (client) => {
      await client.query(`DELETE FROM ${this.t} WHERE session_id = $1`, [sessionId]);
      await client.query(`DELETE FROM ${this.w} WHERE session_id = $1`, [sessionId]);
    });
  }

  async close(): Promise<void> {
    await this.release();
  }

  /**
   * One statement, repeated while the database is unreachable: reads, and writes that are idempotent (a put
   * is ON CONFLICT DO NOTHING, a pin sets a value).
   */
  private query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params: unknown[],
  ): Promise<pg.QueryResult<R>> {
    return retryTransient(() => this.pool.query<R>(sql, params));
  }
}
