import { type HarnessSessionRecord, neverBound, type SessionStore } from '../../roles/sessions.js';
import { StoreError } from '../../store.js';
import { toSession } from '../rows.js';
import { sortedKeysJson } from '../sorted-keys-json.js';
import type { SqlParam } from '../sql-conn.js';
import { one, type SqlContext } from './context.js';

/** Harness sessions in SQL: one row per thread, its generation counting binding changes. */
export class SqlSessions implements SessionStore {
  constructor(private readonly ctx: SqlContext) {}

  async getSession(threadId: string): Promise<HarnessSessionRecord | null> {
    const row = await this.ctx.db.read((c) =>
      one(c, 'SELECT * FROM harness_sessions WHERE thread_id = ?', [threadId]),
    );
    return row ? toSession(row) : null;
  }

  async bindSession(
    record: Omit<HarnessSessionRecord, 'generation' | 'updatedAt'>,
  ): Promise<HarnessSessionRecord> {
    return this.ctx.tx(async (c) => {
      if (!(await one(c, 'SELECT 1 AS x FROM threads WHERE thread_id = ?', [record.threadId]))) {
        throw new StoreError('not_found', `thread ${record.threadId} not found`);
      }
      const row = await one(c, `SELECT * FROM harness_sessions WHERE thread_id = ?${this.ctx.db.forUpdate}`, [
        record.threadId,
      ]);
      const stored = row ? toSession(row) : null;
      // The row a session's creation writes before any engine ran (no native id, no binding): the first real
      // binding is generation 1, not a second generation of a session that never had a first.
      const current = stored && !neverBound(stored) ? stored : null;
      const bindingChanged =
        !current ||
        current.nativeSessionId !== record.nativeSessionId ||
        sortedKeysJson(current.runtimeBinding) !== sortedKeysJson(record.runtimeBinding);
      const next: HarnessSessionRecord = {
        ...record,
        generation: current ? current.generation + (bindingChanged ? 1 : 0) : 1,
        updatedAt: this.ctx.now(),
      };
      const values: SqlParam[] = [
        next.provider,
        next.engine,
        next.nativeSessionId,
        JSON.stringify(next.runtimeBinding),
        next.protocolVersion,
        JSON.stringify(next.capabilities),
        next.generation,
        next.updatedAt,
        next.threadId,
      ];
      if (stored) {
        await c.run(
          'UPDATE harness_sessions SET provider = ?, engine = ?, native_session_id = ?, runtime_binding = ?, protocol_version = ?, capabilities = ?, generation = ?, updated_at = ? WHERE thread_id = ?',
          values,
        );
      } else {
        await c.run(
          'INSERT INTO harness_sessions (provider, engine, native_session_id, runtime_binding, protocol_version, capabilities, generation, updated_at, thread_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
          values,
        );
      }
      return next;
    });
  }
}
