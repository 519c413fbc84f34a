import type { AuditableCall, JsonValue } from '@agentlane/contract';
import { type NativeFrameRecord, type SecretRedactor, SplitFieldRedactor } from '@agentlane/engine-kit';
import {
  type EventStore,
  type EventWrite,
  type SourceFrameInput,
  type SourceLaneStore,
  StoreError,
} from '@agentlane/store';
import { guardFrame } from './frame-guard.js';
import type { PublishHub } from './hub.js';
import type { Materializer } from './offload.js';
import type { BuiltStep, RunTranslation } from './run-translation.js';
import { errorMessage } from './run-translation.js';
import { StringSharer } from './shared-strings/sharer.js';
import type { AuditSink } from './types.js';

/**
 * Frames one flush takes at most: a backlog is translated and committed in slices of ~50 ms of work, so one
 * busy run does not hold the event loop for long. Large enough that a slice's fsync is spread over
 * thousands of frames, and that the random (event_id) index pages a commit rewrites are rewritten seldom.
 * Fits one shared transaction of the store's group commit (frames + rows < 20,000).
 */
const MAX_FLUSH_FRAMES = 4096;

/**
 * Dropped frames of a run logged one by one; past them they are counted and close() logs the count. Each is
 * a warning event of its own (bounded there: warning-bound.ts): the log needs only enough to notice.
 */
const MAX_LOGGED_DROPS = 10;

export interface RunPipelineOptions {
  store: SourceLaneStore & EventStore;
  hub: PublishHub;
  threadId: string;
  runId: string;
  translation: RunTranslation;
  materializer: Materializer;
  audit?: AuditSink;
  log?: (level: 'info' | 'warn' | 'error', message: string, detail?: unknown) => void;
  /**
   * Keeps the server's secrets (engine API keys, tokens) out of every stored frame (JSON and raw bytes), and
   * so out of the events, audit rows and SSE derived from them, and out of the error texts this pipeline
   * makes (redactText does the same for the run's error). None: frames are stored as the engine sent them.
   */
  redactor?: SecretRedactor;
  /** Store a large string the run's frames repeat once (EngineDriver.shareLargeStrings). */
  shareLargeStrings?: boolean;
}

/**
 * The live path of one run: frames an engine emits are appended to the source lane, translated into
 * provisional rows, persisted, and only then published.
 *
 * Group commit: `emit` only queues; one flush at a time takes every queued frame. Once the run's next native
 * seq is known (after the first flush), a flush translates its frames first and issues appendFrames and
 * appendEvents in the same tick, so the store's group commit writes the frames and the rows derived from
 * them in ONE transaction (one fsync): a row never commits without its frame, and nothing is published
 * before the commit. Source frames are the truth: if live translation or its write fails (or a predicted
 * native seq turns out wrong), the final pass over the sealed source repairs it with revisions.
 */
export class RunPipeline {
  private pending: SourceFrameInput[] = [];
  private flushing: Promise<void> | null = null;
  private failure: Error | null = null;
  /** The native seq the next stored frame will get; null until a flush has learnt it from the store. */
  private nextNativeSeq: number | null = null;
  /** After close(), frames are still stored (so a late one is refused and recorded) but never translated. */
  private closed = false;
  /**
   * Live audit rows are written only while the live pass has translated exactly the frames the store kept, in
   * its order; after any doubt (seqs moved, frames refused or re-stored) the final pass writes them instead.
   */
  private auditTrusted = true;
  framesStored = 0;
  rowsPublished = 0;
  /** Flushes so far: framesStored / flushes is the mean group-commit batch. */
  flushes = 0;
  /** Frames of the engine dropped (frame-guard.ts): the first MAX_LOGGED_DROPS are logged one by one. */
  private dropped = 0;

  /** Live rows are refused once the run's lane is sealed (a run this process lost): see AppendOptions. */
  private readonly live: { liveRunId: string };
  /** The run's frames' text fields, each read after its earlier values (a credential split across frames). */
  private readonly fields: SplitFieldRedactor | undefined;
  /** Stores what the frames repeat once, after their redaction (shared-strings/resolve.ts). */
  private readonly sharer: StringSharer | undefined;

  constructor(private readonly o: RunPipelineOptions) {
    this.live = { liveRunId: o.runId };
    this.fields = o.redactor?.active ? new SplitFieldRedactor(o.redactor) : undefined;
    this.sharer = o.shareLargeStrings ? new StringSharer() : undefined;
  }

