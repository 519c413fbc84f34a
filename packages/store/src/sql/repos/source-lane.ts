import type { JsonValue } from '@agentlane/contract';
import type {
  AppendFramesOptions,
  FramePage,
  RawFrameRecord,
  RawSidecarLimits,
  RefusedFrameRecord,
  SourceFrameInput,
  SourceFrameRecord,
  SourceLaneStore,
  SourceWatermark,
} from '../../roles/source-lane.js';
import { StoreError } from '../../store.js';
import { readRawRows } from '../raw-sidecar.js';
import {
  appendFramesJob,
  computeWatermark,
  readFrameRows,
  validateFramePage,
  validateFrames,
} from '../source-lane.js';
import type { SqlRow } from '../sql-conn.js';
import type { WriteQueue } from '../write-queue.js';
import { one, type SqlContext } from './context.js';

/** Source lanes in SQL: frames appended through the group commit, sealed, watermarked. */
export class SqlSourceLane implements SourceLaneStore {
  constructor(
    private readonly ctx: SqlContext,
    private readonly queue: WriteQueue,
    private readonly rawLimits: RawSidecarLimits,
  ) {}

  appendFrames(
    runId: string,
    frames: SourceFrameInput[],
    options: AppendFramesOptions = {},
  ): Promise<SourceFrameRecord[]> {
    try {
      validateFrames(runId, frames);
    } catch (error) {
      return Promise.reject(error);
    }
    if (frames.length === 0) return this.readLaneExists(runId).then(() => []);
    return this.queue.enqueue(
      appendFramesJob(
        this.ctx.db,
        runId,
        frames,
        () => this.ctx.now(),
        this.rawLimits,
        options.expectedFirstSeq,
      ),
    );
  }

  private async readLaneExists(runId: string): Promise<void> {
    const row = await this.ctx.db.read((c) =>
      one(c, 'SELECT 1 AS x FROM source_lanes WHERE run_id = ?', [runId]),
    );
    if (!row) throw new StoreError('not_found', `run ${runId} not found`);
  }

  readFrames(runId: string, afterNativeSeq = 0, page?: FramePage): Promise<SourceFrameRecord[]> {
    try {
      validateFramePage(page);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.ctx.db.read((c) => readFrameRows(c, runId, afterNativeSeq, page));
  }

  readRawFrames(runId: string, afterNativeSeq = 0): Promise<RawFrameRecord[]> {
    return this.ctx.db.read((c) => readRawRows(c, runId, afterNativeSeq));
  }

  async sealSource(runId: string): Promise<SourceWatermark> {
    return this.ctx.tx(async (c) => {
      const lane = await one(
        c,
        `SELECT sealed_at FROM source_lanes WHERE run_id = ?${this.ctx.db.forUpdate}`,
        [runId],
      );
      if (!lane) throw new StoreError('not_found', `run ${runId} not found`);
      if (lane.sealed_at === null) {
        await c.run('UPDATE source_lanes SET sealed_at = ? WHERE run_id = ?', [this.ctx.now(), runId]);
      }
      return computeWatermark(c, runId);
    });
  }

  readWatermark(runId: string): Promise<SourceWatermark> {
    return this.ctx.db.read((c) => computeWatermark(c, runId));
  }

  async listRefusedFrames(runId: string): Promise<RefusedFrameRecord[]> {
    const rows = await this.ctx.db.read((c) =>
      c.all<SqlRow>(
        'SELECT received_at, frame, reason FROM refused_frames WHERE run_id = ? ORDER BY refusal_id',
        [runId],
      ),
    );
    return rows.map((r) => ({
      receivedAt: String(r.received_at),
      frame: JSON.parse(String(r.frame)) as JsonValue,
      reason: String(r.reason),
    }));
  }
}
