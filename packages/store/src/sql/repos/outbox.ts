import { storableText } from '@agentlane/sql';
import type { CompletionRecord, OutboxEntry, OutboxStore } from '../../roles/outbox.js';
import type { SourceWatermark } from '../../roles/source-lane.js';
import { StoreError } from '../../store.js';
import { toCompletion, toOutbox } from '../rows.js';
import { computeWatermark } from '../source-lane.js';
import type { SqlRow } from '../sql-conn.js';
import { one, type SqlContext } from './context.js';

/** The canonicalization outbox and completion records in SQL. */
export class SqlOutbox implements OutboxStore {
  constructor(private readonly ctx: SqlContext) {}

  async leaseOutbox(workerId: string, limit: number, leaseMs: number): Promise<OutboxEntry[]> {
    return this.ctx.tx(async (c) => {
      const now = this.ctx.now();
      const rows = await c.all<SqlRow>(
        `SELECT * FROM canonicalization_outbox WHERE lease_until IS NULL OR lease_until < ? ORDER BY enqueued_at, run_id LIMIT ?${this.ctx.db.skipLocked}`,
        [now, limit],
      );
      const leaseUntil = new Date(Date.now() + leaseMs).toISOString();
      const entries: OutboxEntry[] = [];
      for (const row of rows) {
        await c.run(
          'UPDATE canonicalization_outbox SET leased_by = ?, lease_until = ?, attempts = attempts + 1 WHERE run_id = ?',
          [workerId, leaseUntil, String(row.run_id)],
        );
        const entry = toOutbox(row);
        entries.push({ ...entry, attempts: entry.attempts + 1 });
      }
      return entries;
    });
  }

  /**
   * Writes the completion record only if the lane is sealed and the watermark re-computed now equals the one
   * the translation was made from; otherwise null, and the outbox entry stays for a retry.
   */
  async completeCanonicalization(runId: string, expected: SourceWatermark): Promise<CompletionRecord | null> {
    return this.ctx.tx(async (c) => {
      const run = await one(c, 'SELECT status, thread_id FROM runs WHERE run_id = ?', [runId]);
      if (!run) throw new StoreError('not_found', `run ${runId} not found`);
      const done = await one(c, 'SELECT * FROM canonicalization_completions WHERE run_id = ?', [runId]);
      if (done) return toCompletion(done);
      if (run.status !== 'completed' && run.status !== 'failed') {
        throw new StoreError(
          'conflict',
          `run ${runId} is ${String(run.status)}: settle it before completing`,
        );
      }
      // Lock the lane so no frame lands between the re-read and the commit.
      await c.all(`SELECT run_id FROM source_lanes WHERE run_id = ?${this.ctx.db.forUpdate}`, [runId]);
      const current = await computeWatermark(c, runId);
      if (
        !current.sealed ||
        current.maxNativeSeq !== expected.maxNativeSeq ||
        current.signature !== expected.signature
      ) {
        return null;
      }
      const threadId = String(run.thread_id);
      const last = await one(
        c,
        'SELECT COALESCE(MAX(delivery_seq), 0) AS last FROM canonical_events WHERE thread_id = ? AND run_id = ?',
        [threadId, runId],
      );
      const record: CompletionRecord = {
        runId,
        threadId,
        lastDeliverySeq: Number(last?.last ?? 0),
        watermark: current,
        completedAt: this.ctx.now(),
      };
      await c.run(
        'INSERT INTO canonicalization_completions (run_id, thread_id, last_delivery_seq, max_native_seq, signature, completed_at) VALUES (?, ?, ?, ?, ?, ?)',
        [
          runId,
          threadId,
          record.lastDeliverySeq,
          current.maxNativeSeq,
          current.signature,
          record.completedAt,
        ],
      );
      await c.run('DELETE FROM canonicalization_outbox WHERE run_id = ?', [runId]);
      await c.run('UPDATE runs SET canonicalized_at = ? WHERE run_id = ?', [record.completedAt, runId]);
      return record;
    });
  }

  /**
   * The error is a canonicalization failure's text, which may quote a frame's content (a U+0000 or a lone
   * surrogate an engine sent): it is stored as storableText, or PostgreSQL refuses the write and the lease
   * is never released.
   */
  async releaseOutbox(runId: string, error: string): Promise<void> {
    await this.ctx.tx((c) =>
      c.run(
        'UPDATE canonicalization_outbox SET leased_by = NULL, lease_until = NULL, last_error = ? WHERE run_id = ?',
        [storableText(error), runId],
      ),
    );
  }

  async getCompletion(runId: string): Promise<CompletionRecord | null> {
    const row = await this.ctx.db.read((c) =>
      one(c, 'SELECT * FROM canonicalization_completions WHERE run_id = ?', [runId]),
    );
    return row ? toCompletion(row) : null;
  }

  async listCompletions(threadId: string): Promise<CompletionRecord[]> {
    const rows = await this.ctx.db.read((c) =>
      c.all<SqlRow>(
        'SELECT * FROM canonicalization_completions WHERE thread_id = ? ORDER BY completed_at, run_id',
        [threadId],
      ),
    );
    return rows.map(toCompletion);
  }
}