  /**
   * Queues a frame; `raw` (the frame as the engine's wire carried it) goes to the store's bounded raw sidecar.
   * A frame nested too deep to store is replaced by a non-fatal engine.error frame saying so (see frame-guard);
   * secrets are redacted from the frame and the raw bytes before they are queued, a credential header split
   * across this frame and the run's earlier ones included (SplitFieldRedactor): never held back.
   */
  emit(original: JsonValue, originalRaw?: string | Uint8Array): void {
    const guarded = guardFrame(original, originalRaw, this.o.redactor, this.fields);
    const { raw, dropped } = guarded;
    const frame = this.sharer ? this.sharer.share(guarded.frame) : guarded.frame;
    if (dropped && ++this.dropped <= MAX_LOGGED_DROPS) {
      const more = this.dropped === MAX_LOGGED_DROPS ? '; further drops are counted' : '';
      this.o.log?.('warn', `run ${this.o.runId}: a frame from the engine was dropped (${dropped})${more}`, {
        runId: this.o.runId,
      });
    }
    this.pending.push(
      raw === undefined ? { receivedAt: receivedNow(), frame } : { receivedAt: receivedNow(), frame, raw },
    );
    // Started on a microtask: every frame emitted in the same tick (an engine's chunk of output) joins the
    // first flush, instead of the first frame going alone into a transaction of its own.
    if (!this.flushing) this.flushing = Promise.resolve().then(() => this.flushLoop());
  }

  /** Resolves when every frame emitted so far is stored (and its live rows written); rejects if storing failed. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.failure) throw this.failure;
  }

  /** The turn is over: later frames are late. Call after drain(), before the run is finalized. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.dropped > MAX_LOGGED_DROPS)
      this.o.log?.(
        'warn',
        `run ${this.o.runId}: ${this.dropped} frames from the engine were dropped in all`,
        {
          runId: this.o.runId,
        },
      );
  }

  /** Text with the secrets this pipeline knows redacted: the executor passes the run's error through it. */
  redactText(text: string): string {
    return this.o.redactor ? this.o.redactor.text(text) : text;
  }

