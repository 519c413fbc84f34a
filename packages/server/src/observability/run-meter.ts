import type { RunRecord, Store } from '@agentlane/store';
import type { Metrics } from './metrics.js';

const seconds = (startedAt: number) => (performance.now() - startedAt) / 1000;

/** Outbox entries checked against the store per scrape, oldest first (so the lag is always checked). */
const RECONCILE_LIMIT = 100;

/**
 * The run metrics observeStore keeps across calls: the runs active by engine and status, and the settled
 * runs waiting for canonicalization (the outbox depth and lag are sampled from them at scrape time).
 *
 * An outbox entry leaves when this process completes its canonicalization, or when a scrape finds that it
 * never will here: the run is gone (its session was deleted, by this process or another, before or during
 * its canonicalization: the outbox row went with it) or it was canonicalized by another process.
 */
export class RunMeter {
  readonly #store: Store;
  readonly #metrics: Metrics;
  readonly #engineOf = new Map<string, string>();
  readonly #active = new Map<string, { engine: string; status: 'queued' | 'running' }>();
  /** Settled runs waiting for canonicalization, with when they entered the outbox (ms since epoch). */
  readonly #outbox = new Map<string, number>();
  #reconciling: Promise<void> | undefined;
  #reconcilingActive: Promise<void> | undefined;

  constructor(store: Store, metrics: Metrics) {
    this.#store = store;
    this.#metrics = metrics;
    metrics.sampled.outboxDepth = async () => {
      await this.#reconciled();
      return this.#outbox.size;
    };
    metrics.sampled.activeRuns = () => this.#reconciledActive();
    metrics.sampled.outboxLagSeconds = async () => {
      await this.#reconciled();
      let oldest = Number.POSITIVE_INFINITY;
      for (const at of this.#outbox.values()) oldest = Math.min(oldest, at);
      return this.#outbox.size === 0 ? 0 : Math.max(0, (Date.now() - oldest) / 1000);
    };
  }

  /** A run queued or claimed: it moves to that status among the active runs. */
  async enter(run: RunRecord, status: 'queued' | 'running'): Promise<void> {
    const engine = await this.#threadEngine(run.threadId);
    const before = this.#active.get(run.runId);
    if (before) this.#metrics.runsActive.dec({ engine, status: before.status });
    this.#active.set(run.runId, { engine, status });
    this.#metrics.runsActive.inc({ engine, status });
    this.#metrics.runs.inc({ engine, status });
  }

  /** A claim's answer: the run claimed is running. */
  async claimed(run: RunRecord | null): Promise<RunRecord | null> {
    if (run) await this.enter(run, 'running');
    return run;
  }

  /** A run finalized: no longer active, counted by its outcome, and in the outbox until canonicalized. */
  async settle(run: RunRecord): Promise<void> {
    const engine = await this.#threadEngine(run.threadId);
    const before = this.#active.get(run.runId);
    if (before) this.#metrics.runsActive.dec({ engine, status: before.status });
    this.#active.delete(run.runId);
    this.#metrics.runs.inc({ engine, status: run.outcome ?? run.status });
    this.outboxSeen(run.runId, Date.now());
  }

  /** A run in the outbox since `at` (ms since epoch), unless it is already known there. */
  outboxSeen(runId: string, at: number): void {
    if (!this.#outbox.has(runId)) this.#outbox.set(runId, at);
  }

  /** A run's canonicalization completed: how long it waited in the outbox. */
  canonicalized(runId: string): void {
    const enqueuedAt = this.#outbox.get(runId);
    this.#outbox.delete(runId);
    if (enqueuedAt !== undefined)
      this.#metrics.canonicalizationSeconds.observe(Math.max(0, (Date.now() - enqueuedAt) / 1000));
  }

  /**
   * The outbox as the store has it, before a scrape reads depth and lag (both gauges share one pass): an
   * entry whose run no longer exists or is already canonicalized is dropped. Checked at scrape time, not on
   * a timer: the figures are only read then, and an empty outbox (the usual case) costs no query. A store
   * that cannot answer now leaves the entries as they are.
   */
  #reconciled(): Promise<void> {
    this.#reconciling ??= this.#reconcile().finally(() => {
      this.#reconciling = undefined;
    });
    return this.#reconciling;
  }

  async #reconcile(): Promise<void> {
    const oldest = [...this.#outbox].sort((a, b) => a[1] - b[1]).slice(0, RECONCILE_LIMIT);
    await Promise.all(
      oldest.map(async ([runId]) => {
        const run = await this.#store.getRun(runId).catch(() => undefined);
        if (run === null || (run !== undefined && run.canonicalizedAt !== null)) this.#outbox.delete(runId);
      }),
    );
  }

  /**
   * The active runs as the store has them, before a scrape reads the gauge: a run another process claimed,
   * settled or deleted is no longer this process's (whoever moved it counts it). A store that cannot answer
   * now leaves the runs as they are.
   */
  #reconciledActive(): Promise<void> {
    this.#reconcilingActive ??= this.#reconcileActive().finally(() => {
      this.#reconcilingActive = undefined;
    });
    return this.#reconcilingActive;
  }

  async #reconcileActive(): Promise<void> {
    const checked = [...this.#active].slice(0, RECONCILE_LIMIT);
    await Promise.all(
      checked.map(async ([runId, active]) => {
        const run = await this.#store.getRun(runId).catch(() => undefined);
        if (run === undefined || (run !== null && run.status === active.status)) return;
        // Re-read: a claim or settle of this process may have moved the entry while the store answered.
        if (this.#active.get(runId) !== active) return;
        this.#active.delete(runId);
        this.#metrics.runsActive.dec({ engine: active.engine, status: active.status });
      }),
    );
  }

  /** A commit's duration, as the lane awaited it. */
  async timed<T>(op: 'events' | 'frames', call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await call();
    this.#metrics.commitSeconds.observe({ op }, seconds(started));
    return result;
  }

  async #threadEngine(threadId: string): Promise<string> {
    const known = this.#engineOf.get(threadId);
    if (known !== undefined) return known;
    const engine = (await this.#store.getThread(threadId).catch(() => null))?.engine ?? 'unknown';
    // Bounded: one entry per thread seen, dropped wholesale past a size no single process needs.
    if (this.#engineOf.size > 10_000) this.#engineOf.clear();
    this.#engineOf.set(threadId, engine);
    return engine;
  }
}
