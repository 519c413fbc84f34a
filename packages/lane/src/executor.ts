import type { TurnOutcome } from '@agentlane/engine-kit';
import type { RunOutcome, RunRecord } from '@agentlane/store';
import { checkAnswers } from './answers.js';
import { EngineSessions } from './engine-sessions.js';
import {
  type ActiveRun,
  finalizeAndAnnounce,
  harness,
  type RunExecutorOptions,
  recordSetupFailure,
  sleep,
  type Waiter,
} from './executor-state.js';
import { Materializer } from './offload.js';
import { settleExpiredRuns } from './recovery.js';
import { RunPipeline } from './run-pipeline.js';
import { errorMessage, RunTranslation } from './run-translation.js';
import { runTurn } from './turn-runner.js';

export type { RunExecutorOptions } from './executor-state.js';

/**
 * Executes queued runs: claims them (durable run.create commands), opens or reattaches the thread's engine
 * session, runs the turn with a TurnIO backed by the store (frames to the source lane, run.cancel → abort,
 * answers recorded through the API → awaitApproval/awaitQuestion), then settles the run (which enqueues its
 * canonicalization in the same transaction) and publishes run.status.
 */
export class RunExecutor {
  private readonly active = new Map<string, ActiveRun>();
  private readonly sessions: EngineSessions;
  private readonly cancelled = new Set<string>();
  /** Runs stop() handed back: their leases are released once their turns are stopped. */
  private readonly handedBack = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private leaseTimer: NodeJS.Timeout | null = null;
  private claiming = false;
  private polling = false;
  private leasing: Promise<void> | null = null;
  /** Settling runs of processes that are gone (reclaimExpired), apart from the renewals. */
  private reclaiming: Promise<void> | null = null;
  private stopped = true;
  /**
   * When this process last saw the database fail or stall (a lease call that threw or took longer than a
   * renewal period). An outage stops every process's renewals alike, so a lease that expired during it says
   * nothing about its owner: runs are reclaimed only after a full lease period of calls answered in time,
   * which gives every live owner its renewals back first.
   */
  private outageSeenAt = Number.NEGATIVE_INFINITY;
  /** Leases held at the last renewal. */
  private leasesHeld = 0;

  constructor(private readonly o: RunExecutorOptions) {
    this.sessions = new EngineSessions(o);
  }

  async start(): Promise<void> {
    this.stopped = false;
    // Runs of processes that died while this one was down are settled now, not one renewal later; a settle
    // waiting on a stopped process's locks holds the start for one lease period at most.
    this.startReclaim();
    await Promise.race([this.reclaiming, sleep(this.o.leaseMs)]);
    this.timer = setInterval(() => void this.tick(), this.o.pollIntervalMs);
    this.timer.unref();
    this.leaseTimer = setInterval(() => void this.leaseTick(), this.o.leaseRenewMs);
    this.leaseTimer.unref();
    this.kick();
  }