  /** Set when frames could not be stored (the run must fail: the source lane is incomplete). */
  get error(): Error | null {
    return this.failure;
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        let batch = this.pending;
        if (batch.length > MAX_FLUSH_FRAMES) {
          this.pending = batch.slice(MAX_FLUSH_FRAMES);
          batch = batch.slice(0, MAX_FLUSH_FRAMES);
        } else {
          this.pending = [];
        }
        this.flushes++;
        if (this.closed) {
          await this.storeFrames(batch, this.nextNativeSeq ?? undefined);
        } else if (this.nextNativeSeq === null) {
          const records = await this.storeFrames(batch);
          const last = records[records.length - 1];
          if (last) this.nextNativeSeq = last.nativeSeq + 1;
          if (records.length > 0) await this.translateAndPublish(records);
        } else {
          await this.storeAndTranslateTogether(batch, this.nextNativeSeq);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  /**
   * Stores frames alone, retried a few times. `expectedFirstSeq` (where this pipeline, the lane's only writer,
   * knows its end): a retry after a commit whose outcome was unknown finds its frames stored and gets them
   * back instead of appending them twice.
   */
  private async storeFrames(
    batch: SourceFrameInput[],
    expectedFirstSeq?: number,
  ): Promise<NativeFrameRecord[]> {
    const options = expectedFirstSeq === undefined ? undefined : { expectedFirstSeq };
    for (let attempt = 1; ; attempt++) {
      try {
        const stored = await this.o.store.appendFrames(this.o.runId, batch, options);
        this.framesStored += stored.length;
        return stored;
      } catch (err) {
        if (!this.retryable(err, batch.length) || attempt >= 3) {
          if (!isSealed(err)) this.fail(err);
          return [];
        }
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  private async storeAndTranslateTogether(batch: SourceFrameInput[], firstSeq: number): Promise<void> {
    const predicted: NativeFrameRecord[] = batch.map((f, i) => ({
      runId: this.o.runId,
      nativeSeq: firstSeq + i,
      receivedAt: f.receivedAt,
      frame: f.frame,
    }));
    this.nextNativeSeq = firstSeq + batch.length;
    let writes: EventWrite[] = [];
    let audit: AuditableCall[] = [];
    try {
      const translated = this.translate(predicted);
      audit = translated.audit;
      writes = await translated.writes;
    } catch (err) {
      this.o.log?.('warn', `live translation of run ${this.o.runId} failed; the final pass will repair it`, {
        error: this.safeError(err),
      });
    }
    // Same tick: the store's group commit puts both into one transaction.
    const framesWritten = this.o.store.appendFrames(this.o.runId, batch);
    const eventsWritten =
      writes.length > 0 ? this.o.store.appendEvents(this.o.threadId, writes, true, this.live) : null;
    const [frames, events] = await Promise.allSettled([framesWritten, eventsWritten]);
    if (frames.status === 'fulfilled') {
      this.framesStored += frames.value.length;
      if (frames.value[0]?.nativeSeq !== firstSeq) {
        // Someone else appended to this run's lane: the rows were derived from guessed seqs.
        this.o.log?.(
          'warn',
          `run ${this.o.runId}: native seqs moved under the live pass; the final pass repairs it`,
        );
        const last = frames.value[frames.value.length - 1];
        this.nextNativeSeq = last ? last.nativeSeq + 1 : null;
        this.auditTrusted = false;
      }
      // The frames the rows were derived from are committed, under the seqs they were translated with.
      this.writeAudit(audit);
    } else if (isSealed(frames.reason)) {
      this.nextNativeSeq = null;
      this.auditTrusted = false;
    } else {
      this.auditTrusted = false;
      // Not stored as one transaction: retry the frames alone; their rows come from the final pass. The
      // commit may have gone through unheard (the connection broke during COMMIT): the retry then finds the
      // frames at the seqs they were translated with instead of storing them twice.
      this.nextNativeSeq = null;
      await this.storeFrames(batch, firstSeq);
    }
    if (events.status === 'fulfilled' && events.value) {
      this.rowsPublished += events.value.inserted.length;
      this.o.hub.publishRows(this.o.threadId, events.value.inserted);
    } else if (events.status === 'rejected' && isSealed(events.reason)) {
      this.o.log?.(
        'warn',
        `live rows of sealed run ${this.o.runId} not written: the final pass writes its rows`,
      );
    } else if (events.status === 'rejected') {
      this.o.log?.(
        'warn',
        `live rows of run ${this.o.runId} were not written; the final pass will repair it`,
        {
          error: this.safeError(events.reason),
        },
      );
    }
  }

  private translate(records: NativeFrameRecord[]): {
    writes: EventWrite[] | Promise<EventWrite[]>;
    audit: AuditableCall[];
  } {
    const step: BuiltStep = { events: [], artifacts: [] };
    for (const record of records) this.o.translation.pushInto(record, step);
    // The live pass of a run that starts with no rows: first emissions need no revision lookup in the store.
    return { writes: this.o.materializer.toWrites(step, true), audit: step.audit ?? [] };
  }

  /**
   * Records audit rows of frames that are committed. Not awaited: the ledger write is idempotent on the row
   * key, and the final pass over the sealed source writes the same rows again (a no-op) or repairs a miss.
   */
  private writeAudit(rows: AuditableCall[]): void {
    if (rows.length === 0 || !this.o.audit || !this.auditTrusted) return;
    // The translator may join frames redacted one by one (a key split across two chunks): the rows' texts
    // are redacted whole before they are stored.
    const { redactor } = this.o;
    const safe = redactor?.active
      ? rows.map((r) => redactor.json(r as unknown as JsonValue) as unknown as AuditableCall)
      : rows;
    this.o.audit.record(safe).catch((err) =>
      this.o.log?.('warn', `audit rows of run ${this.o.runId} were not recorded; the final pass retries`, {
        error: this.safeError(err),
      }),
    );
  }

  private async translateAndPublish(records: NativeFrameRecord[]): Promise<void> {
    try {
      const translated = this.translate(records);
      // These frames are already stored: their audit rows may go now.
      this.writeAudit(translated.audit);
      const writes = await translated.writes;
      if (writes.length === 0) return;
      const result = await this.o.store.appendEvents(this.o.threadId, writes, true, this.live);
      this.rowsPublished += result.inserted.length;
      this.o.hub.publishRows(this.o.threadId, result.inserted);
    } catch (err) {
      this.o.log?.('warn', `live translation of run ${this.o.runId} failed; the final pass will repair it`, {
        error: this.safeError(err),
      });
    }
  }

  private retryable(err: unknown, count: number): boolean {
    if (isSealed(err)) {
      // The store recorded the refused frames; they are late by definition and never translated.
      this.o.log?.('warn', `late frames refused for sealed run ${this.o.runId}`, { count });
      return false;
    }
    return true;
  }

  /** An error's text, secrets redacted. */
  private safeError(err: unknown): string {
    return this.redactText(errorMessage(err));
  }

  private fail(err: unknown): void {
    this.failure = new Error(`could not store native frames: ${this.safeError(err)}`);
    this.o.log?.('error', this.failure.message, { runId: this.o.runId });
  }
}

let lastMs = -1;
let lastIso = '';
/** The receive time as ISO text; frames of one millisecond share one string (one Date per ms, not per frame). */
function receivedNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

function isSealed(err: unknown): boolean {
  return err instanceof StoreError && err.code === 'source_sealed';
}
