import type { ListThreadsQuery, Page, ThreadRecord, ThreadStore } from '../../roles/threads.js';
import { StoreError } from '../../store.js';
import { toThread } from '../rows.js';
import type { SqlConn, SqlParam, SqlRow } from '../sql-conn.js';
import { one, type SqlContext } from './context.js';

/** Threads in SQL; deleting one cascades to everything under it. */
export class SqlThreads implements ThreadStore {
  constructor(private readonly ctx: SqlContext) {}

  async createThread(thread: Omit<ThreadRecord, 'createdAt' | 'updatedAt'>): Promise<ThreadRecord> {
    if (typeof thread.threadId !== 'string' || thread.threadId === '')
      throw new StoreError('invalid', 'threadId is required');
    if (typeof thread.engine !== 'string' || thread.engine === '')
      throw new StoreError('invalid', 'engine is required');
    const now = this.ctx.now();
    const record: ThreadRecord = {
      ...thread,
      metadata: thread.metadata ?? {},
      createdAt: now,
      updatedAt: now,
    };
    return this.ctx.tx(async (c) => {
      if (await one(c, 'SELECT 1 AS x FROM threads WHERE thread_id = ?', [thread.threadId])) {
        throw new StoreError('conflict', `thread ${thread.threadId} already exists`);
      }
      await c.run(
        'INSERT INTO threads (thread_id, engine, title, work_dir, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [
          record.threadId,
          record.engine,
          record.title,
          record.workDir,
          JSON.stringify(record.metadata),
          now,
          now,
        ],
      );
      await c.run('INSERT INTO thread_heads (thread_id, head) VALUES (?, 0)', [record.threadId]);
      return record;
    });
  }

  async getThread(threadId: string): Promise<ThreadRecord | null> {
    const row = await this.ctx.db.read((c) =>
      one(c, 'SELECT * FROM threads WHERE thread_id = ?', [threadId]),
    );
    return row ? toThread(row) : null;
  }

  async updateThread(
    threadId: string,
    patch: Partial<Pick<ThreadRecord, 'title' | 'metadata'>>,
  ): Promise<ThreadRecord> {
    return this.ctx.tx(async (c) => {
      const row = await one(c, `SELECT * FROM threads WHERE thread_id = ?${this.ctx.db.forUpdate}`, [
        threadId,
      ]);
      if (!row) throw new StoreError('not_found', `thread ${threadId} not found`);
      const current = toThread(row);
      const next: ThreadRecord = {
        ...current,
        title: patch.title !== undefined ? patch.title : current.title,
        metadata: patch.metadata !== undefined ? patch.metadata : current.metadata,
        updatedAt: this.ctx.now(),
      };
      await c.run('UPDATE threads SET title = ?, metadata = ?, updated_at = ? WHERE thread_id = ?', [
        next.title,
        JSON.stringify(next.metadata),
        next.updatedAt,
        threadId,
      ]);
      return next;
    });
  }

  /**
   * Deletes the thread and everything under it (cascade); deleting a missing thread is a no-op. A thread with
   * a queued or running run is refused (`conflict`, detail `active_run`): that run would go on into nothing.
   */
  async deleteThread(threadId: string): Promise<void> {
    await this.ctx.tx(async (c) => {
      // Frames and canonical rows are deleted here, not by a cascade (on PostgreSQL they have no foreign key,
      // see its migrations). Appends lock the head row, then lane rows: locked in that order first, an append
      // either committed before (its rows are deleted below) or runs after and finds no thread or run.
      const { forUpdate } = this.ctx.db;
      await c.all(`SELECT head FROM thread_heads WHERE thread_id = ?${forUpdate}`, [threadId]);
      // Then the thread's row, which run.create holds (FOR SHARE) while it adds a run: a run.create either
      // committed before (its run is seen below and refuses the delete) or runs after and finds no thread.
      // After the head row, as an answer's transaction takes them (head, then the thread's key by its insert).
      await c.all(`SELECT thread_id FROM threads WHERE thread_id = ?${forUpdate}`, [threadId]);
      await refuseActiveRuns(c, threadId);
      await c.all(`SELECT run_id FROM source_lanes WHERE thread_id = ? ORDER BY run_id${forUpdate}`, [
        threadId,
      ]);
      // The append-only triggers let canonical rows go only for a thread named here, inside this transaction.
      await c.run('INSERT INTO thread_deletions (thread_id) VALUES (?)', [threadId]);
      await c.run('DELETE FROM canonical_events WHERE thread_id = ?', [threadId]);
      await c.run('DELETE FROM thread_deletions WHERE thread_id = ?', [threadId]);
      // The lanes go first: the frames' delete trigger then counts no rewrite on each (its lane is gone).
      await c.run('DELETE FROM source_lanes WHERE thread_id = ?', [threadId]);
      await c.run('DELETE FROM source_frames WHERE run_id IN (SELECT run_id FROM runs WHERE thread_id = ?)', [
        threadId,
      ]);
      await c.run('DELETE FROM threads WHERE thread_id = ?', [threadId]);
      await c.run('DELETE FROM sync_changes WHERE session_id = ?', [threadId]);
      await c.run('DELETE FROM sync_heads WHERE session_id = ?', [threadId]);
      await c.run('DELETE FROM sync_key_heads WHERE session_id = ?', [threadId]);
    });
  }

  async listThreads(query: ListThreadsQuery): Promise<Page<ThreadRecord>> {
    const limit = query.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new StoreError('invalid', 'limit must be an integer between 1 and 1000');
    const where: string[] = [];
    const params: SqlParam[] = [];
    if (query.threadIds !== undefined) {
      // A scoped caller's page is cut from its own threads: filtering after paging would leak other ids.
      if (query.threadIds.length === 0) return { items: [], nextCursor: null };
      where.push(`thread_id IN (${query.threadIds.map(() => '?').join(', ')})`);
      params.push(...query.threadIds);
    }
    if (query.engine !== undefined) {
      where.push('engine = ?');
      params.push(query.engine);
    }
    if (query.search) {
      where.push(`${this.ctx.db.lower}(title) LIKE ? ESCAPE '\\'`);
      params.push(`%${query.search.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    }
    if (query.cursor) {
      const [createdAt, threadId] = decodeCursor(query.cursor);
      where.push('(created_at < ? OR (created_at = ? AND thread_id < ?))');
      params.push(createdAt, createdAt, threadId);
    }
    params.push(limit + 1);
    const rows = await this.ctx.db.read((c) =>
      c.all<SqlRow>(
        `SELECT * FROM threads${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, thread_id DESC LIMIT ?`,
        params,
      ),
    );
    const items = rows.slice(0, limit).map(toThread);
    const last = items[items.length - 1];
    return {
      items,
      nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.threadId) : null,
    };
  }
}

/** A run still queued or running would go on writing into a thread that is gone: it is cancelled first. */
async function refuseActiveRuns(c: SqlConn, threadId: string): Promise<void> {
  const active = await one(
    c,
    "SELECT run_id, status FROM runs WHERE thread_id = ? AND status IN ('queued', 'running') ORDER BY created_at, run_id LIMIT 1",
    [threadId],
  );
  if (active)
    throw new StoreError(
      'conflict',
      `run ${String(active.run_id)} of this session is ${String(active.status)}: cancel it, then delete the session`,
      'active_run',
    );
}

function encodeCursor(createdAt: string, threadId: string): string {
  return Buffer.from(JSON.stringify([createdAt, threadId])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return [value[0], value[1]];
    }
  } catch {
    // fall through to the error below
  }
  throw new StoreError('invalid', 'cursor is not a cursor this store issued');
}