  /**
   * Stops taking runs, waits up to `graceMs` for the running ones to finish, then hands the rest back: their
   * turns are stopped here, what the engine emitted is flushed, and their leases expire at once so another
   * process (or this one after a restart) settles them. A run waiting for an answer is handed back at once:
   * nobody may answer within the grace period. Never settles a run as cancelled, and is done within graceMs
   * (plus one store write) even when an engine ignores its abort.
   */
  async stop(graceMs = 0): Promise<void> {
    this.stopped = true;
    const deadline = Date.now() + Math.max(0, graceMs);
    // Part of the grace period is kept for handing back: stopping turns and flushing their frames.
    const handBackMs = Math.min(2000, Math.max(0, graceMs) / 3);
    for (;;) {
      for (const a of this.active.values()) if (a.waiters.size > 0 && !a.settling) this.handBack(a);
      const left = deadline - handBackMs - Date.now();
      if (this.active.size === 0 || left <= 0) break;
      await Promise.race([
        Promise.allSettled([...this.active.values()].map((a) => a.done)),
        sleep(Math.min(left, 100)),
      ]);
    }
    for (const a of this.active.values()) if (!a.settling) this.handBack(a);
    const remaining = [...this.active.values()];
    // What is left of the period after the stopped turns flushed is for the store write and closing engines.
    const tail = Math.min(1000, Math.max(0, graceMs) / 6);
    await Promise.race([
      Promise.allSettled(remaining.map((a) => a.done)),
      sleep(Math.max(50, deadline - tail - Date.now())),
    ]);
    if (this.timer) clearInterval(this.timer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.timer = null;
    this.leaseTimer = null;
    await this.leasing;
    // A settle may wait on a stopped process's locks: it gets what is left of the period, not more.
    await Promise.race([this.reclaiming, sleep(Math.max(0, deadline - tail - Date.now()))]);
    // Every run handed back, also those whose turn already returned (and left the active map).
    const released = [...this.handedBack];
    if (released.length > 0) {
      await this.o.store
        .releaseRunLeases(this.o.ownerId, released)
        .catch((err) => this.o.log?.('warn', 'handing runs back failed', { error: errorMessage(err) }));
      this.o.log?.('info', `handed ${released.length} run(s) back at shutdown`);
    }
    await this.sessions.closeAll(deadline);
  }

  private handBack(a: ActiveRun): void {
    if (a.released) return;
    a.released = true;
    this.handedBack.add(a.run.runId);
    a.abort.abort(new Error('the process is shutting down; the run is handed back'));
    for (const w of a.waiters) w.resolve(null);
  }

  get activeRuns(): number {
    return this.active.size;
  }

  /** Claims queued runs now (e.g. right after this process created one). */
  kick(): void {
    void this.claimLoop();
  }

  /** Aborts a run of this process at once (the command is already in the store). */
  cancelLocal(runId: string, requestedBy?: string): void {
    this.cancelled.add(runId);
    const a = this.active.get(runId);
    if (!a || a.abort.signal.aborted) return;
    if (a.pipeline) {
      a.pipeline.emit(harness({ harness: 'turn.cancel_requested', ...(requestedBy ? { requestedBy } : {}) }));
      a.cancelRecorded = true;
    }
    a.abort.abort(new Error('run.cancel'));
    for (const w of a.waiters) w.resolve(null);
  }

  /**
   * A queued run asked to cancel settles now (cancelled before it started), without waiting for a slot or for
   * its thread's turn: it starts no engine. Before, it stayed queued (cancel 202, the session undeletable,
   * the run counted against the token's limit) until some other run freed a slot.
   */
  async settleCancelledQueued(runId: string): Promise<void> {
    if (this.stopped || this.active.has(runId)) return;
    const run = await this.o.store.claimRun(runId, this.o.ownerId, this.o.leaseMs).catch((err) => {
      // The cancel is recorded: whoever claims the run settles it; only the shortcut failed.
      this.o.log?.('warn', `settling cancelled queued run ${runId} failed`, { error: errorMessage(err) });
      return null;
    });
    if (!run) return; // not queued any more: its owner hears the cancel
    this.cancelled.add(run.runId);
    this.launch(run);
  }

  /**
   * Closes a thread's engine session (its engine process ends): at once when no run uses it, else when the
   * run using it ends. False when this process has no session of that thread open.
   */
  closeThreadEngine(threadId: string): Promise<boolean> {
    return this.sessions.closeThread(threadId);
  }

  /** Wakes the waiters of a run of this process (an answer was just recorded). */
  wakeAnswers(runId: string): void {
    const a = this.active.get(runId);
    if (a && a.waiters.size > 0) void checkAnswers(this.o, a);
  }

  private async tick(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      this.sessions.reapIdle(this.o.engineIdleMs);
      if (this.active.size > 0) await this.pollCancels();
      for (const a of this.active.values()) if (a.waiters.size > 0) await checkAnswers(this.o, a);
    } catch (err) {
      this.o.log?.('warn', 'executor poll failed', { error: errorMessage(err) });
    } finally {
      this.polling = false;
    }
    this.kick();
  }

