import type { DeliveryRow } from '@agentlane/contract';
import type { AppendOptions, AppendResult, EventStore, EventWrite } from '../../roles/events.js';
import { StoreError } from '../../store.js';
import {
  appendEventsJob,
  latestEventPageRows,
  latestEventRows,
  readEventRows,
  validateWrites,
} from '../events.js';
import type { WriteQueue } from '../write-queue.js';
import { one, type SqlContext } from './context.js';

/** Canonical events in SQL: appended through the group commit, read by deliverySeq. */
export class SqlEvents implements EventStore {
  constructor(
    private readonly ctx: SqlContext,
    private readonly queue: WriteQueue,
  ) {}

  appendEvents(
    threadId: string,
    writes: EventWrite[],
    provisional: boolean,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    try {
      validateWrites(threadId, writes);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.queue.enqueue(
      appendEventsJob(this.ctx.db, threadId, writes, provisional, () => this.ctx.now(), options.liveRunId),
    );
  }

  readEvents(threadId: string, afterDeliverySeq: number, limit: number): Promise<DeliveryRow[]> {
    if (!Number.isInteger(limit) || limit < 1)
      return Promise.reject(new StoreError('invalid', 'limit must be ≥ 1'));
    return this.ctx.db.read((c) => readEventRows(c, threadId, afterDeliverySeq, limit));
  }

  async headDeliverySeq(threadId: string): Promise<number> {
    const row = await this.ctx.db.read((c) =>
      one(c, 'SELECT head FROM thread_heads WHERE thread_id = ?', [threadId]),
    );
    return row ? Number(row.head) : 0;
  }

  latestEvents(query: { threadId: string; runId?: string }): Promise<DeliveryRow[]> {
    return this.ctx.db.read((c) => latestEventRows(c, query.threadId, query.runId));
  }

  latestEventsPage(
    query: { threadId: string; runId: string },
    afterDeliverySeq: number,
    limit: number,
  ): Promise<DeliveryRow[]> {
    if (!Number.isInteger(limit) || limit < 1)
      return Promise.reject(new StoreError('invalid', 'limit must be ≥ 1'));
    return this.ctx.db.read((c) =>
      latestEventPageRows(c, query.threadId, query.runId, afterDeliverySeq, limit),
    );
  }
}
