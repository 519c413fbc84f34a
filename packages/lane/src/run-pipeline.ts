import type { JsonValue } from '@agentlane/contract';
import type { NativeFrameRecord } from '@agentlane/engine-kit';
import { type Store, StoreError } from '@agentlane/store';
import type { PublishHub } from './hub';
import type { Materializer } from './offload';
import type { RunTranslation } from './run-translation';
import { errorMessage } from './run-translation';

export interface RunPipelineOptions {
  store: Store;
  hub: PublishHub;
  threadId: string;
  runId: string;
  translation: RunTranslation;
  materializer: Materializer;
  log?: (level: 'info' | 'warn' | 'error', message: string, detail?: unknown) => void;
}

/**
 * The live path of one run: frames an engine emits are appended to the source lane, then translated into
 * provisional rows, persisted, and only then published.
 *
 * Group commit: `emit` only queues; one flush at a time takes every queued frame into one appendFrames
 * transaction and one appendEvents transaction, so frames that arrive while a transaction is being written
 * go into the next one. Source frames are the truth: if live translation or its write fails, the final
 * pass over the sealed source repairs it.
 */
export class RunPipeline {
  private pending: { receivedAt: string; frame: JsonValue }[] = [];
  private flushing: Promise<void> | null = null;
  private failure: Error | null = null;
  framesStored = 0;
  rowsPublished = 0;

  constructor(private readonly o: RunPipelineOptions) {}

  emit(frame: JsonValue): void {
    this.pending.push({ receivedAt: new Date().toISOString(), frame });
    if (!this.flushing) this.flushing = this.flushLoop();
  }

  /** Resolves when every frame emitted so far is stored (and its live rows written); rejects if storing failed. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.failure) throw this.failure;
  }

  /** Set when frames could not be stored (the run must fail: the source lane is incomplete). */
  get error(): Error | null {
    return this.failure;
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        const records = await this.storeFrames(batch);
        if (records.length > 0) await this.translateAndPublish(records);
      }
    } finally {
      this.flushing = null;
    }
  }

  private async storeFrames(batch: { receivedAt: string; frame: JsonValue }[]): Promise<NativeFrameRecord[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        const stored = await this.o.store.appendFrames(this.o.runId, batch);
        this.framesStored += stored.length;
        return stored;
      } catch (err) {
        if (err instanceof StoreError && err.code === 'source_sealed') {
          // The store recorded the refused frames; they are late by definition and never translated.
          this.o.log?.('warn', `late frames refused for sealed run ${this.o.runId}`, { count: batch.length });
          return [];
        }
        if (attempt >= 3) {
          this.failure = new Error(`could not store native frames: ${errorMessage(err)}`);
          this.o.log?.('error', this.failure.message, { runId: this.o.runId });
          return [];
        }
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  private async translateAndPublish(records: NativeFrameRecord[]): Promise<void> {
    try {
      const events = [];
      const artifacts = [];
      for (const record of records) {
        const step = this.o.translation.push(record);
        events.push(...step.events);
        artifacts.push(...step.artifacts);
      }
      const writes = await this.o.materializer.toWrites({ events, artifacts });
      if (writes.length === 0) return;
      const result = await this.o.store.appendEvents(this.o.threadId, writes, true);
      this.rowsPublished += result.inserted.length;
      this.o.hub.publishRows(this.o.threadId, result.inserted);
    } catch (err) {
      this.o.log?.('warn', `live translation of run ${this.o.runId} failed; the final pass will repair it`, {
        error: errorMessage(err),
      });
    }
  }
}