  /** run.cancel requested through any process: a flag on the rows of the runs this process holds. */
  private async pollCancels(): Promise<void> {
    for (const held of await this.o.store.listHeldRuns(this.o.ownerId)) {
      if (held.cancelRequested && !this.cancelled.has(held.runId)) this.cancelLocal(held.runId);
    }
  }

  private leaseTick(): void {
    if (this.leasing) return;
    this.leasing = this.renewAndReclaim()
      .catch((err) => {
        this.outageSeenAt = Date.now();
        this.o.log?.('warn', 'renewing run leases failed', { error: errorMessage(err) });
      })
      .finally(() => {
        this.leasing = null;
      });
  }

  /** Runs `call`; one that outlasts a renewal period (retried through an outage) counts as an outage seen. */
  private async timedLeaseCall<T>(call: () => Promise<T>): Promise<T> {
    const started = Date.now();
    const value = await call();
    if (Date.now() - started > this.o.leaseRenewMs) this.outageSeenAt = Date.now();
    return value;
  }

  /** Renews this process's leases (a run it lost to another process is stopped), then reclaims dead ones. */
  private async renewAndReclaim(): Promise<void> {
    // Only runs launched before the renewal are judged by it: a claim committing meanwhile is not missing.
    const asked = [...this.active.values()];
    // Once more after the last run left: the answer (none held) is what a gauge of held leases shows.
    if (asked.length > 0 || this.leasesHeld > 0) {
      const renewed = await this.timedLeaseCall(() =>
        this.o.store.renewRunLeases(this.o.ownerId, this.o.leaseMs),
      );
      this.leasesHeld = renewed.length;
      const held = new Set(renewed.map((h) => h.runId));
      for (const a of asked) {
        if (held.has(a.run.runId) || a.settling || a.released || a.lost) continue;
        a.lost = true;
        this.o.log?.('warn', `run ${a.run.runId} was taken over by another process; stopping it here`);
        a.abort.abort(new Error('the run lease was lost'));
        for (const w of a.waiters) w.resolve(null);
      }
    }
    // Not awaited: a settle can wait on a stopped process's row locks (PostgreSQL); renewals waiting behind
    // it let this process's own leases expire, and others settled its live runs.
    this.startReclaim();
  }

  private startReclaim(): void {
    if (this.stopped || this.reclaiming) return;
    this.reclaiming = this.reclaimExpired()
      .catch((err) => {
        this.outageSeenAt = Date.now(); // a failing database: an outage (see outageSeenAt)
        this.o.log?.('warn', 'settling runs of a lost process failed', { error: errorMessage(err) });
      })
      .finally(() => {
        this.reclaiming = null;
      });
  }

  /** Settles the runs whose lease expired (their process is gone): see settleExpiredRuns. */
  private async reclaimExpired(): Promise<void> {
    const expired = await this.timedLeaseCall(() => this.o.store.listExpiredRuns());
    // After an outage (see outageSeenAt) the owners of these runs may be alive and not have renewed yet.
    if (Date.now() - this.outageSeenAt < this.o.leaseMs) return;
    await settleExpiredRuns(this.o, expired, (runId) => this.active.has(runId) || this.stopped);
  }

  private async claimLoop(): Promise<void> {
    if (this.claiming || this.stopped) return;
    this.claiming = true;
    try {
      while (!this.stopped && this.active.size < this.o.maxConcurrentRuns) {
        const run = await this.o.store.claimQueuedRun(this.o.ownerId, this.o.leaseMs);
        if (!run) break;
        if (run.cancelRequestedAt !== null) this.cancelled.add(run.runId);
        this.launch(run);
      }
    } catch (err) {
      this.o.log?.('warn', 'claiming queued runs failed', { error: errorMessage(err) });
    } finally {
      this.claiming = false;
    }
  }

  private launch(run: RunRecord): void {
    const abort = new AbortController();
    const entry = { run, abort, waiters: new Set<Waiter>() } as ActiveRun;
    this.active.set(run.runId, entry);
    entry.done = this.execute(entry)
      .catch((err) =>
        this.o.log?.('error', `run ${run.runId} crashed the executor`, { error: errorMessage(err) }),
      )
      .finally(() => {
        this.active.delete(run.runId);
        this.kick();
      });
  }

