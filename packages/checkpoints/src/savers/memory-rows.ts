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

interface WriteRow {
  seq: number;
  sessionId: string;
  checkpointId: string;
  taskId: string;
  idx: number;
  channel: string;
  value: string;
}

function meta(row: CheckpointRow): RowMeta {
  const { payload, ...rest } = row;
  return { ...rest, bytes: Buffer.byteLength(payload) };
}

/** Rows in process memory, with the same atomicity the SQL backends give (every method is one step). */
export class MemoryRows implements CheckpointRowStore {
  private seq = 0;
  private readonly rows = new Map<string, CheckpointRow>();
  private writes: WriteRow[] = [];

  private key(sessionId: string, checkpointId: string): string {
    return `${sessionId}\u0000${checkpointId}`;
  }

  async insert(row: NewRow, parentSeq: number | null): Promise<InsertOutcome> {
    if (this.rows.has(this.key(row.sessionId, row.checkpointId))) return 'duplicate';
    if (row.parentCheckpointId !== null) {
      const parent = this.rows.get(this.key(row.sessionId, row.parentCheckpointId));
      if (!parent || parent.seq !== parentSeq || parent.namespace !== row.namespace) return 'missing_parent';
    }
    const stored: CheckpointRow = { ...row, seq: ++this.seq };
    this.rows.set(this.key(row.sessionId, row.checkpointId), stored);
    return stored.seq;
  }

  async head(sessionId: string, checkpointId: string): Promise<CheckpointRow | undefined> {
    const row = this.rows.get(this.key(sessionId, checkpointId));
    return row ? { ...row } : undefined;
  }

  async latest(sessionId: string, namespace: string) {
    let best: CheckpointRow | undefined;
    for (const row of this.rows.values()) {
      if (row.sessionId === sessionId && row.namespace === namespace && (!best || row.seq > best.seq))
        best = row;
    }
    return best ? { seq: best.seq, checkpointId: best.checkpointId } : undefined;
  }

  async latestChain(sessionId: string, namespace: string): Promise<Chain> {
    const head = await this.latest(sessionId, namespace);
    return head ? this.chain(sessionId, head.checkpointId) : [];
  }

  async chain(sessionId: string, checkpointId: string): Promise<Chain> {
    const out: CheckpointRow[] = [];
    let row = this.rows.get(this.key(sessionId, checkpointId));
    while (row) {
      out.push({ ...row });
      if (row.storage === 'full' || row.parentCheckpointId === null) break;
      row = this.rows.get(this.key(sessionId, row.parentCheckpointId));
    }
    return out as Chain;
  }

  async list(query: RowListQuery): Promise<RowMeta[]> {
    return [...this.rows.values()]
      .filter(
        (r) =>
          r.sessionId === query.sessionId &&
          (query.namespace === undefined || r.namespace === query.namespace) &&
          (query.stageId === undefined || r.stageId === query.stageId) &&
          (query.pinned === undefined || r.pinned === query.pinned) &&
          (query.beforeSeq === undefined || r.seq < query.beforeSeq),
      )
      .sort((a, b) => b.seq - a.seq)
      .slice(0, query.limit)
      .map(meta);
  }

  async allMeta(sessionId: string, namespace: string): Promise<RowMeta[]> {
    return [...this.rows.values()]
      .filter((r) => r.sessionId === sessionId && r.namespace === namespace)
      .sort((a, b) => a.seq - b.seq)
      .map(meta);
  }

  async applyPrune(
    sessionId: string,
    namespace: string,
    maxSeq: number,
    deleteIds: readonly string[],
    rewrites: readonly { checkpointId: string; payload: string }[],
  ): Promise<PruneOutcome> {
    for (const row of this.rows.values()) {
      if (row.sessionId === sessionId && row.namespace === namespace && row.seq > maxSeq) return 'changed';
    }
    for (const { checkpointId, payload } of rewrites) {
      const row = this.rows.get(this.key(sessionId, checkpointId));
      if (row)
        this.rows.set(this.key(sessionId, checkpointId), {
          ...row,
          storage: 'full',
          baseDistance: 0,
          payload,
        });
    }
    const gone = new Set(deleteIds);
    for (const id of deleteIds) this.rows.delete(this.key(sessionId, id));
    this.writes = this.writes.filter((w) => w.sessionId !== sessionId || !gone.has(w.checkpointId));
    return 'applied';
  }

  async setPinned(sessionId: string, checkpointId: string, pinned: boolean): Promise<boolean> {
    const row = this.rows.get(this.key(sessionId, checkpointId));
    if (!row) return false;
    this.rows.set(this.key(sessionId, checkpointId), { ...row, pinned });
    return true;
  }

  async putWrites(
    sessionId: string,
    checkpointId: string,
    writes: readonly { taskId: string; idx: number; channel: string; value: string }[],
  ): Promise<boolean> {
    if (!this.rows.has(this.key(sessionId, checkpointId))) return false;
    for (const write of writes) {
      const exists = this.writes.some(
        (w) =>
          w.sessionId === sessionId &&
          w.checkpointId === checkpointId &&
          w.taskId === write.taskId &&
          w.idx === write.idx,
      );
      if (!exists) this.writes.push({ ...write, sessionId, checkpointId, seq: ++this.seq });
    }
    return true;
  }

  async pendingWrites(sessionId: string, checkpointId: string) {
    return this.writes
      .filter((w) => w.sessionId === sessionId && w.checkpointId === checkpointId)
      .map(({ taskId, idx, channel, value }) => ({ taskId, idx, channel, value }));
  }

  async deleteSession(sessionId: string): Promise<void> {
    for (const [key, row] of this.rows) if (row.sessionId === sessionId) this.rows.delete(key);
    this.writes = this.writes.filter((w) => w.sessionId !== sessionId);
  }

  async close(): Promise<void> {}
}