  private async execute(a: ActiveRun): Promise<void> {
    const { store, hub } = this.o;
    const { run } = a;
    hub.publishSignal(run.threadId, {
      type: 'run.status',
      threadId: run.threadId,
      runId: run.runId,
      status: 'running',
      statusVersion: run.statusVersion,
    });
    const thread = await store.getThread(run.threadId);
    const driver = thread ? this.o.driverFor(thread.engine) : undefined;
    if (!thread || !driver) {
      const error = thread ? `no engine named "${thread.engine}" is configured` : 'thread not found';
      await recordSetupFailure(store, run.runId, error);
      await this.settle(run, 'failed', error);
      return;
    }
    const translation = new RunTranslation(
      driver.translator,
      { threadId: run.threadId, runId: run.runId, turnId: run.runId, provider: driver.provider },
      {
        ...(this.o.redactor ? { redactor: this.o.redactor } : {}),
        // The Materializer's threshold: the artifact seqs it uses are reserved by the translation.
        ...(this.o.artifactThresholdBytes ? { artifactThresholdBytes: this.o.artifactThresholdBytes } : {}),
      },
    );
    const pipeline = new RunPipeline({
      ...(this.o.redactor ? { redactor: this.o.redactor } : {}),
      ...(driver.shareLargeStrings ? { shareLargeStrings: true } : {}),
      store,
      hub,
      threadId: run.threadId,
      runId: run.runId,
      translation,
      materializer: new Materializer(store, this.o.artifactThresholdBytes),
      ...(this.o.audit ? { audit: this.o.audit } : {}),
      ...(this.o.log ? { log: this.o.log } : {}),
    });
    a.pipeline = pipeline;
    const model = typeof run.options.model === 'string' ? run.options.model : undefined;
    const mode = typeof run.options.mode === 'string' ? run.options.mode : undefined;
    pipeline.emit(
      harness({
        harness: 'turn.started',
        prompt: run.prompt,
        ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
        ...(model ? { model } : {}),
        ...(mode ? { mode } : {}),
      }),
    );

    let outcome: TurnOutcome;
    if (this.cancelled.has(run.runId)) {
      if (!a.cancelRecorded) pipeline.emit(harness({ harness: 'turn.cancel_requested' }));
      outcome = { outcome: 'cancelled', error: 'cancelled before it started' };
    } else {
      outcome = await runTurn({ ...this.o, sessions: this.sessions }, a, pipeline, thread, driver, {
        model,
        mode,
      });
    }
    if (a.lost || a.released) {
      // Not ours to end: what the engine emitted is flushed, whoever reclaims the run writes its end.
      await pipeline.drain().catch(() => undefined);
      pipeline.close();
      return;
    }
    if (a.abort.signal.aborted && outcome.outcome === 'completed') outcome = { outcome: 'cancelled' };
    pipeline.emit(
      harness({
        harness: 'turn.ended',
        outcome: outcome.outcome,
        ...(outcome.error ? { error: outcome.error } : {}),
      }),
    );
    // A cancel is no failure: the run settles completed with outcome cancelled and no error.
    let error = outcome.outcome === 'cancelled' ? null : (outcome.error ?? null);
    try {
      await pipeline.drain();
    } catch (err) {
      error = errorMessage(err);
      outcome = { outcome: 'failed', error };
    }
    // An engine's error text may quote what it was given (its key in a stderr tail).
    if (error) error = pipeline.redactText(error);
    // Anything the engine emits from now on is late: stored as refused once sealed, never translated live.
    pipeline.close();
    if (a.lost || a.released) return;
    await this.settle(run, outcome.outcome === 'failed' ? 'failed' : 'completed', error, outcome.outcome);
  }

  private async settle(
    run: RunRecord,
    status: 'completed' | 'failed',
    error: string | null,
    outcome: RunOutcome = status,
  ): Promise<void> {
    const entry = this.active.get(run.runId);
    if (entry) entry.settling = true;
    await finalizeAndAnnounce(this.o, run, status, error, outcome);
  }
}
